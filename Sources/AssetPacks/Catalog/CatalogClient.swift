import AssetPackFormat
import AssetPackTransport
import Foundation

/// Fetches the repository's catalog, checks it (signature by the trusted key, expiry, and a
/// version no lower than the last one accepted — persisted, so a rollback is refused across
/// restarts too), and keeps the last good one for an offline start. Each mirror's catalog is
/// checked on its own: a mirror that serves a refused one is passed over for the session.
///
/// In root mode (`anchor`: a pinned root key or an initial root file), the catalog's keys come
/// from the repository's root chain and the catalog must be the one a fresh timestamp names
/// (`CatalogClient+Trust.swift`).
struct CatalogClient {
    let client: RepositoryClient
    let verifier: CatalogVerifier
    let store: ClientStore
    /// Root mode: where the root chain starts; nil for a single catalog key (`verifier`).
    var anchor: TrustAnchor? = nil
    /// The channel followed (`Configuration.channel`): nil for the default channel.
    var channel: String? = nil
    /// The device packs' variants are chosen for (`Catalog.view(for:)`); nil keeps every pack's
    /// default.
    var device: DeviceCapabilities? = nil

    /// `catalog` as this root sees it: its rollout bucket's packs, each the variant chosen for
    /// the device.
    func seen(_ catalog: Catalog, bucket: Int) -> Catalog {
        let view = catalog.view(forBucket: bucket)
        return device.map { view.view(for: $0) } ?? view
    }

    /// Downloads and accepts the current catalog, and returns it as this root's rollout bucket
    /// sees it (`seen`).
    func refresh(now: Date) throws -> Catalog {
        if let anchor { return seen(try refreshTrusted(anchor: anchor, now: now), bucket: try store.rolloutBucket()) }
        let accepted = try store.acceptedCatalog()
        if let accepted { try checkBound(to: accepted) }
        // The rollback floor is the channel's own: another channel's versions count separately.
        let floor = try store.catalogFloor(channel: channel)
        // Each mirror's catalog is checked on its own: one that serves a bad one goes to the back
        // of the line for the session, and the next mirror's is taken.
        let (catalog, body) = try fetchChannelCatalog { response, _ throws(AssetPackManagerError) in
            do throws(CatalogError) { return (try verifier.verify(response.body, now: now, minimumVersion: floor, channel: channel), response.body) } catch {
                throw .catalog(error)
            }
        }
        if catalog.version != accepted?.version || body != accepted?.envelope {
            try store.acceptCatalog(version: catalog.version, payload: CatalogCoding.encode(catalog), envelope: body, channel: channel)
        }
        return seen(catalog, bucket: try store.rolloutBucket())
    }

    /// Fetches the followed channel's catalog (`catalog.json` or `channels/NAME/catalog.json`);
    /// a channel whose catalog no mirror has (HTTP 404) is `channelNotFound`, not a network
    /// failure: the client does not go on offline with a channel that is gone.
    func fetchChannelCatalog<T>(_ accept: (HTTPResponse, Int) throws(AssetPackManagerError) -> T) throws(AssetPackManagerError) -> T {
        let path = ChannelName.catalogPath(channel)
        do {
            return try client.fetchAccepted(path, smallFile: true, accept: accept)
        } catch {
            if let channel, case .transport(let e) = error, e.httpStatus == 404 {
                throw .channelNotFound(channel: channel, url: client.mirrors.first.map { $0 + path } ?? path)
            }
            throw error
        }
    }

    /// The last accepted catalog, checked again against the key (in root mode, the catalog keys
    /// of the last accepted root); nil when there is none. An expired one is returned only when
    /// `allowExpired` (reading status offline).
    func cached(now: Date, allowExpired: Bool) throws -> Catalog? {
        guard let accepted = try store.acceptedCatalog() else { return nil }
        // Another channel's catalog (the app has just switched): none held for this one.
        guard (try? CatalogCoding.decode(accepted.payload))?.channel == ChannelName.normalized(channel) else { return nil }
        let bucket = try store.rolloutBucket()
        if let anchor {
            guard let trust = try store.acceptedTrust(), trust.anchor == anchor.id else { return nil }
            return seen(try Self.mapped {
                try TrustedRoot(acceptedFile: trust.root, file: "the client store's root")
                    .verifyCatalog(accepted.envelope, now: allowExpired ? nil : now, minimumVersion: accepted.version, channel: channel)
            }, bucket: bucket)
        }
        do {
            return seen(try verifier.verify(accepted.envelope, now: allowExpired ? nil : now, minimumVersion: accepted.version, channel: channel),
                        bucket: bucket)
        } catch {
            throw AssetPackManagerError.catalog(error)
        }
    }

    /// Runs `body`, turning catalog and trust errors into the manager's.
    static func mapped<T>(_ body: () throws -> T) throws(AssetPackManagerError) -> T {
        do { return try body() } catch let e as TrustError { throw .trust(e) } catch let e as CatalogError { throw .catalog(e) } catch let e as AssetPackManagerError {
            throw e
        } catch {
            throw .storage("\(error)")
        }
    }

    /// A root belongs to the repository whose catalog it accepted first: one whose last accepted
    /// catalog carries no signature of this key holds another repository's packs (or state), and
    /// mixing the two would take its packs for this repository's (and its catalog version for a
    /// rollback). Refused before any byte moves, saying so.
    private func checkBound(to accepted: (version: Int, payload: [UInt8], envelope: [UInt8])) throws {
        guard let envelope = try? SignedCatalog.parse(accepted.envelope) else { return }
        let trusted = Set(verifier.publicKeys.map(\.keyID))
        guard !envelope.signatures.contains(where: { trusted.contains($0.keyID) }) else { return }
        let ours = trusted.sorted().joined(separator: ", ")
        let theirs = envelope.signatures.map(\.keyID).joined(separator: ", ")
        throw AssetPackManagerError.invalidConfiguration(
            "the storage root holds another repository's catalog (version \(accepted.version), signed by key \(theirs)), and this manager trusts key \(ours): "
            + "a root belongs to one repository; give the app a root of its own, or remove this one to start again")
    }
}
