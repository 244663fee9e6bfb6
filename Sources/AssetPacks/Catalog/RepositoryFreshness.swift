import Foundation

/// How fresh a client's view of its repository is, in root mode: the versions it last accepted
/// and when the whole chain (root, timestamp, catalog) was last verified online. Offline, the
/// manager goes on with the last accepted catalog while it has not expired; this says how stale
/// that view has become. No Apple counterpart (Apple's system fetches catalogs itself).
public struct RepositoryFreshness: Sendable, Equatable {
    /// The version of the last accepted root.
    public var rootVersion: Int
    /// The version of the last accepted `timestamp.json`.
    public var timestampVersion: Int
    /// The version of the last accepted catalog.
    public var catalogVersion: Int
    /// When the repository last vouched for this view online (by `Configuration.now`).
    public var lastVerified: Date
    /// When the last accepted timestamp expires (expired: the view may be out of date).
    public var timestampExpires: Date
    /// The clock this was computed at.
    public var now: Date

    /// A description of these figures.
    public init(rootVersion: Int, timestampVersion: Int, catalogVersion: Int, lastVerified: Date, timestampExpires: Date, now: Date) {
        self.rootVersion = rootVersion
        self.timestampVersion = timestampVersion
        self.catalogVersion = catalogVersion
        self.lastVerified = lastVerified
        self.timestampExpires = timestampExpires
        self.now = now
    }

    /// Whether the last timestamp has expired: the repository has not vouched for this view
    /// within the timestamp's lifetime.
    public var isStale: Bool { now >= timestampExpires }
    /// Seconds since the last online verification.
    public var age: TimeInterval { max(0, now.timeIntervalSince(lastVerified)) }
    /// Seconds past the timestamp's expiry (0 while fresh).
    public var staleFor: TimeInterval { max(0, now.timeIntervalSince(timestampExpires)) }
}
