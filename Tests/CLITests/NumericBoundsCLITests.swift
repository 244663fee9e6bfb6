import Foundation
import TestSupport
import Testing

/// Every numeric option is held to a range that makes sense: a value outside it is a usage error
/// (exit 2) naming the option and the range, before any work starts.
@Suite struct NumericBoundsCLITests {
    /// 4 × the cores: the most worker threads any command takes.
    private let maximumThreads = 4 * ProcessInfo.processInfo.activeProcessorCount

    @Test func packageRefusesAThreadCountBeyondTheMachine() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("d/tiny.txt", "hello\n")
        try s.write("M.json", "{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"directory\": \"d\"}], \"platforms\": [\"iOS\"]}")
        let r = try await Assetpack.run(["package", "M.json", "-o", "p.pack", "--threads", "100000"], in: s.path)
        #expect(r.status == 2)
        #expect(r.stderr.contains("--threads must be from 1 to \(maximumThreads) (4 × the \(maximumThreads / 4) cores), got 100000"), "\(r.stderr)")
        #expect(!s.exists("p.pack"))
        // The largest allowed value works.
        let ok = try await Assetpack.run(["package", "M.json", "-o", "p.pack", "--threads", "\(maximumThreads)"], in: s.path)
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test(arguments: [
        (["package", "M.json", "-o", "p.pack", "--threads", "0"], "--threads must be from 1 to"),
        (["package", "M.json", "-o", "p.pack", "--level", "20"], "--level must be from 1 to 19, got 20"),
        (["package", "M.json", "-o", "p.pack", "--chunk-average", "100"], "--chunk-average must be from 256 bytes to"),
        (["package", "M.json", "-o", "p.pack", "--chunk-average", "1GiB"], "--chunk-average must be from 256 bytes to"),
        (["publish", "M.json", "--repo", "r", "--key", "k", "--keep", "0"], "--keep must be from 1 to 1000, got 0"),
        (["publish", "M.json", "--repo", "r", "--key", "k", "--keep", "100000"], "--keep must be from 1 to 1000, got 100000"),
        (["publish", "M.json", "--repo", "r", "--key", "k", "--threads", "100000"], "--threads must be from 1 to"),
        (["verify", "p.pack", "--threads", "100000"], "--threads must be from 1 to"),
        (["upload", "d", "s3://b/p", "--endpoint", "http://127.0.0.1:1", "--jobs", "65"], "--jobs must be from 1 to 64, got 65"),
        (["upload", "d", "s3://b/p", "--endpoint", "http://127.0.0.1:1", "-j", "0"], "--jobs must be from 1 to 64, got 0"),
        (["ensure", "Pack", "--root", "root", "--parts", "17"], "--parts must be from 1 to 16, got 17"),
        (["install", "--root", "root", "--parts", "100000"], "--parts must be from 1 to 16, got 100000"),
        (["status", "--root", "root", "--lock-timeout", "90000"], "--lock-timeout must be from 0s to 1d, got 25h"),
        (["publish", "M.json", "--repo", "r", "--key", "k", "--expires", "0s"], "--expires must be from 1s to 3650d, got 0s"),
        (["serve", "--latency", "700000"], "--latency must be from 0s to 10m, got 700s"),
        (["serve", "--connection-limit", "0"], "--connection-limit must be from 1 to 1000000, got 0"),
        (["serve", "--address-limit", "1000001"], "--address-limit must be from 1 to 1000000, got 1000001"),
    ])
    func outOfRangeValuesAreUsageErrors(arguments: [String], message: String) async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        let r = try await Assetpack.run(arguments, in: s.path)
        #expect(r.status == 2, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).isEmpty, "\(arguments) wrote something")
    }

    @Test func helpSaysTheRanges() async throws {
        let help = try await Assetpack.run(["package", "--help"]).stdout
        #expect(help.contains("Range: 1 to \(maximumThreads) (4 × the \(maximumThreads / 4) cores)."), "\(help)")
        #expect(help.contains("Range: 1 to 19."), "\(help)")
    }
}
