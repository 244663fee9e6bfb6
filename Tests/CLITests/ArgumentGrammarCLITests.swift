import AssetPacks
import Foundation
import TestSupport
import Testing

/// The command line's grammar as users meet it: `--` ends options, and sizes read the same way
/// (decimal units, binary only when spelt KiB/MiB/GiB) in every command.
@Suite struct ArgumentGrammarCLITests {
    static let sizeGrammar = "decimal units (5M = 5,000,000 bytes; KiB/MiB/GiB for binary)"

    @Test func helpAfterDoubleDashIsAnArgumentNotAHelpRequest() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        let extra = try await Assetpack.run(["extract", "--", "-h", "-o", "out"], in: s.path)
        #expect(extra.status == 2 && extra.stdout.isEmpty, "\(extra.stdout)")
        #expect(extra.stderr.contains("'assetpack extract' takes 1 argument(s) (PACKFILE), got 3"), "\(extra.stderr)")
        #expect(!s.exists("out"))
        // "-h" is the pack to open.
        let pack = try await Assetpack.run(["extract", "-o", "out", "--", "-h"], in: s.path)
        #expect(pack.status == 1 && pack.stdout.isEmpty && pack.stderr.contains("error: -h: "), "\(pack.stderr)")
        // Before "--", -h still asks for help.
        let help = try await Assetpack.run(["extract", "-o", "out", "-h"], in: s.path)
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: Verify and unpack a pack into a directory."))
    }

    @Test func unknownOptionsAreSuggestedAndSubcommandsDeclared() async throws {
        let typo = try await Assetpack.run(["extract", "x.pack", "--ouptut", "out"])
        #expect(typo.status == 2 && typo.stderr.contains("unknown option --ouptut for 'assetpack extract'; did you mean --output?"), "\(typo.stderr)")
        let convert = try await Assetpack.run(["convert", "--help"])
        #expect(convert.status == 0 && convert.stdout.contains("  odr ") && convert.stdout.contains("  vdf "))
        let vdfOnly = try await Assetpack.run(["convert", "odr", "Project", "-o", "out", "--asset-pack-id", "X"])
        #expect(vdfOnly.status == 2 && vdfOnly.stderr.contains("unknown option --asset-pack-id for 'assetpack convert odr'"), "\(vdfOnly.stderr)")
    }

    @Test func storageBudgetReadsDecimalUnits() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        let key = try await Assetpack.run(["keygen", "-o", "key.pem"], in: s.path).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let root = s.path + "/root"
        // No server listens on port 9: ensure fails after the root has remembered the budget.
        for (text, bytes) in [("5M", 5_000_000), ("5MiB", 5_242_880)] as [(String, UInt64)] {
            let r = try await Assetpack.run(["ensure", "A", "--root", root, "--repo", "http://127.0.0.1:9", "--public-key", key,
                                 "--storage-budget", text], in: s.path)
            #expect(r.status == 1, "\(r.stderr)")
            #expect(try RootSettings.load(root: root).storageBudget == bytes, "\(text)")
        }
        let bad = try await Assetpack.run(["ensure", "A", "--root", root, "--storage-budget", "5XB"], in: s.path)
        #expect(bad.status == 2 && bad.stderr.contains("--storage-budget takes a size in \(Self.sizeGrammar), or 'none', got '5XB'"), "\(bad.stderr)")
        #expect(try RootSettings.load(root: root).storageBudget == 5_242_880)
    }

    /// `publish` limits read sizes as `ensure` does: `1k` is 1000 bytes, `1KiB` 1024.
    @Test func publishAllowancesReadTheSameGrammar() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        _ = try await Assetpack.run(["keygen", "-o", "key.pem"], in: s.path)
        // 5000 bytes that zstd cannot shrink below 1 kB.
        try s.write("noise.bin", patternBytes(5000, seed: 9))
        try s.write("M.json", """
            {"assetPackID": "Noise", "downloadPolicy": {"prefetch": {"installationEventTypes": ["firstInstallation"]}},
             "fileSelectors": [{"file": "noise.bin"}], "platforms": ["iOS"]}
            """)
        for (text, described) in [("1k", "1.0 kB (1000 bytes)"), ("1KiB", "1.0 kB (1024 bytes)")] {
            let r = try await Assetpack.run(["publish", "M.json", "--repo", "repo", "--key", "key.pem", "--check", "--download-allowance", text], in: s.path)
            #expect(r.status == 1 && r.stderr.contains("more than --download-allowance \(described)"), "\(text): \(r.stderr)")
        }
    }

    /// Every command's declarations can be read (names unique, arguments well formed): its help
    /// prints, and the top-level help lists it.
    @Test func everyCommandDeclaresItsOptionsConsistently() async throws {
        let top = try await Assetpack.run(["--help"]).stdout
        let commands = top.split(separator: "\n").drop { $0 != "COMMANDS:" }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.map { String($0.split(separator: " ")[0]) }
        #expect(commands.count == 32 && ["promote", "rollout", "rollback", "report", "key-server"].allSatisfy(commands.contains) && commands.contains("rotate") && commands.contains("timestamp") && commands.contains("convert") && commands.contains("agent") && commands.contains("diff") && commands.contains("aar"))
        for command in commands + ["convert odr", "convert vdf", "aar list", "aar extract", "aar create", "aar import"] {
            let words = command.split(separator: " ").map(String.init)
            let help = try await Assetpack.run(words + ["--help"])
            #expect(help.status == 0 && help.stderr.isEmpty, "\(command): \(help.stderr)")
            #expect(help.stdout.contains("USAGE: assetpack \(command)"), "\(command)")
        }
    }

    @Test func everySizeOptionStatesTheGrammarInItsHelp() async throws {
        var sizeLines = 0
        for command in ["package", "publish", "serve", "upload", "install", "ensure", "update"] {
            let help = try await Assetpack.run([command, "--help"]).stdout
            for line in help.split(separator: "\n") where line.contains(" SIZE ") || line.contains(" BYTES") {
                sizeLines += 1
                #expect(line.contains(Self.sizeGrammar), "\(command): \(line)")
            }
        }
        #expect(sizeLines >= 12)
    }
}
