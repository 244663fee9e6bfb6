import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// The streaming destination: bytes as they arrive, rejection at the head, abort mid-body.
@Suite struct StreamingTests {
    let root: TemporaryDirectory
    let content = patternBytes(2_000_000, seed: 3)
    let nginx: NginxServer
    let transport: CurlTransport

    init() throws {
        root = try TemporaryDirectory("stream-root")
        try root.write("big.bin", content)
        nginx = try NginxServer(root: root.path)
        transport = try CurlTransport()
    }

    @Test func streamSeesEveryByteInOrder() throws {
        let received = Box<[UInt8]>([])
        let calls = Box(0)
        let stream = HTTPBodyStream { bytes in
            received.value.append(contentsOf: bytes)
            calls.value += 1
        }
        let response = try transport.send(HTTPRequest(url: nginx.url("/big.bin")), to: .stream(stream), cancellation: nil)
        #expect(response.status == 200)
        #expect(received.value == content)
        #expect(calls.value > 1, "delivered as it arrives, in several pieces")
        #expect(response.body.isEmpty)
    }

    struct Enough: Error {}

    @Test func throwingFromTheStreamAbortsTheTransfer() throws {
        let received = Box(0)
        let stream = HTTPBodyStream { bytes in
            received.value += bytes.count
            throw Enough()
        }
        do {
            _ = try transport.send(HTTPRequest(url: nginx.url("/big.bin")), to: .stream(stream), cancellation: nil)
            Issue.record("transfer not aborted")
        } catch {
            guard case .aborted(let url, let underlying) = error else { Issue.record("wrong error \(error)"); return }
            #expect(url == nginx.url("/big.bin"))
            #expect(underlying is Enough)
        }
        #expect(received.value < content.count)
        // The transport stays usable after an abort.
        #expect(try transport.send(HTTPRequest(.head, url: nginx.url("/big.bin"))).status == 200)
    }

    @Test func headCheckRejectsAFullResponseWhereARangeWasExpected() throws {
        struct Not206: Error {}
        let bytes = Box(0)
        let stream = HTTPBodyStream(onResponse: { status, _ in if status != 206 { throw Not206() } },
                                    onBytes: { bytes.value += $0.count })
        #expect {
            try transport.send(HTTPRequest(url: nginx.url("/big.bin")), to: .stream(stream), cancellation: nil)
        } throws: { error in
            guard case TransportError.aborted(_, let underlying) = error else { return false }
            return underlying is Not206
        }
        #expect(bytes.value == 0)
    }

    @Test func errorBodiesNeverReachTheStream() throws {
        let stream = HTTPBodyStream { _ in Issue.record("error page streamed") }
        let response = try transport.send(HTTPRequest(url: nginx.url("/nope")), to: .stream(stream), cancellation: nil)
        #expect(response.status == 404)
        #expect(String(decoding: response.body, as: UTF8.self).contains("404"))
    }
}
