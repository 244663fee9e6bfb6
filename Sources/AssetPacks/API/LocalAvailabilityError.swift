extension AssetPackManager {
    /// Why `ensureLocalAvailability(of:requireLatestVersions:)` (a set of packs) failed: the
    /// packs that are available locally now and why each of the others is not (Apple's
    /// `AssetPackManager.LocalAvailabilityError`).
    public struct LocalAvailabilityError: Error, Sendable, CustomStringConvertible {
        /// The packs made (or found) available locally.
        public let successes: Set<AssetPack>
        /// The packs that are not, each with its error.
        public let failures: [AssetPack: any Error]

        /// The outcome of a batch.
        public init(successes: Set<AssetPack>, failures: [AssetPack: any Error]) {
            self.successes = successes
            self.failures = failures
        }

        /// `N of M asset packs failed: ID: why; …`, in ID order.
        public var description: String {
            let failed = failures.sorted { $0.key.id < $1.key.id }.map { "\($0.key.id): \($0.value)" }.joined(separator: "; ")
            return "\(failures.count) of \(successes.count + failures.count) asset packs failed: \(failed)"
        }
    }
}
