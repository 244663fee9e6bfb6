import AssetPackFormat
import AssetPackTransport
import Foundation

extension AssetPackManager {
    /// Everything a manager needs to know: where packs come from, whom to trust, where they go,
    /// and the limits that apply before any byte moves (Apple's BA Info.plist keys in brackets:
    /// Apple reads these from the app's Info.plist, the system manager having no initializer).
    public struct Configuration: Sendable {
        /// Base URLs of the repository (where `catalog.json` is); each request fails over to the next.
        public var repositoryURLs: [String]
        /// The publisher's Ed25519 public key: catalogs signed by anything else are refused.
        /// Unused in root mode (`rootKey`), where the root names the catalog keys.
        public var publicKey: Ed25519PublicKey
        /// Root mode, the recommended one: the repository's pinned root key. The catalog keys and
        /// the timestamp keys come from the root chain it starts (`roots/N.root.json`), so a
        /// publisher can replace a leaked or lost online key without reinstalling clients, and the
        /// catalog must be the one a fresh `timestamp.json` names (docs/CLIENT.md, "Pinning the
        /// root"). nil: single-key mode with `publicKey`.
        public var rootKey: Ed25519PublicKey?
        /// Root mode from a root file shipped with the app (a `roots/N.root.json`) instead of a
        /// key: trusted as is once it is signed by a root key it names, and the walk starts at
        /// its version — so an app built after a root key rotation starts from the new root.
        /// Takes precedence over `rootKey`. A file that does not parse or is not signed so makes
        /// `init` fail (`invalidConfiguration`).
        public var initialRoot: [UInt8]?
        /// Where installed packs, downloads in progress and the state database live.
        public var storageRoot: String
        /// Compressed bytes all packs together may download [BADownloadAllowance].
        public var downloadAllowance: UInt64?
        /// Compressed bytes essential packs may download [BAEssentialDownloadAllowance].
        public var essentialDownloadAllowance: UInt64?
        /// Uncompressed bytes all installed packs may take [BAMaxInstallSize].
        public var maxInstallSize: UInt64?
        /// Uncompressed bytes installed essential packs may take [BAEssentialMaxInstallSize].
        public var essentialMaxInstallSize: UInt64?
        /// Uncompressed bytes all installed packs may take before on-demand packs are evicted to
        /// make room for a download (lowest preservation priority, then least recently used,
        /// first); nil (the default) evicts nothing. See `setPreservationPriority`.
        public var storageBudget: UInt64?
        /// Hosts downloads may come from, redirects included; `*.example.com` matches subdomains
        /// [BADownloadDomainAllowList]. Empty allows every host.
        public var allowedDomains: [String]
        /// A PEM file of trusted CAs for private servers (replaces the system's roots).
        public var caFile: String?
        /// Asked before each download starts (consent, network, free space); false skips it.
        public var shouldDownload: @Sendable (AssetPack) -> Bool
        /// Apple's form of that question: asked before each download starts, after
        /// `shouldDownload` (both must say yes). nil: every pack downloads.
        public var downloaderExtension: (any ManagedDownloaderExtension)?
        /// The user's languages, most preferred first (BCP 47), for localized packs; by default
        /// `SystemLanguages.preferred()` (on Linux, from `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).
        public var preferredLanguages: [String]
        /// The app's primary language: the last fallback for localized packs.
        public var primaryLanguage: String
        /// LAN peers (base URLs of agents run with `assetpack agent --share`), asked for each
        /// chunk a download would fetch from the repository before the repository is: every
        /// chunk is verified against the signed index whoever sends it, a chunk no peer has comes
        /// from the repository, and a peer that sends a bad chunk, redirects, stalls
        /// (`NetworkLimits.peerTimeout`), keeps lacking chunks or is too slow
        /// (`NetworkLimits.peerMinimumRate`, `peerMinimumShare`) is not asked again. Not in
        /// Apple's API. Empty (the default): none.
        public var peers: [String] = []
        /// Whether folders the manager retires (a superseded version, a removed pack) are deleted
        /// on a background queue of this process (true: apps, the agent) or only when asked —
        /// `waitUntilRetiredFoldersAreDeleted()`, or a process the `assetpack` command starts
        /// as it exits (`rootsWithRetiredFoldersPending()`), so that a thread still freeing
        /// gigabytes never holds a command's exit back.
        package var deletesRetiredFoldersInBackground = true
        /// The HTTP transport; nil for libcurl with `caFile`.
        public var transport: (any HTTPTransport)?
        /// How transient failures are retried (connection errors, timeouts, HTTP 408, 429 and
        /// 5xx): `.standard` makes 5 attempts with growing pauses, `.never` one.
        public var retryPolicy: RetryPolicy
        /// Deadlines and rates that pass a slow or stalled server over for the next mirror: small
        /// files (catalog, index) must arrive within a deadline at a minimum average rate, and a
        /// pack download that places no verified chunk for a while fails over. See `NetworkLimits`.
        public var networkLimits = NetworkLimits.standard
        /// How many connections a large pack is fetched over.
        public var parallelDownloads = ParallelDownloads.standard
        /// Whether an install waits for its files to reach the disk before it commits (true), or
        /// commits once they are written and verified and leaves them to the kernel's writeback,
        /// which writes them within about 30 s (false, the default, where the system names its
        /// boot: Linux). Either way a crash of the process loses nothing. After a crash of the
        /// system (power loss, kernel panic) that came before the writeback, the next manager
        /// opened on the root hashes the files of each pack committed so against its index; a
        /// pack with a file lost or short is no longer installed, and its next download fetches
        /// it again. docs/CLIENT.md, "Durability".
        public var flushesBeforeCommit = false
        /// The running boot (`BootSession.current` by default); nil makes every install flush
        /// before it commits. Replaced in tests to act out a restart after a crash.
        package var bootSession: @Sendable () -> BootSession? = { BootSession.current() }
        /// Seconds after which an install left to the writeback is flushed and marked so
        /// (`BootSession.writebackDelay`; shorter in tests).
        package var writebackDelay = BootSession.writebackDelay
        /// The clock catalog expiry and the catalog's age are checked against.
        public var now: @Sendable () -> Date
        /// How long a fetched catalog is used before the next call that reads it fetches it
        /// again (offline, the one held is used on).
        public var catalogMaxAge: Duration
        /// How long `init` waits for another manager (another process) to release the storage
        /// root before it fails with `storageRootInUse`.
        public var storageLockTimeout: Duration
        /// Which packs an `AssetPackResourceRequest`'s tags need: by default the naming of
        /// `assetpack convert odr` (see `ResourceTagMapping`).
        public var resourceTagMapping = ResourceTagMapping.convertedFromODR
        /// Folders whose files may hold chunks of the packs to install (an earlier copy of the
        /// content, an unpacked build, a USB stick): chunks found there — cut with each pack's
        /// own chunking parameters, and verified by SHA-256 as they are read — are not fetched.
        /// Links are not followed, special files are skipped; see `seedScanLimits`. Through the
        /// agent, the agent's own (`RootSettings.seedFolders`) apply.
        public var seedFolders: [String] = []
        /// How much a look through `seedFolders` may read for one pack.
        public var seedScanLimits = SeedScanLimits.standard
        /// In this process (the default), or through the root's agent: see `Delivery`.
        public var delivery = Delivery.inProcess
        /// The publishing channel to follow: nil (the default) reads the repository's
        /// `catalog.json`, a name reads `channels/NAME/catalog.json`, whose signed payload must
        /// name that channel. Switching channels is an update like any other (by delta); the
        /// rollback floor is kept per channel. Not in Apple's API (TestFlight and App Store
        /// versions play this part there).
        public var channel: String?
        /// Paid (sealed) packs: asked for the entitlement token of a sealed pack — a purchase
        /// receipt, a subscription token, whatever the key server's backend checks — when the
        /// client holds no content key for the pack's version. Throwing (or nil) means the user
        /// has none: the download fails with `entitlementRequired` before any pack byte moves.
        /// No Apple counterpart (Apple gates through StoreKit on its own hosting).
        public var entitlementProvider: (@Sendable (AssetPack) async throws -> String)?
        /// The key server (`assetpack key-server`) that turns a token into a pack's content key:
        /// an `https://` URL, or `http://` on a loopback address only (keys never travel in clear
        /// over a network).
        public var keyServerURL: String?
        /// Device variants (docs/CLIENT.md, "Device variants"): the texture formats this device's
        /// GPU decodes, the preferred first. Empty (the default): no variant that names a texture
        /// format is chosen. Not in Apple's API.
        public var textureFormats: [TextureFormat] = []
        /// The device's memory in bytes for device variants' memory tiers; nil (the default) reads
        /// it from the system (`/proc/meminfo`'s MemTotal).
        public var memory: UInt64?
        /// The CPU architecture for device variants (`arm64`, `x86_64`, …); nil (the default) is
        /// this machine's (`uname -m`).
        public var architecture: String?

        /// A configuration with these values; everything but the repository, the key and the
        /// root has a default (no limits, every host, the system's CAs and languages, libcurl).
        public init(repositoryURLs: [String], publicKey: Ed25519PublicKey, storageRoot: String,
                    downloadAllowance: UInt64? = nil, essentialDownloadAllowance: UInt64? = nil,
                    maxInstallSize: UInt64? = nil, essentialMaxInstallSize: UInt64? = nil, storageBudget: UInt64? = nil,
                    allowedDomains: [String] = [], caFile: String? = nil,
                    shouldDownload: @escaping @Sendable (AssetPack) -> Bool = { _ in true },
                    preferredLanguages: [String] = SystemLanguages.preferred(), primaryLanguage: String = "en",
                    transport: (any HTTPTransport)? = nil, retryPolicy: RetryPolicy = .standard,
                    now: @escaping @Sendable () -> Date = { Date() },
                    catalogMaxAge: Duration = .seconds(15 * 60), storageLockTimeout: Duration = .seconds(30)) {
            self.repositoryURLs = repositoryURLs
            self.publicKey = publicKey
            self.storageRoot = storageRoot
            self.downloadAllowance = downloadAllowance
            self.essentialDownloadAllowance = essentialDownloadAllowance
            self.maxInstallSize = maxInstallSize
            self.essentialMaxInstallSize = essentialMaxInstallSize
            self.storageBudget = storageBudget
            self.allowedDomains = allowedDomains
            self.caFile = caFile
            self.shouldDownload = shouldDownload
            self.preferredLanguages = preferredLanguages
            self.primaryLanguage = primaryLanguage
            self.transport = transport
            self.retryPolicy = retryPolicy
            self.now = now
            self.catalogMaxAge = catalogMaxAge
            self.storageLockTimeout = storageLockTimeout
        }

        /// A configuration in root mode: `rootKey` is pinned, and the catalog and timestamp keys
        /// come from the repository's root chain. Everything else as the other initializer;
        /// set the other properties after.
        public init(repositoryURLs: [String], rootKey: Ed25519PublicKey, storageRoot: String) {
            self.init(repositoryURLs: repositoryURLs, publicKey: rootKey, storageRoot: storageRoot)
            self.rootKey = rootKey
        }
    }
}
