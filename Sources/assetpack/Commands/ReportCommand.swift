import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct ReportCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "report",
            abstract: "Write a repository report: one self-contained HTML page (or JSON) of every channel and pack.",
            discussion: """
            For every channel (the default one and each DIR/channels/NAME): the catalog version, the
            rollout state, every pack's version, compressed and installed size and compression ratio,
            sizes per language, what an update costs from each kept earlier version (as 'assetpack
            diff' computes it), and how much of Apple's hosting limits the repository uses (100 packs,
            200 GB compressed; Apple warns from 80 %). The HTML page carries its CSS and SVG charts
            inline and references nothing on the network. With --public-key the catalogs' signatures
            are checked; without, they are only decoded and the page says so.
            """)
    }

    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("-o", value: "FILE", help: "Where to write the report (required).")
    var output: String
    @Flag("--json", help: "Write JSON instead of HTML.")
    var json: Bool
    @Option("--public-key", value: "KEY", help: "Check the catalogs' signatures with this key (ed25519:… or a .pub file).")
    var publicKey: String?

    init() {}

    func run() throws -> Int32 {
        var key: Ed25519PublicKey?
        if let publicKey {
            do { key = try Ed25519PublicKey(argument: publicKey) } catch { throw CLIError.usage("--public-key: \(error)") }
        }
        do { try RepositoryReportFile.write(repository: repository, key: key, to: output, json: json) } catch {
            throw CLIError.failure("\(error)")
        }
        print("\(output): report of \(repository)")
        return 0
    }
}
