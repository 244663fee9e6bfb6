extension AssetPackManager {
    /// How a large pack is fetched: its content stream is cut into `parts` stretches assembled
    /// side by side, each over a connection of its own (Range requests), so that a server or CDN
    /// that limits each connection still fills the line, and decompressing, verifying and
    /// writing use every core. Packs with less content than `minimumInstallSize` come over one
    /// connection.
    public struct ParallelDownloads: Sendable, Equatable {
        /// How many stretches (and connections) a large pack is assembled in, within
        /// `SettingBounds.downloadParts` (1–16; `AssetPackManager.init` refuses more).
        public var parts: Int
        /// Uncompressed bytes below which a pack comes over one connection.
        public var minimumInstallSize: UInt64

        /// `parts` (raised to 1 when lower) for packs of `minimumInstallSize` bytes or more.
        public init(parts: Int, minimumInstallSize: UInt64) {
            self.parts = max(1, parts)
            self.minimumInstallSize = minimumInstallSize
        }

        /// Four parts for packs of 32 MiB or more.
        public static let standard = ParallelDownloads(parts: 4, minimumInstallSize: 32 << 20)
    }
}
