import Foundation
import TestRepositories
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AssetPackServer

/// Slowloris: clients that open many connections and trickle header bytes must not keep the
/// server from answering everyone else. Serialized: each test holds hundreds of connections.
@Suite(.serialized) struct SlowClientTests {
    @Test func tricklingDoesNotExtendTheRequestTimeout() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: FaultConfiguration()) { $0.requestTimeoutSeconds = 1 }
        let slow = try RawHTTPConnection(port: server.port)
        let request = Array("GET /catalog.json HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n".utf8)
        // One byte every quarter second would take 15 s for the whole request; the server
        // allows one second, and each byte must not restart the clock.
        var sent = 0
        var closed = false
        while sent < request.count - 1 && !closed {
            var byte = request[sent]
            _ = send(slow.fd, &byte, 1, Int32(MSG_NOSIGNAL))
            sent += 1
            var p = pollfd(fd: slow.fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 250) == 1 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let n = recv(slow.fd, &buffer, buffer.count, 0)
                #expect(n <= 0, "the server answered an incomplete request")
                closed = true
            }
        }
        #expect(closed, "the server kept a connection that trickled \(sent) bytes")
        #expect(sent < request.count - 1)
        // Everyone else is served.
        repo.expectCatalog(try RawHTTPConnection(port: server.port).request("/catalog.json"))
        #expect(server.server.context.registry.timedOut >= 1)
    }

    @Test func anIdleKeepAliveConnectionIsServedUntilItsTimeout() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve(faults: FaultConfiguration()) { $0.requestTimeoutSeconds = 1 }
        let c = try RawHTTPConnection(port: server.port)
        repo.expectCatalog(try c.request("/catalog.json"))
        // Prompt follow-ups on the same connection are served; an idle one is closed.
        repo.expectCatalog(try c.request("/catalog.json"))
        #expect(c.isClosedByPeer())
        #expect(try RawHTTPConnection(port: server.port).request("/packs/small.pack").body == repo.smallPack)
    }

    /// Hundreds of slow connections from the measuring client's own address (all loopback
    /// clients are 127.0.0.1), against a per-address limit of 64: each newcomer past the limit
    /// closes the address's longest-waiting connection, so the attack never locks anyone out.
    @Test func slowConnectionsPastThePerAddressLimitMakeRoom() throws {
        try measureDuringAttack(attackers: 300, configure: { $0.perAddressConnectionLimit = 64; $0.connectionLimit = 4096 }, stillOpen: 64)
    }

    /// The same against the global limit: with 128 places and a reserve of 8, the attack can
    /// hold at most 120, and every newcomer closes the connection that has waited longest.
    /// Attack connections may also be turned away outright by libmicrohttpd's backstop limit
    /// while evicted ones are still closing: they count as closed.
    @Test func slowConnectionsPastTheGlobalLimitMakeRoom() throws {
        try measureDuringAttack(attackers: 300, configure: { $0.perAddressConnectionLimit = 4096; $0.connectionLimit = 128 }, stillOpen: 120)
    }

    /// Starts `attackers` slow connections (request timeout one minute, so that only admission
    /// can save the day), waits until the server has closed all but `stillOpen` of them, then
    /// makes 40 ordinary requests on fresh connections while the rest keep trickling: every one
    /// must succeed.
    private func measureDuringAttack(attackers: Int, configure: (inout ServerConfiguration) -> Void, stillOpen: Int) throws {
        let repo = try TestRepository.servingBytes(packSize: 100_000)
        let server = try repo.serve(faults: FaultConfiguration()) { configure(&$0); $0.requestTimeoutSeconds = 60; $0.accessLog = .none }
        let attack = try SlowAttacker(port: server.port, count: attackers)
        defer { attack.stop() }
        attack.start()
        let closedAtStart = attack.waitUntilClosed(atLeast: attackers - stillOpen, seconds: 60)
        #expect(closedAtStart >= attackers - stillOpen)
        // And the server has finished closing them (bounded wait), so what follows measures
        // admission while the remaining slow connections hold their places.
        try? blockingWaitUntil("the server has closed the evicted connections", timeout: .seconds(60)) {
            server.server.context.registry.trackedCount <= stillOpen
        }
        var served = 0
        for i in 0..<40 {
            let c = try RawHTTPConnection(port: server.port)
            let r = try c.request(i % 2 == 0 ? "/catalog.json" : "/packs/big.pack")
            #expect(r.status == 200 && r.body == (i % 2 == 0 ? TestRepository.stubCatalog : repo.pack), "request \(i): \(r.status)")
            // Keep-alive still works under attack.
            let again = try c.request("/packs/small.pack")
            #expect(again.status == 200 && again.body == repo.smallPack, "request \(i) again: \(again.status)")
            if r.status == 200 && again.status == 200 { served += 1 }
        }
        #expect(served == 40)
        let (closed, answered) = attack.closedByServer()
        #expect(answered == 0)
        // The attack was still going: some slow connections were open to the end.
        #expect(closed < attackers)
        #expect(server.server.context.registry.evicted > 0)
    }
}
