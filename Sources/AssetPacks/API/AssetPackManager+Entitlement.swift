import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The content key of a sealed pack's catalog version, nil for an unsealed pack: the one
    /// cached for that key ID (a reinstall or an update sealed under the same key needs no key
    /// server), else one from the key server for the entitlement provider's token, then cached.
    /// Runs before any byte of the pack is fetched.
    func contentKey(for entry: CatalogPack) async throws -> ContentKey? {
        guard let sealed = entry.sealed else { return nil }
        if let cached = try store.contentKey(of: entry.id, keyID: sealed.keyID) { return cached }
        let pack = AssetPack(entry)
        guard let provider = configuration.entitlementProvider, let url = configuration.keyServerURL else {
            throw AssetPackManagerError.entitlementRequired(pack)
        }
        if let problem = KeyServerClient.problem(with: url) { throw AssetPackManagerError.invalidConfiguration(problem) }
        let token: String
        do { token = try await provider(pack) } catch is CancellationError { throw CancellationError() } catch {
            throw AssetPackManagerError.entitlementRequired(pack)
        }
        guard !token.isEmpty else { throw AssetPackManagerError.entitlementRequired(pack) }
        let key = try await KeyServerClient(url: url, transport: client.transport).key(for: pack, keyID: sealed.keyID, token: token)
        try store.cacheContentKey(key, of: entry.id)
        return key
    }

    /// Whether the client holds the content key `assetPack`'s version is sealed under (true for
    /// an unsealed pack).
    func holdsContentKey(_ assetPack: AssetPack) throws -> Bool {
        guard let keyID = assetPack.contentKeyID else { return true }
        return try store.contentKey(of: assetPack.id, keyID: keyID) != nil
    }
}
