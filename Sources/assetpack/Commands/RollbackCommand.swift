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

    var signing = ChannelEditOptions()
    @Option("--to-version", value: "N", help: "The catalog version whose packs are served again (required).", range: 1...Int(Int32.max))
    var version: Int
    @Option("--channel", value: "NAME", help: "The channel to roll back (default: the default channel).")
    var channel: String?
    @Option("--keep", value: "N", help: "Versions of each pack whose files stay, the current one included (default 2).", range: SettingBounds.keptVersions)
    var keep: Int?

    init() {}

    func run() throws -> Int32 {
        let name = try ChannelChangeText.channel(channel, option: "--channel")
        return try signing.apply(keep: keep) { editor in try editor.rollback(to: version, channel: name) }
    }
}
