import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct RollbackCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "rollback",
            abstract: "Serve an earlier catalog version's packs again, as a new and higher catalog version.",
            discussion: """
            Reads catalog version N of the channel from its history (DIR/history/N.catalog.json, or
            DIR/channels/NAME/history/N.catalog.json, which every publish keeps) and writes, as the
            channel's next catalog version, exactly its pack set. Its pack files must still be in DIR
            (the retention rule, publish --keep, deletes old ones): the error names every one that is
            missing, and nothing changes. Clients update back by delta and do not take the catalog for
            a rollback attack, since its version grows.
            """)
    }

    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("--key", value: "KEYFILE", help: "The catalog signing key (required).")
    var keyFile: String
    @Option("--to-version", value: "N", help: "The catalog version whose packs are served again (required).", range: 1...Int(Int32.max))
    var version: Int
    @Option("--channel", value: "NAME", help: "The channel to roll back (default: the default channel).")
    var channel: String?
    @Option("--timestamp-key", value: "KEYFILE", help: "The online timestamp key; required when DIR has a root (roots/).")
    var timestampKeyFile: String?
    @Option("--expires", value: "DURATION", help: "How long the new catalog stays valid (default 30d).",
            range: DurationWithUnit(.seconds(1))...DurationWithUnit(.seconds(3650 * 86_400)))
    var expires: DurationWithUnit?
    @Option("--keep", value: "N", help: "Versions of each pack whose files stay, the current one included (default 2).", range: SettingBounds.keptVersions)
    var keep: Int?
    @Flag("--json", help: "Print the result as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        let name = try ChannelChangeText.channel(channel, option: "--channel")
        let editor = try ChannelChangeText.editor(repository: repository, keyFile: keyFile, timestampKeyFile: timestampKeyFile, expires: expires, keep: keep)
        let change: ChannelChange
        do { change = try editor.rollback(to: version, channel: name) } catch { throw CLIError.failure("\(error)") }
        ChannelChangeText.print(change, repository: repository, json: json)
        return 0
    }
}
