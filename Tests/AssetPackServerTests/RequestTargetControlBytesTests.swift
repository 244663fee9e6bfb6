import Foundation
import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

/// Raw control bytes in the request target are refused with 400 before any file is looked up:
/// libmicrohttpd hands the target over as a C string, so `/catalog.json\0.pack` would
/// otherwise be served as `/catalog.json`.
@Suite struct RequestTargetControlBytesTests {
    @Test func controlBytesInTheTargetAre400() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        for target in ["/catalog.json\u{0}.pack", "/catalog.json\u{0}", "/cata\u{1}log.json", "/catalog.json\u{1F}", "/catalog\u{7F}.json",
                       "/packs/small.pack\u{0}/../../catalog.json", "/\u{1B}[31mcatalog.json"] {
            let c = try RawHTTPConnection(port: server.port)
            c.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 400, "\(target.debugDescription)")
            #expect(r.body != TestRepository.stubCatalog && r.body != repo.smallPack, "\(target.debugDescription)")
        }
        let log = server.accessLog(containing: "of the request target", lines: 7)
        #expect(log.contains("400 16 control byte 0x00 at offset 13 of the request target"))
        #expect(log.contains("control byte 0x7F at offset 8"))
        // Log lines stay one per request: the control bytes are not written raw.
        #expect(!log.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" } && !log.contains("\u{7F}"))
    }

    @Test func cleanTargetsStillWorkWithQueriesAndEscapes() throws {
        let repo = try TestRepository.servingBytes()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        repo.expectCatalog(try c.request("/catalog.json"))
        repo.expectCatalog(try c.request("/catalog.json?x=1&y=2"))
        repo.expectCatalog(try c.request("/catalog%2Ejson"))
        #expect(try c.request("/catalog.json%00.pack").status == 400)
    }

    @Test func targetBytesFindTheFirstControlByte() {
        #expect(RequestTargetBytes(prefix: Array("/a".utf8), endsAtNUL: false).firstControlByte == nil)
        #expect(RequestTargetBytes(prefix: Array("/a".utf8), endsAtNUL: true).firstControlByte! == (2, 0))
        #expect(RequestTargetBytes(prefix: [0x2F, 0x7F], endsAtNUL: true).firstControlByte! == (1, 0x7F))
        #expect(RequestTargetBytes(prefix: [0x2F, 0x09], endsAtNUL: false).refusal == RequestRefusal(400, "control byte 0x09 at offset 1 of the request target"))
    }
}
