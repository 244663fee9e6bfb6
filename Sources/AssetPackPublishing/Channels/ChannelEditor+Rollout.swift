import AssetPackFormat
import Foundation

extension ChannelEditor {
    /// `assetpack rollout`: widens (or halts, at 0) the staged rollout under way on `channel`, as
    /// the next catalog version. 100 ends it: every client gets the new versions and the catalog
    /// carries no rollout any more. A rollout is never narrowed to a percentage above 0 — that
    /// would move clients that had the new versions back — only halted.
    public func setRollout(percent: Int, channel: String?) throws -> ChannelChange {
        guard (0...100).contains(percent) else { throw PublishError.invalidOption("the rollout percentage must be 0 to 100, found \(percent)") }
        return try apply(to: channel) { current, _, _ in
            let catalog = try Self.existing(current, channel: channel, repository: repository)
            guard var rollout = catalog.rollout else {
                throw PublishError.invalidOption("\(ChannelName.describe(channel)) has no rollout under way (catalog version \(catalog.version)); start one with 'assetpack publish --rollout P'")
            }
            guard percent == 0 || percent >= rollout.percent else {
                throw PublishError.invalidOption("the rollout is at \(rollout.percent) %; narrowing it to \(percent) % would move clients that have the new versions back: widen it, or halt it with 0")
            }
            if percent == 100 { return (catalog.packs, nil) }
            rollout.percent = percent
            return (catalog.packs, rollout)
        }
    }
}
