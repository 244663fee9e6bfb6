import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct TimestampCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "timestamp",
            abstract: "Re-sign a repository's timestamp.json (run from cron, well within its expiry).",
            discussion: """
            Writes DIR/timestamp.json naming DIR/catalog.json by version, size and SHA-256, with the
            next timestamp version and a short expiry, and nothing else. Clients in root mode refuse an
            expired timestamp when online, so a mirror cannot freeze them on an old catalog for longer
            than this. The key must be a timestamp key of the repository's newest root, and the catalog
            must verify with one of its catalog keys and not have expired. Upload timestamp.json after
            catalog.json ('assetpack upload' does).
            """)
    }

    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("--key", value: "KEYFILE", help: "The timestamp key's private key file (required).")
    var keyFile: String
    @Option("--expires", value: "DURATION", help: "How long the timestamp stays valid (default 1d).",
            range: DurationWithUnit(.seconds(60))...DurationWithUnit(.seconds(366 * 86_400)))
    var expires: DurationWithUnit?

    init() {}

    func run() throws -> Int32 {
        var signer: TimestampSigner
        do { signer = TimestampSigner(key: try SigningKey(contentsOf: keyFile)) } catch { throw CLIError.failure("--key: \(error)") }
        if let expires { signer.expiresIn = expires.duration.secondsValue }
        let stamp: TimestampMetadata
        do { stamp = try signer.sign(repository: repository) } catch { throw CLIError.failure("\(error)") }
        print("\(repository): timestamp version \(stamp.version) for catalog version \(stamp.catalog.version), expires \(RFC3339.string(stamp.expires))")
        return 0
    }
}
