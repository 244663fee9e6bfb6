import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// HTTPS with a private CA, against nginx with a self-signed certificate for 127.0.0.1.
@Suite struct TLSTests {
    let directory: TemporaryDirectory
    let certificate: SelfSignedCertificate
    let nginx: NginxServer
    let content = patternBytes(50_000, seed: 11)

    init() throws {
        directory = try TemporaryDirectory("tls")
        certificate = try SelfSignedCertificate(in: directory)
        try directory.write("www/pack.bin", content)
        nginx = try NginxServer(root: directory.file("www"), certificate: certificate)
    }

    @Test func untrustedCertificateIsATLSError() throws {
        #expect {
            try CurlTransport().send(HTTPRequest(url: nginx.url("/pack.bin")))
        } throws: { error in
            guard case TransportError.tls = error else { return false }
            return (error as? TransportError)?.isTransient == false
        }
    }

    @Test func caFileMakesItTrustedAndHTTP2IsNegotiated() throws {
        let transport = try CurlTransport(caFile: certificate.certificatePath)
        let response = try transport.send(HTTPRequest(url: nginx.url("/pack.bin"), range: ByteRange(offset: 100, length: 1000))).requireSuccess()
        #expect(response.status == 206)
        #expect(response.body == Array(content[100..<1100]))
        #expect(response.httpVersion == "2")
        let again = try transport.send(HTTPRequest(.head, url: nginx.url("/pack.bin")))
        #expect(again.newConnectionCount == 0)
    }

    @Test func missingCAFileIsRefusedUpFront() {
        #expect(throws: TransportError.self) { try CurlTransport(caFile: directory.file("nope.pem")) }
    }
}
