@testable import AssetPackServer
import Foundation
import TestSupport
import Testing

/// A thousand Range requests at once against the real `assetpack serve` process, with its
/// default limits: every connection is accepted (1,000 is below the documented 1,024 one
/// address may hold), every one is answered `206` with exactly the asked bytes while all are
/// open, and the server's peak memory stays bounded.
@Suite struct ConcurrentRangeTests {
    static let connections = 1000
    /// Peak resident memory allowed to `serve` while it holds the thousand connections: a thread
    /// and libmicrohttpd's connection memory each (87.6 MiB in all measured with a debug build,
    /// 80 MiB with a release build), with room for another allocator or kernel.
    static let peakMemoryLimitKiB = 160 << 10

    @Test func thousandConcurrentRangeRequestsAreAnsweredExactly() throws {
        raiseOpenFileLimit(toAtLeast: UInt64(Self.connections) + 256)
        let dir = try TemporaryDirectory("crowd-ranges")
        let file = patternBytes(4 << 20, seed: 17)
        try dir.write("repo/packs/p.pack", file)
        try dir.write("repo/catalog.json", "{}")
        let outPath = dir.file("serve.out")
        let serve = try Assetpack.start(["serve", dir.file("repo"), "--port", "0", "--access-log", dir.file("access.log")],
                                        output: outPath, error: dir.file("serve.err"))
        defer { if serve.isRunning { serve.terminate(); serve.waitUntilExit() } }
        var port: UInt16?
        try blockingWaitUntil("assetpack serve prints its URL", timeout: .seconds(30)) {
            let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            port = out.split(separator: "\n").first { $0.hasPrefix("Serving ") }
                .flatMap { $0.split(separator: ":").last.flatMap { UInt16($0.dropLast()) } }
            return port != nil || !serve.isRunning
        }
        let serverPort = try #require(port, "serve did not start: \(dir.text("serve.err") ?? "")")

        // Ranges of 48 to 64 KiB spread over the file, none the same.
        let ranges = (0..<Self.connections).map { i -> Range<Int> in
            let start = (i * 4_093) % (file.count - (64 << 10)), length = (48 << 10) + (i * 16) % (16 << 10)
            return start..<(start + length)
        }
        let crowd = RangeCrowd()
        let refused = crowd.connectAndRequest(port: serverPort, path: "/packs/p.pack", ranges: ranges)
        #expect(refused.isEmpty, "\(refused.count) connections failed, errno \(Set(refused).sorted())")
        let outcome = crowd.readResponses(expecting: file, deadline: .now + .seconds(60))
        #expect(outcome.exact == Self.connections - refused.count, "\(outcome.wrong.count) wrong: \(outcome.wrong.prefix(3))")
        // Every connection is still open and held by a thread of its own.
        let threads = try #require(Self.status(serve.processIdentifier, "Threads"))
        #expect(threads >= Self.connections, "serve runs \(threads) threads for \(Self.connections) open connections")
        let peak = try #require(Self.status(serve.processIdentifier, "VmHWM"))
        #expect(peak <= Self.peakMemoryLimitKiB, "serve's peak resident memory: \(peak) KiB")
        crowd.closeAll()
        serve.terminate()
        serve.waitUntilExit()
        #expect(serve.terminationStatus == 0)
    }

    /// A number field of /proc/PID/status (memory fields in KiB).
    static func status(_ pid: Int32, _ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            .flatMap { Int($0.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") }
    }
}
