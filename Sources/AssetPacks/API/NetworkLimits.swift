extension AssetPackManager {
    /// How long the manager waits on a slow or stalled server before it gives up on it and asks
    /// the next mirror. Small files — the catalog, a pack's index, a chunk fetched again on its
    /// own — must arrive whole within `smallFileDeadline` (every mirror and retry included) and
    /// at `minimumAverageRate` or better once `rateGracePeriod` has passed, so a server that
    /// drips them fails fast instead of holding a call for minutes. Pack downloads stream for
    /// as long as they need, but an attempt that places no newly verified chunk for
    /// `stallTimeout` fails as a transient error, and the next attempt goes to the next mirror.
    /// Not in Apple's API (its system daemon decides).
    public struct NetworkLimits: Sendable, Equatable {
        /// The whole fetch of a small file, every mirror and retry included (default 60 s).
        public var smallFileDeadline: Duration
        /// Bytes per second a small file's transfer must average (default 1 KiB/s)…
        public var minimumAverageRate: Int
        /// …counted from the request's start once this long has passed (default 5 s).
        public var rateGracePeriod: Duration
        /// A pack download attempt that places no newly verified chunk for this long fails
        /// (default 60 s: time for a 1 MiB frame, the largest of the default chunking, at
        /// 17 KB/s).
        public var stallTimeout: Duration
        /// A LAN peer (`Configuration.peers`) that has not sent a whole chunk this long after
        /// it was asked is demoted for the manager's lifetime, and its chunks come from another
        /// peer or the repository (default 5 s: a chunk is at most 1 MiB).
        public var peerTimeout: Duration = .seconds(5)
        /// A LAN peer slower than this (bytes per second, its requests in flight together, over
        /// its latest `peerRateWindow` of busy time) is demoted for the manager's lifetime, and
        /// its remaining chunks come from another peer or the repository (default 256 KiB/s).
        public var peerMinimumRate: Int = 256 << 10
        /// A LAN peer is demoted too when its rate falls below this share of the rate the
        /// repository's mirrors averaged in the manager's earlier pack downloads, once they moved
        /// 1 MiB or more (default 0.25: a peer at a quarter of the origin's speed is not worth
        /// waiting for).
        public var peerMinimumShare: Double = 0.25
        /// How long a peer must have been busy (requests in flight, from its first byte) before
        /// its rate is judged, and the stretch it is judged over (default 2 s).
        public var peerRateWindow: Duration = .seconds(2)

        public init(smallFileDeadline: Duration = .seconds(60), minimumAverageRate: Int = 1024,
                    rateGracePeriod: Duration = .seconds(5), stallTimeout: Duration = .seconds(60)) {
            self.smallFileDeadline = smallFileDeadline
            self.minimumAverageRate = minimumAverageRate
            self.rateGracePeriod = rateGracePeriod
            self.stallTimeout = stallTimeout
        }

        /// The defaults above.
        public static let standard = NetworkLimits()
    }
}
