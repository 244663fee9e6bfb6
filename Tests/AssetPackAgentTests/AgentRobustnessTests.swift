import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// Hostile and unusual clients on the socket: each gets an answer (or a closed connection) and
/// the agent serves the next one.
@Suite struct AgentRobustnessTests {
    @Test func garbageOversizeAndHalfClosedRequestsGet4xxAndTheAgentLivesOn() async throws {
        let fixture = try AgentFixture()
        try fixture.put("A", files: ["a.bin": patternBytes(1000, seed: 1)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let path = agent.socketPath

        func exchange(_ request: [UInt8], halfClose: Bool = false) throws -> RawSocket {
            let s = try RawSocket(path: path)
            s.send(request)
            if halfClose { s.shutdownWriting() }
            _ = s.readToEnd(timeout: 10)
            return s
        }
        func statusOf(_ text: String) throws -> Int? { try exchange(Array(text.utf8)).status }

        #expect(try statusOf("HELLO WORLD\r\n\r\n") == 400)
        #expect(try statusOf("GET /v1/status FOO/1.1\r\n\r\n") == 400)
        #expect(try statusOf("GET /v1/status HTTP/1.1\r\nno colon here\r\n\r\n") == 400)
        #expect(try statusOf("GET /v1/status HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\n") == 400)
        #expect(try statusOf("GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: a\r\n\r\n") == 414)
        #expect(try statusOf("GET /v1/nothing HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") == 404)
        #expect(try statusOf("GET /elsewhere HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") == 404)
        #expect(try statusOf("PUT /v1/status HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") == 405)
        #expect(try statusOf("POST /v1/packs/..%2Fetc/ensure HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") == 400)
        // A body that is not the JSON object the route takes.
        #expect(try statusOf("POST /v1/packs/A/ensure HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{{{{{") == 400)
        #expect(try statusOf("POST /v1/packs/A/ensure HTTP/1.1\r\nHost: a\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{\"detach\": \"x\"}") == 400)
        // Over 1 MiB, declared: refused before the body is read.
        #expect(try statusOf("POST /v1/packs/A/ensure HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n") == 413)
        // Chunked (no length declared): refused before the body is read, whatever its size.
        let chunk = Array("100000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x100000) + Array("\r\n".utf8)
        let chunked = try exchange(Array("POST /v1/packs/A/ensure HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + chunk + chunk + Array("0\r\n\r\n".utf8))
        #expect(chunked.status == 411)
        #expect(try statusOf("GET /v1/files/%ZZ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") == 400)
        // A progressive read's range that is not FIRST-LAST: refused before anything is read.
        for range in ["9-3", "x-4", "-5", "1-2-3", "99999999999999999999-"] {
            #expect(try statusOf("GET /v1/files/a.bin?pack=A&progressive=1&range=\(range) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") == 400, "\(range)")
        }
        // Half-closed mid-request: no answer but a closed connection, never a 2xx.
        let half = try exchange(Array("GET /v1/status HTTP/1.1\r\nHost: a\r\n".utf8), halfClose: true)
        #expect(half.isClosedByPeer && (half.status ?? 400) >= 400)
        // Not HTTP at all: closed (or 4xx).
        let junk = try exchange(Array("GARBAGE\r\n\r\n".utf8))
        #expect(junk.isClosedByPeer && (junk.status ?? 400) >= 400)
        // Bytes that never finish a request line stay pending on their own connection only.
        let stuck = try RawSocket(path: path)
        stuck.send([0x00, 0x01, 0xFF, 0x0D, 0x0A])

        // Still serving, and nothing was queued by any of it.
        let connection = try AgentConnection(root: fixture.root)
        #expect(try await connection.agentStatus().requests.isEmpty)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "A")
        #expect(fixture.installedFile("A", "a.bin") != nil)
        await agent.stopped()
    }

    @Test func twoHundredSubscribersSeeEveryEventAndLeavingMidStreamIsFine() async throws {
        let fixture = try AgentFixture()
        try fixture.put("One", files: ["1.bin": patternBytes(200_000, seed: 1)])
        try fixture.put("Two", files: ["2.bin": patternBytes(200_000, seed: 2)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        var subscribers = try (0..<200).map { _ in
            let s = try RawSocket(path: agent.socketPath)
            s.send("GET /v1/events HTTP/1.1\r\nHost: agent\r\n\r\n")
            return s
        }
        try await waitUntil("200 open streams", timeout: .seconds(30)) { try agent.statusReport().subscribers == 200 }

        let connection = try AgentConnection(root: fixture.root)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "One")
        func finished(_ s: RawSocket, _ id: String) -> Bool {
            s.readNow()
            return s.text.contains("event: finished\ndata: {") && s.text.contains("\"id\":\"\(id)\"")
        }
        try await waitUntil("every subscriber to see One finish", timeout: .seconds(30)) { subscribers.allSatisfy { finished($0, "One") } }
        #expect(subscribers.allSatisfy { $0.text.hasPrefix("HTTP/1.1 200") && $0.text.contains("event: began") })

        // Half of them leave without a word; the next events reach the others, and the agent
        // notices the departures when it writes to them.
        subscribers.removeLast(100)  // closes their sockets
        let staying = subscribers
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Two")
        try await waitUntil("the staying subscribers to see Two finish", timeout: .seconds(30)) { staying.allSatisfy { finished($0, "Two") } }
        try await waitUntil("the agent to drop the 100 closed streams", timeout: .seconds(30)) { try agent.statusReport().subscribers == 100 }
        #expect(try await connection.namespace().count == 2)
        await agent.stopped()
    }
}
