import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct RolloutCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "rollout",
            abstract: "Widen, finish or halt a staged rollout started with 'publish --rollout'.",
            discussion: """
            Each client's storage root draws a bucket from 0 to 99 once and keeps it; a client whose
            bucket is below the percentage gets the new versions, every other one keeps the versions of
            the catalog the rollout started from. --percent 100 finishes the rollout (every client gets
            the new versions; the catalog carries no rollout any more); --percent 0 halts it (every
            client keeps or goes back to the earlier versions). A rollout only widens: a percentage
            between 0 and the current one is refused, since it would move clients back. Writes the next
            catalog version of the channel, signed with --key.
            """)
    }

    var signing = ChannelEditOptions()
    @Option("--percent", value: "P", help: "The share of clients that get the new versions (required).", range: Percentage.whole)
    var percent: Percentage
    @Option("--channel", value: "NAME", help: "The channel whose rollout changes (default: the default channel).")
    var channel: String?

    init() {}

    func run() throws -> Int32 {
        let name = try ChannelChangeText.channel(channel, option: "--channel")
        return try signing.apply(keep: nil) { editor in try editor.setRollout(percent: percent.value, channel: name) }
    }
}
