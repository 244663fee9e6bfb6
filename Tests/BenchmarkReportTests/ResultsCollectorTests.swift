import Foundation
import Testing
import TestSupport

/// bench/collect.py, as bench/run-all.sh runs it after a benchmark: the `@result` lines of its log
/// into the results file. A benchmark that measures several sizes in one run (bench/large.sh)
/// marks each size's lines with its point; each point must become a run of that size of its own,
/// so that the charts draw the sweep against size, and a later sweep must replace all of them.
@Suite struct ResultsCollectorTests {
    static let collector = DocumentedBlock.packageRoot.appendingPathComponent("bench/collect.py").path

    func collect(_ directory: TemporaryDirectory, log: String, code: String = "0") async throws -> [String: Any] {
        try directory.write("run.log", log)
        let result = try await ChildProcess.run("/usr/bin/python3", [
            Self.collector, directory.file("results.json"), "large", "medium", "1024", code, "12.5",
            directory.file("run.log"), "bench/large.sh 1024 8192", "steps at several sizes",
        ], in: directory.path)
        #expect(result.status == 0, "collect.py failed: \(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("results.json")))
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let benchmarks = try #require(top["benchmarks"] as? [String: Any])
        let large = try #require(benchmarks["large"] as? [String: Any])
        return try #require(large["runs"] as? [String: Any])
    }

    static let sweep = """
    some text
    @result {"point": 1024, "runners": {"package": {"wall_s": 5.0, "peak_rss_mib": 90}}}
    @result {"point": 1024, "size_mib": 1024}
    @result {"point": 8192, "runners": {"package": {"wall_s": 48.0, "peak_rss_mib": 130}}}
    @result {"point": 8192, "size_mib": 8195}
    @result {"figures": {"time per GiB package 8192/1024 MiB": 1.2}, "size_mib": 8192}
    """

    @Test func eachPointOfASweepBecomesARunOfItsSizeAndTheRatiosStayWithTheRun() async throws {
        let directory = try TemporaryDirectory()
        let runs = try await collect(directory, log: Self.sweep)
        #expect(Set(runs.keys) == ["medium", "medium@1024", "medium@8192"])
        let small = try #require(runs["medium@1024"] as? [String: Any])
        let large = try #require(runs["medium@8192"] as? [String: Any])
        let own = try #require(runs["medium"] as? [String: Any])
        #expect(small["size_mib"] as? Int == 1024 && large["size_mib"] as? Int == 8195)
        #expect(small["status"] as? String == "ok" && large["status"] as? String == "ok")
        let runners = try #require(large["runners"] as? [String: [String: Any]])
        #expect(runners["package"]?["wall_s"] as? Double == 48.0)
        #expect((own["runners"] as? [String: Any])?.isEmpty == true)
        #expect((own["figures"] as? [String: Any])?["time per GiB package 8192/1024 MiB"] as? Double == 1.2)
        #expect(own["size_mib"] as? Int == 8195, "the run's own figures sit at its largest point")
    }

    @Test func aLaterSweepReplacesEveryPointAndKeepsTheCompletePointsOfAFailedOne() async throws {
        let directory = try TemporaryDirectory()
        _ = try await collect(directory, log: Self.sweep)
        // The second sweep measured 1 GiB whole, then failed during 8 GiB.
        let failed = """
        @result {"point": 1024, "runners": {"package": {"wall_s": 6.0}}}
        @result {"point": 1024, "size_mib": 1024}
        @result {"point": 8192, "runners": {"package": {"wall_s": 50.0}}}
        """
        let runs = try await collect(directory, log: failed, code: "1")
        #expect(Set(runs.keys) == ["medium", "medium@1024", "medium@8192"])
        let small = try #require(runs["medium@1024"] as? [String: Any])
        let large = try #require(runs["medium@8192"] as? [String: Any])
        #expect(small["status"] as? String == "ok")
        #expect((small["runners"] as? [String: [String: Any]])?["package"]?["wall_s"] as? Double == 6.0)
        #expect(large["status"] as? String == "failed (exit 1)")
        #expect((runs["medium"] as? [String: Any])?["status"] as? String == "failed (exit 1)")
    }
}
