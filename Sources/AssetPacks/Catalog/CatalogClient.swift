import AssetPackFormat
import Foundation

/// Fetches the repository's catalog, checks it (signature by the trusted key, expiry, and a
/// version no lower than the last one accepted — persisted, so a rollback is refused across
/// restarts too), and keeps the last good one for an offline start. Each mirror's catalog is
/// checked on its own: a mirror that serves a refused one is passed over for the session.
struct CatalogClient {
    let client: RepositoryClient
    let verifier: CatalogVerifier
    let store: ClientStore

    /// Downloads and accepts the current catalog.
    func refresh(now: Date) throws -> Catalog {
        let accepted = try store.acceptedCatalog()
        if let accepted { try checkBound(to: accepted) }
        // Each mirror's catalog is checked on its own: one that serves a bad one goes to the back
        // of the line for the session, and the next mirror's is taken.
        let (catalog, body) = try client.fetchAccepted(CatalogFormat.fileName, smallFile: true) { response, _ throws(AssetPackManagerError) in
            do throws(CatalogError) { return (try verifier.verify(response.body, now: now, minimumVersion: accepted?.version), response.body) } catch {
                throw .catalog(error)
            }
        }
        if catalog.version != accepted?.version || body != accepted?.envelope {
            try store.acceptCatalog(version: catalog.version, payload: CatalogCoding.encode(catalog), envelope: body)
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

    /// A root belongs to the repository whose catalog it accepted first: one whose last accepted
    /// catalog carries no signature of this key holds another repository's packs (or state), and
    /// mixing the two would take its packs for this repository's (and its catalog version for a
    /// rollback). Refused before any byte moves, saying so.
    private func checkBound(to accepted: (version: Int, payload: [UInt8], envelope: [UInt8])) throws {
        guard let envelope = try? SignedCatalog.parse(accepted.envelope) else { return }
        let ours = verifier.publicKey.keyID
        guard !envelope.signatures.contains(where: { $0.keyID == ours }) else { return }
        let theirs = envelope.signatures.map(\.keyID).joined(separator: ", ")
        throw AssetPackManagerError.invalidConfiguration(
            "the storage root holds another repository's catalog (version \(accepted.version), signed by key \(theirs)), and this manager trusts key \(ours): "
            + "a root belongs to one repository; give the app a root of its own, or remove this one to start again")
    }
}
