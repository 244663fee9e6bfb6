import AssetPackFormat
import Foundation

/// Fetches the repository's catalog, checks it (signature by the trusted key, expiry, and a
/// version no lower than the last one accepted — persisted, so a rollback is refused across
/// restarts too), and keeps the last good one for an offline start.
struct CatalogClient {
    let client: RepositoryClient
    let verifier: CatalogVerifier
    let store: ClientStore

    /// Downloads and accepts the current catalog.
    func refresh(now: Date) throws -> Catalog {
        let accepted = try store.acceptedCatalog()
        let response = try client.get(CatalogFormat.fileName)
        let catalog: Catalog
        do {
            catalog = try verifier.verify(response.body, now: now, minimumVersion: accepted?.version)
        } catch {
            throw AssetPackManagerError.catalog(error)
        }
        if catalog.version != accepted?.version || response.body != accepted?.envelope {
            try store.acceptCatalog(version: catalog.version, payload: CatalogCoding.encode(catalog), envelope: response.body)
        }
        return catalog
    }

    /// The last accepted catalog, checked again against the key; nil when there is none.
    /// An expired one is returned only when `allowExpired` (reading status offline).
    func cached(now: Date, allowExpired: Bool) throws -> Catalog? {
        guard let accepted = try store.acceptedCatalog() else { return nil }
        do {
            return try verifier.verify(accepted.envelope, now: allowExpired ? nil : now, minimumVersion: accepted.version)
        } catch {
            throw AssetPackManagerError.catalog(error)
        }
    }
}
