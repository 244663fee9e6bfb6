import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct PromoteCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "promote",
            abstract: "Give a channel exactly the pack versions another channel serves (beta → default).",
            discussion: """
            Writes the next catalog version of the target channel (--to; default: the default channel,
            DIR/catalog.json) with exactly the pack entries of the source channel (--from): the same
            versions and the same pack files, which are shared by every channel, so nothing is packaged
            or uploaded again. The catalog is signed with --key (and, with a root, timestamp.json with
            --timestamp-key). With --rollout P%, only P % of the target's clients get them at first (as
            'publish --rollout'). Refused when the source channel does not exist or has a rollout under way.
            """)
    }

    var signing = ChannelEditOptions()
    @Option("--from", value: "NAME", help: "The channel whose pack versions are promoted (required).")
    var source: String
    @Option("--to", value: "NAME", help: "The channel that gets them (default: the default channel).")
    var target: String?
    @Option("--rollout", value: "P%", help: "Stage it: P % of the target's clients get the promoted versions, the others keep theirs (widen with 'assetpack rollout').",
            range: Percentage.whole)
    var rollout: Percentage?
    @Option("--keep", value: "N", help: "Versions of each pack whose files stay, the current one included (default 2).", range: SettingBounds.keptVersions)
    var keep: Int?

    init() {}

    func run() throws -> Int32 {
        let from = try ChannelChangeText.channel(source, option: "--from")
        let to = try ChannelChangeText.channel(target, option: "--to")
        return try signing.apply(keep: keep) { editor in try editor.promote(from: from, to: to, rolloutPercent: rollout?.value) }
    }
}
