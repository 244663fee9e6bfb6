import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// bench/charts.py, as bench/run-all.sh runs it: a results file in, one SVG chart per benchmark and
/// the page's generated blocks out. The charts must be well-formed SVG with both axes, their
/// units and one line per tool, and must draw in a browser.
@Suite struct ChartGeneratorTests {
    static let generator = DocumentedBlock.packageRoot.appendingPathComponent("bench/charts.py").path

    /// Two tools at two sizes, and a third size whose run failed (drawn nowhere).
    static let results = """
    {"format": "assetpacks-bench-results", "version": 1, "benchmarks": {
     "package": {"compares": "assetpack package vs tar | zstd -3 -T0", "runs": {
      "small": {"status": "ok", "size_mib": 256, "command": "bench/package.sh 256 3",
                "runners": {"assetpack": {"wall_s": 1.1, "peak_rss_mib": 60, "bytes": 190000000},
                            "tar+zstd": {"wall_s": 1.3, "peak_rss_mib": 40, "bytes": 195000000}},
                "figures": {"time assetpack / tar+zstd": 0.85}},
      "medium": {"status": "ok", "size_mib": 1024, "command": "bench/package.sh 1024 3",
                 "runners": {"assetpack": {"wall_s": 4.2, "peak_rss_mib": 70, "bytes": 760000000},
                             "tar+zstd": {"wall_s": 5.0, "peak_rss_mib": 41, "bytes": 780000000}},
                 "figures": {"time assetpack / tar+zstd": 0.84}},
      "large": {"status": "failed (exit 1)", "size_mib": 8192, "command": "bench/package.sh 8192 2", "runners": {}, "figures": {}}}},
     "scale-packs": {"compares": "2,000 packs: republish after one change vs a full publish", "runs": {
      "small": {"status": "ok", "size_mib": 512, "command": "bench/scale-packs.sh",
                "runners": {"assetpack publish (one changed)": {"wall_s": 0.6}, "assetpack publish (all)": {"wall_s": 3.0}},
                "figures": {"time one changed / all": 0.2}}}}}}
    """

    func generate(_ directory: TemporaryDirectory, results: String = Self.results, page: String? = nil) async throws -> ProcessResult {
        try directory.write("results.json", results)
        var arguments = [Self.generator, directory.file("results.json"), directory.file("charts")]
        if let page {
            try directory.write("BENCHMARKS.md", page)
            arguments += ["--page", directory.file("BENCHMARKS.md")]
        }
        return try await ChildProcess.run("/usr/bin/python3", arguments, in: directory.path)
    }

    func elements(_ node: XMLNode, _ xpath: String) throws -> [XMLElement] {
        try node.nodes(forXPath: xpath).compactMap { $0 as? XMLElement }
    }

    /// An attribute's value, read by XPath (corelibs' `attribute(forName:)` finds none on an
    /// element in a default namespace).
    func attribute(_ element: XMLElement, _ name: String) -> String? {
        (try? element.nodes(forXPath: "@\(name)"))?.first?.stringValue
    }

    @Test func aResultsFileBecomesOneWellFormedChartPerBenchmarkWithAxesAndOneLinePerTool() async throws {
        let directory = try TemporaryDirectory("charts")
        defer { directory.remove() }
        let run = try await generate(directory)
        #expect(run.status == 0, "\(run.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.file("charts")).sorted()
        #expect(files == ["package.svg", "scale-packs.svg"])

        let text = try #require(directory.text("charts/package.svg"))
        #expect(text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), "the root is not an SVG element in SVG's namespace")
        let svg = try XMLDocument(data: Data(text.utf8))
        #expect(svg.rootElement()?.name == "svg")
        // XPath over a namespaced document: elements by local name.
        let panels = try elements(svg, "//*[local-name()='g'][@class='panel']")
        #expect(panels.map { attribute($0, "data-panel") } == ["time", "rss", "bytes"])
        for panel in panels {
            let name = attribute(panel, "data-panel") ?? "?"
            let axes = try elements(panel, "./*[local-name()='g'][contains(@class, 'axis')]")
            #expect(axes.map { attribute($0, "class") } == ["axis y-axis", "axis x-axis"], "panel \(name)")
            let unit = try #require(axes.first.flatMap { attribute($0, "data-unit") })
            #expect(["s / GiB", "MiB", "MB"].contains(unit), "panel \(name) has unit \(unit)")
            let labels = try elements(panel, ".//*[local-name()='text']").compactMap(\.stringValue)
            #expect(labels.contains(unit), "panel \(name) does not write its unit")
            // The x axis names both measured sizes; the failed 8 GiB run is not drawn.
            #expect(labels.contains("256 MiB") && labels.contains("1 GiB") && !labels.contains("8 GiB"), "panel \(name): \(labels)")
            let series = try elements(panel, "./*[local-name()='g'][@class='series']")
            #expect(series.compactMap { attribute($0, "data-runner") } == ["assetpack", "tar+zstd"], "panel \(name)")
            for line in series {
                #expect(try elements(line, "./*[local-name()='polyline']").count == 1)
                #expect(try elements(line, "./*[local-name()='circle']").count == 2)
            }
        }
        let legend = try elements(svg, "//*[local-name()='g'][@class='legend-entry']")
        #expect(legend.compactMap { attribute($0, "data-runner") } == ["assetpack", "tar+zstd"])
        // Time per GiB: 4.2 s for 1 GiB is drawn below 1.1 s for 256 MiB (4.4 s per GiB).
        let time = try #require(panels.first)
        let points = try elements(time, ".//*[local-name()='g'][@data-runner='assetpack']/*[local-name()='circle']")
            .compactMap { attribute($0, "cy").flatMap { Double($0) } }
        #expect(points.count == 2 && points[1] > points[0], "y of the 256 MiB and 1 GiB points: \(points)")
    }

    @Test func theChartDrawsInHeadlessChromium() async throws {
        let directory = try TemporaryDirectory("charts-render")
        defer { directory.remove() }
        let run = try await generate(directory)
        #expect(run.status == 0, "\(run.stderr)")
        let shot = try await HeadlessChromium.screenshot(of: directory.file("charts/package.svg"), width: 920, height: 340, in: directory)
        #expect(shot.colours > 20, "the screenshot has \(shot.colours) colours")
        #expect(shot.inkedShare > 0.02, "only \(shot.inkedShare * 100) % of the screenshot is drawn on")
    }

    @Test func thePageGetsTablesWhereResultsExistAndKeepsItsPlaceholdersElsewhere() async throws {
        let directory = try TemporaryDirectory("charts-page")
        defer { directory.remove() }
        let page = """
        # Benchmarks
        <!-- results:package -->
        stale table
        <!-- /results:package -->
        ## Apple Archive
        <!-- results:aar -->
        Not measured yet.
        <!-- /results:aar -->
        ## Other benchmarks
        <!-- results:others -->
        None yet.
        <!-- /results:others -->

        """
        let run = try await generate(directory, page: page)
        #expect(run.status == 0, "\(run.stderr)")
        let text = try #require(directory.text("BENCHMARKS.md"))
        #expect(!text.contains("stale table"))
        #expect(text.contains("| assetpack | 4.2 | 70 | 760,000,000 |"), "\(text)")
        #expect(text.contains("| time assetpack / tar+zstd | 0.84 |"))
        #expect(text.contains("8 GiB: **failed (exit 1)**"))
        #expect(text.contains("![package: cost against content size](charts/package.svg)"))
        // No Apple Archive results: its placeholder stays; the benchmark with no block of its own
        // is listed under the others.
        #expect(text.contains("<!-- results:aar -->\nNot measured yet.\n<!-- /results:aar -->"))
        #expect(!text.contains("None yet.") && text.contains("#### scale-packs") && text.contains("charts/scale-packs.svg"))
    }

    @Test func aResultsFileThatIsNotOneIsRefusedAndNothingIsWritten() async throws {
        let directory = try TemporaryDirectory("charts-bad")
        defer { directory.remove() }
        for (results, says) in [("{\"benchmarks\": [", "cannot read"), ("[1, 2]", "has no \"benchmarks\" object"),
                                ("{\"benchmarks\": {\"../escape\": {\"runs\": {}}}}", "is not a file name")] {
            let run = try await generate(directory, results: results)
            #expect(run.status == 1, "\(results)")
            #expect(run.stderr.contains("results.json") && run.stderr.contains(says), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("charts/package.svg")))
            #expect(!FileManager.default.fileExists(atPath: directory.file("escape.svg")))
        }
    }
}
