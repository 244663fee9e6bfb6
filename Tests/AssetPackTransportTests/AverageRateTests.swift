import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// `HTTPRequest.minimumAverageRate` stops a server that drips a body — which the low-speed
/// limit, looking at the current rate, lets through — once its grace period has passed, and
/// leaves a transfer that keeps up alone.
@Suite struct AverageRateTests {
    let directory: TemporaryDirectory
    let nginx: NginxServer
    let content = patternBytes(20_000, seed: 5)

    init() throws {
        directory = try TemporaryDirectory("rate")
        try directory.write("www/drip/file.bin", content)
        try directory.write("www/fast/file.bin", content)
        // nginx sends /drip/ at 4 bytes per second.
        nginx = try NginxServer(root: directory.file("www"), locations: "location /drip/ { limit_rate 4; }")
    }

    @Test func aDrippingServerFailsAsATransientTimeoutThatSaysWhy() throws {
        let request = HTTPRequest(url: nginx.url("/drip/file.bin"),
                                  minimumAverageRate: .init(bytesPerSecond: 1024, after: .milliseconds(500)))
        #expect {
            try CurlTransport().send(request)
        } throws: { error in
            guard case TransportError.timedOut(let url, let why) = error else { return false }
            return url == nginx.url("/drip/file.bin") && why.contains("below the minimum average of 1024 bytes/s")
                && (error as? TransportError)?.isTransient == true
        }
    }

    @Test func aTransferThatKeepsUpIsLeftAlone() throws {
        let request = HTTPRequest(url: nginx.url("/fast/file.bin"), minimumAverageRate: .init(bytesPerSecond: 1024, after: .zero))
        let response = try CurlTransport().send(request).requireSuccess()
        #expect(response.body == content)
    }
}
