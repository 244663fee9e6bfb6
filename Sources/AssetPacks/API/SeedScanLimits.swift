extension AssetPackManager {
    /// How much work a look through the seed folders (`Configuration.seedFolders`) may do for one
    /// pack, so that a huge folder of unrelated files costs a bounded time: the entries it looks
    /// at, and the bytes it reads to chunk and hash.
    public struct SeedScanLimits: Sendable, Equatable {
        /// Folder entries looked at, over every seed folder (files, folders and what is skipped).
        public var entries: Int
        /// Bytes read from seed files; nil: twice the pack's install size plus 64 MiB.
        public var bytes: UInt64?

        public init(entries: Int = 100_000, bytes: UInt64? = nil) {
            self.entries = entries
            self.bytes = bytes
        }

        /// 100,000 entries; twice the pack's install size plus 64 MiB.
        public static let standard = SeedScanLimits()

        /// The byte limit for a pack of `installSize` bytes.
        func byteLimit(installSize: UInt64) -> UInt64 {
            bytes ?? installSize.multipliedReportingOverflow(by: 2).partialValue + (64 << 20)
        }
    }
}
