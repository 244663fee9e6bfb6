import AssetPackFormat
import Foundation

extension ChannelEditor {
    /// `assetpack promote`: gives `target`'s catalog exactly the pack versions of `source`'s
    /// (the same entries, the same files: nothing is packaged or uploaded again), as the next
    /// version of `target`'s catalog. Refused when `source` does not exist, is `target`, or has a
    /// rollout under way (which of its two pack sets was tested would be ambiguous). With
    /// `rolloutPercent` below 100, the promotion is a staged rollout on `target`: its current packs
    /// stay with the clients outside it (as `publish --rollout`).
    public func promote(from source: String?, to target: String?, rolloutPercent: Int? = nil) throws -> ChannelChange {
        let source = ChannelName.normalized(source)
        if let source, let why = ChannelName.problem(with: source) { throw PublishError.invalidOption("channel \"\(source)\" \(why)") }
        guard source != ChannelName.normalized(target) else {
            throw PublishError.invalidOption("\(ChannelName.describe(source)) cannot be promoted to itself")
        }
        if let percent = rolloutPercent, !(0...100).contains(percent) {
            throw PublishError.invalidOption("the rollout percentage must be 0 to 100, found \(percent)")
        }
        return try apply(to: target) { current, catalogs, _ in
            let from = try Self.existing(try catalogs.catalog(of: source), channel: source, repository: repository)
            if let rollout = from.rollout, rollout.percent > 0 {
                throw PublishError.invalidOption("\(ChannelName.describe(source)) has a rollout under way (\(rollout.percent) %): finish it (100) or halt it (0) before promoting what it serves")
            }
            // A halted rollout serves its earlier packs to every client: those are what was tested.
            let packs = from.rollout?.packs ?? from.packs
            guard let base = try Publisher.rolloutBase(old: current, percent: rolloutPercent, channel: target), let percent = rolloutPercent else {
                return (packs, nil)
            }
            return (packs, CatalogRollout(percent: percent, fromVersion: base.version, packs: base.packs))
        }
    }
}
