import AssetPackFormat
import AssetPackTransport
import Foundation

/// Apple's error for managed asset packs, whose two cases (`assetPackNotFound(withID:)`,
/// `fileNotFound(at:)`) this enum has: `catch ManagedBackgroundAssetsError.assetPackNotFound(let id)`
/// works as with Apple's. The other cases are this library's own, more precise reasons.
public typealias ManagedBackgroundAssetsError = AssetPackManagerError

/// Why an AssetPackManager call failed. The first two mirror Apple's
/// `ManagedBackgroundAssetsError`; the rest say precisely which check refused what.
public enum AssetPackManagerError: Error, LocalizedError, CustomStringConvertible, @unchecked Sendable {
    /// No pack with this ID: not in the catalog, or, for calls about installed packs (`remove`,
    /// `preservationPriority`…), not installed (Apple's `assetPackNotFound(withID:)`).
    case assetPackNotFound(withID: String)
    /// No installed pack (or not the one searched) holds this path (Apple's `fileNotFound(at:)`).
    case fileNotFound(at: FilePath)
    /// The network or server failed (after retries and mirrors).
    case transport(TransportError)
    /// The catalog was refused: bad signature, wrong key, expired, rolled back, malformed.
    case catalog(CatalogError)
    /// The repository's root or timestamp refused it (root mode): a forged, rolled-back,
    /// skipped or expired root, a stale or rolled-back timestamp (a frozen view), a catalog that
    /// is not the one the timestamp names, or one signed by a revoked key.
    case trust(TrustError)
    /// Downloaded bytes did not match their digests, even after retrying.
    case verification(String)
    /// A limit checked before any byte moves: which one, what was needed, what is allowed.
    case allowanceExceeded(String, needed: UInt64, limit: UInt64)
    /// The storage budget cannot hold the pack even after evicting every unused on-demand pack:
    /// the install bytes the root would hold with it, the budget, and what eviction could free.
    /// Nothing was evicted.
    case storageBudgetExceeded(assetPackID: String, needed: UInt64, budget: UInt64, evictable: UInt64)
    /// A preservation priority outside 0…1 (or not a number).
    case invalidPreservationPriority(Double, assetPackID: String)
    /// A repository URL or a redirect leads to a host outside `Configuration.allowedDomains`.
    case domainNotAllowed(host: String, url: String)
    /// A redirect from an https URL led to a plain http one: refused, since the request would
    /// leave encryption (a repository configured with an http URL may redirect anywhere).
    case insecureRedirect(from: String, to: String)
    /// The `shouldDownload` hook said no.
    case downloadDeclined(assetPackID: String)
    /// A local file could not be read or written (a full disk, permissions).
    case storage(String)
    /// The configuration cannot work (no repository URL, a URL without a host): why.
    case invalidConfiguration(String)
    /// The channel the manager follows has no catalog in the repository (it was deleted, or
    /// never published): installed packs are kept, and nothing is updated until the channel
    /// comes back or the app follows another one.
    case channelNotFound(channel: String, url: String)
    /// Another manager (in this process or another) holds the storage root, and did not release
    /// it within `Configuration.storageLockTimeout`.
    case storageRootInUse(root: String, holderPID: Int32?, waited: Duration)
    /// The download was stopped for every caller (by `remove(assetPackWithID:)`). A caller whose
    /// own task is cancelled gets `CancellationError` instead.
    case cancelled
    /// A paid (sealed) pack, and the client holds no content key for its version and has no
    /// entitlement to ask the key server with (no `entitlementProvider`, no `keyServerURL`, or the
    /// provider had no token). Nothing of the pack was downloaded. Not in Apple's API.
    case entitlementRequired(AssetPack)
    /// The key server refused the entitlement for this pack: the reason it gave (unknown,
    /// expired or revoked token, a token for other packs, too many requests). Nothing of the
    /// pack was downloaded.
    case entitlementRejected(AssetPack, reason: String)
    /// The key server could not be reached or answered something other than a key or a refusal
    /// (a key for another pack included): why. Nothing of the pack was downloaded; other packs
    /// are unaffected.
    case keyServer(AssetPack, String)

    /// One line for a person: what failed, naming the pack, path, limit or host involved.
    public var description: String {
        switch self {
        case .assetPackNotFound(let id): return "no asset pack with ID \"\(id)\" in the catalog"
        case .fileNotFound(let path): return "no installed asset pack contains \"\(path.string)\""
        case .transport(let e): return "download failed: \(e)"
        case .catalog(let e): return "catalog refused: \(e)"
        case .trust(let e): return "repository refused: \(e)"
        case .verification(let why): return "verification failed: \(why)"
        case let .allowanceExceeded(what, needed, limit): return "\(what): needs \(needed) bytes, the limit is \(limit)"
        case let .storageBudgetExceeded(id, needed, budget, evictable):
            return "\(id): the storage budget is \(budget) bytes (uncompressed); with this pack installed the root would hold \(needed), and evicting every unused on-demand pack frees only \(evictable); nothing was evicted"
        case let .invalidPreservationPriority(priority, id):
            return "\(id): preservation priority \(priority) is out of range (0...1)"
        case let .domainNotAllowed(host, url): return "\(url): host \(host) is not in the domain allow-list"
        case let .insecureRedirect(from, to) where to.lowercased().hasPrefix("file:"):
            return "\(from) redirected to \(to): a redirect to a local file is refused (a repository folder must be configured as such)"
        case let .insecureRedirect(from, to):
            return "\(from) redirected to \(to): a redirect from https to http is refused (the repository was configured with an https URL)"
        case .downloadDeclined(let id): return "the shouldDownload hook declined to download \"\(id)\""
        case .storage(let why): return why
        case .invalidConfiguration(let why): return "invalid configuration: \(why)"
        case let .channelNotFound(channel, url):
            return "channel '\(channel)' does not exist: \(url) is not found (deleted or never published); installed asset packs are kept — follow another channel or publish to this one"
        case let .storageRootInUse(root, pid, waited):
            let holder = pid.map { "process \($0)" } ?? "another process"
            return "the storage root \(root) is in use by \(holder) (its \(StorageLayout(root: root).lock) is locked); waited \(waited): one manager per root at a time"
        case .entitlementRequired(let pack):
            return "\(pack.id) is a paid pack: it needs an entitlement (a token the key server accepts) and none is configured; nothing was downloaded"
        case let .entitlementRejected(pack, reason):
            return "\(pack.id): the key server refused the entitlement: \(reason); nothing was downloaded"
        case let .keyServer(pack, why): return "\(pack.id): no content key from the key server: \(why); nothing was downloaded"
        case .cancelled: return "cancelled"
        }
    }

    /// `description` (Foundation's `LocalizedError`, as Apple's error conforms).
    public var errorDescription: String? { description }
}
