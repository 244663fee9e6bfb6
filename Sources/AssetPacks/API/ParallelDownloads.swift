extension AssetPackManager {
    /// How a large pack is fetched: its content stream is cut into `parts` stretches assembled
    /// side by side, each over a connection of its own (Range requests), so that a server or CDN
    /// that limits each connection still fills the line, and decompressing, verifying and
    /// writing use every core. Packs with less content than `minimumInstallSize` come over one
    /// connection. A part that finishes while another still has at least twice `minimumSplit`
    /// of work left takes the second half of that part's rest, over a new connection, so that
    /// the stretches that decode slowest or whose connection is slowest do not finish alone.
    public struct ParallelDownloads: Sendable, Equatable {
        /// How many stretches (and connections) a large pack is assembled in, within
        /// `SettingBounds.downloadParts` (1–16; `AssetPackManager.init` refuses more).
        public var parts: Int
        /// Uncompressed bytes below which a pack comes over one connection.
        public var minimumInstallSize: UInt64
        /// The least work (content bytes, and 32 KiB for each file started) a part takes over
        /// from a running one, and leaves it.
        public var minimumSplit: UInt64

        /// `parts` (raised to 1 when lower) for packs of `minimumInstallSize` bytes or more.
        public init(parts: Int, minimumInstallSize: UInt64, minimumSplit: UInt64 = 8 << 20) {
            self.parts = max(1, parts)
            self.minimumInstallSize = minimumInstallSize
            self.minimumSplit = max(1, minimumSplit)
        }

        /// Four parts for packs of 32 MiB or more; splits of 8 MiB or more.
        public static let standard = ParallelDownloads(parts: 4, minimumInstallSize: 32 << 20)
    }
}
