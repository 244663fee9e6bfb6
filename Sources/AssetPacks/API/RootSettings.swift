import AssetPackFormat
import Foundation

/// What a storage root remembers between runs of the command-line client: the repository, the
/// trusted key (or pinned root key), the CA file, the storage budget, the channel, the seed
/// folders (when asked to), the LAN peers and the device's texture formats and memory, so that later commands need only `--root`.
public struct RootSettings: Sendable, Equatable {
    /// `Configuration.repositoryURLs` (empty: none remembered).
    public var repositoryURLs: [String]
    /// The publisher's key as `ed25519:…` text (`Configuration.publicKey`).
    public var publicKey: String?
    /// The pinned root key as `ed25519:…` text (`Configuration.rootKey`): root mode.
    public var rootKey: String?
    /// An initial root file (`Configuration.initialRoot`), base64: root mode from that root.
    public var rootFile: String?
    /// `Configuration.caFile`: an absolute path.
    public var caFile: String?
    /// `Configuration.storageBudget` (nil: none).
    public var storageBudget: UInt64?
    /// `Configuration.channel` (nil: the default channel).
    public var channel: String?
    /// `Configuration.seedFolders`: absolute paths (empty: none remembered).
    public var seedFolders: [String]
    /// `Configuration.peers` (empty: none).
    public var peers: [String] = []
    /// `Configuration.keyServerURL`: where paid packs' content keys come from.
    public var keyServerURL: String?
    /// The entitlement token the command-line client presents to the key server for every paid
    /// pack (`--entitlement`). Kept in `ROOT/entitlement`, mode 0600, not in the database.
    public var entitlementToken: String?
    /// `Configuration.textureFormats` as their names, preferred first (empty: none).
    public var textureFormats: [String] = []
    /// `Configuration.memory` (nil: the system's).
    public var memory: UInt64?

    /// Settings with these values (all empty by default).
    public init(repositoryURLs: [String] = [], publicKey: String? = nil, rootKey: String? = nil, rootFile: String? = nil, caFile: String? = nil,
                storageBudget: UInt64? = nil, channel: String? = nil, seedFolders: [String] = [], peers: [String] = [],
                keyServerURL: String? = nil, entitlementToken: String? = nil) {
        self.keyServerURL = keyServerURL
        self.entitlementToken = entitlementToken
        self.repositoryURLs = repositoryURLs
        self.publicKey = publicKey
        self.rootKey = rootKey
        self.rootFile = rootFile
        self.caFile = caFile
        self.storageBudget = storageBudget
        self.channel = channel
        self.seedFolders = seedFolders
        self.peers = peers
    }

    /// The settings saved in the root at `path` (empty when nothing was saved yet).
    public static func load(root path: String) throws -> RootSettings {
        let layout = StorageLayout(root: path)
        guard FileManager.default.fileExists(atPath: layout.database) else { return RootSettings() }
        try layout.checkStoreFiles(in: try layout.openRoot())
        let store = try ClientStore(path: StorageLayout(root: path).database)
        return RootSettings(repositoryURLs: (try store.setting("repositoryURLs"))?.split(separator: "\n").map(String.init) ?? [],
                            publicKey: try store.setting("publicKey"), rootKey: try store.setting("rootKey"), rootFile: try store.setting("rootFile"), caFile: try store.setting("caFile"),
                            storageBudget: try store.setting("storageBudget").flatMap { UInt64($0) }, channel: try store.setting("channel"),
                            seedFolders: (try store.setting("seedFolders"))?.split(separator: "\n").map(String.init) ?? [],
                            peers: (try store.setting("peers"))?.split(separator: "\n").map(String.init) ?? [],
                            keyServerURL: try store.setting("keyServer"), entitlementToken: try loadToken(layout))
            .withDevice(textureFormats: (try store.setting("textureFormats"))?.split(separator: ",").map(String.init) ?? [],
                        memory: try store.setting("memory").flatMap { UInt64($0) })
    }

    private func withDevice(textureFormats: [String], memory: UInt64?) -> RootSettings {
        var settings = self
        settings.textureFormats = textureFormats
        settings.memory = memory
        return settings
    }

    private static func loadToken(_ layout: StorageLayout) throws -> String? {
        let root = try layout.openRoot()
        guard let bytes = try StorageLayout.confined({ () throws(ConfinementError) in try root.contents(of: layout.entitlementFile) }) else { return nil }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Saves the settings in the root at `path` (creating it), replacing what it held; an empty
    /// or nil field is removed.
    public func save(root path: String) throws {
        let layout = StorageLayout(root: path)
        try layout.checkStoreFiles(in: try layout.openRoot())
        let store = try ClientStore(path: StorageLayout(root: path).database)
        try store.setSetting("repositoryURLs", repositoryURLs.isEmpty ? nil : repositoryURLs.joined(separator: "\n"))
        try store.setSetting("publicKey", publicKey)
        try store.setSetting("rootKey", rootKey)
        try store.setSetting("rootFile", rootFile)
        try store.setSetting("caFile", caFile)
        try store.setSetting("storageBudget", storageBudget.map { String($0) })
        try store.setSetting("channel", ChannelName.normalized(channel))
        try store.setSetting("seedFolders", seedFolders.isEmpty ? nil : seedFolders.joined(separator: "\n"))
        try store.setSetting("peers", peers.isEmpty ? nil : peers.joined(separator: "\n"))
        try store.setSetting("keyServer", keyServerURL)
        try store.setSetting("textureFormats", textureFormats.isEmpty ? nil : textureFormats.joined(separator: ","))
        try store.setSetting("memory", memory.map { String($0) })
        let root = try layout.openRoot()
        try StorageLayout.confined { () throws(ConfinementError) in
            if let entitlementToken {
                try root.write(Array((entitlementToken + "\n").utf8), to: layout.entitlementFile, mode: 0o600)
            } else {
                try root.removeTree(layout.entitlementFile)
            }
        }
    }

    /// The trust these settings configure, for `Configuration`: `publicKey`, `rootKey` and
    /// `initialRoot`; nil when they name no key at all.
    public func trust() throws -> Trust? {
        let root = try rootKey.map { try Ed25519PublicKey(text: $0) }
        let file = try rootFile.map { text -> [UInt8] in
            guard let data = Data(base64Encoded: text) else { throw AssetPackManagerError.invalidConfiguration("the saved root file is not base64") }
            return [UInt8](data)
        }
        var catalogKey = try publicKey.map { try Ed25519PublicKey(text: $0) } ?? root
        if catalogKey == nil, let file {
            // Root mode from a file alone: `publicKey` is unused; its first root key fills it.
            catalogKey = try TrustedRoot(acceptedFile: file, file: "the saved root file").rootKeys.first
        }
        guard let catalogKey else { return nil }
        return Trust(publicKey: catalogKey, rootKey: root, initialRoot: file)
    }

    /// Sets the device fields of `configuration` (`textureFormats`, `memory`) from these settings.
    public func applyDevice(to configuration: inout AssetPackManager.Configuration) {
        configuration.textureFormats = textureFormats.compactMap(TextureFormat.init(rawValue:))
        configuration.memory = memory
    }

    /// What `trust()` returns.
    public struct Trust: Sendable {
        /// `Configuration.publicKey` (in root mode, unused: the root key or the file's first root key).
        public var publicKey: Ed25519PublicKey
        /// `Configuration.rootKey`.
        public var rootKey: Ed25519PublicKey?
        /// `Configuration.initialRoot`.
        public var initialRoot: [UInt8]?

        /// Sets the trust fields of `configuration`.
        public func apply(to configuration: inout AssetPackManager.Configuration) {
            configuration.publicKey = publicKey
            configuration.rootKey = rootKey
            configuration.initialRoot = initialRoot
        }
    }
}
