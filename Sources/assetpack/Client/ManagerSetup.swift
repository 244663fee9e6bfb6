import ArgumentParsing
import AssetPackFormat
import AssetPacks
import Foundation

/// Builds a manager for a client command from its options and the root's remembered settings;
/// options given now (and `storageBudget`, when given) are remembered for next time.
func makeManager(_ options: ClientOptions, storageBudget: StorageBudgetArgument? = nil, seeds: SeedOptions? = nil, entitlement: String? = nil,
                 keyServer: String? = nil, device: DeviceOptions? = nil) throws -> AssetPackManager {
    let root = options.storage.root
    var settings = try options.repository.applied(to: RootSettings.load(root: root))
    var seedFolders = settings.seedFolders
    if let seeds { (seedFolders, settings) = try seeds.applied(to: settings) }
    switch storageBudget {
    case .none?: settings.storageBudget = nil
    case .bytes(let bytes)?: settings.storageBudget = bytes
    case nil: break
    }
    if let entitlement {
        guard !entitlement.isEmpty, !entitlement.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw CLIError.usage("--entitlement takes a token without spaces or line breaks")
        }
        settings.entitlementToken = entitlement
    }
    if let keyServer { settings.keyServerURL = keyServer }
    if let device { settings = try device.applied(to: settings) }
    guard !settings.repositoryURLs.isEmpty else { throw CLIError.usage("no repository: pass --repo URL (the root remembers it)") }
    let trust = try savedTrust(settings)
    guard let trust else { throw CLIError.usage("no public key: pass --root-key ROOTKEY (root mode) or --public-key KEY (the root remembers it)") }
    // The manager first: it locks the root, so no other process sees the settings change.
    var configuration = AssetPackManager.Configuration(repositoryURLs: settings.repositoryURLs, publicKey: trust.publicKey, storageRoot: root,
                                                       allowedDomains: options.allowedDomains, caFile: settings.caFile,
                                                       storageLockTimeout: try options.storage.storageLockTimeout())
    trust.apply(to: &configuration)
    configuration.parallelDownloads = try options.parallelDownloads()
    configuration.networkLimits = try options.networkLimits()
    configuration.flushesBeforeCommit = options.flush
    configuration.storageBudget = settings.storageBudget
    configuration.channel = settings.channel
    configuration.seedFolders = seedFolders
    configuration.peers = settings.peers
    configuration.keyServerURL = settings.keyServerURL
    settings.applyDevice(to: &configuration)
    if let token = settings.entitlementToken { configuration.entitlementProvider = { _ in token } }
    configuration.deletesRetiredFoldersInBackground = false   // RetiredFolderHandOff, at exit
    let manager = try AssetPackManager(configuration: configuration)
    try settings.save(root: root)
    return manager
}

/// A manager for commands that only read the root (ls, cat, remove): no network needed.
func makeLocalManager(_ options: RootOptions) throws -> AssetPackManager {
    let root = options.root
    let settings = try RootSettings.load(root: root)
    guard let trust = try savedTrust(settings), !settings.repositoryURLs.isEmpty else {
        throw CLIError.failure("\(root) is not an initialised storage root (run 'assetpack install' first)")
    }
    var configuration = AssetPackManager.Configuration(repositoryURLs: settings.repositoryURLs, publicKey: trust.publicKey, storageRoot: root,
                                                       caFile: settings.caFile, storageLockTimeout: try options.storageLockTimeout())
    trust.apply(to: &configuration)
    configuration.channel = settings.channel
    settings.applyDevice(to: &configuration)
    configuration.deletesRetiredFoldersInBackground = false   // RetiredFolderHandOff, at exit
    return try AssetPackManager(configuration: configuration)
}

/// The keys (and initial root file) the root remembers.
private func savedTrust(_ settings: RootSettings) throws(CLIError) -> RootSettings.Trust? {
    do { return try settings.trust() } catch { throw CLIError.failure("the saved key is invalid: \(error)") }
}
