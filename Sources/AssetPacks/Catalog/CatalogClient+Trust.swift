import AssetPackFormat
import Foundation

extension CatalogClient {
    /// Root versions a client walks in one refresh at most.
    static let maximumRootSteps = 1024

    /// Root mode (docs/FORMAT.md, "Client verification order"):
    /// 1. start from the last accepted root (or the anchor — the pinned key or the initial root
    ///    file — when none was accepted from it);
    /// 2. read `root.json`'s version (unverified: only a hint of how far to walk); older than the
    ///    trusted root → **rolled-back root**;
    /// 3. walk `roots/N+1.root.json`, `roots/N+2.root.json`… up to it, each checked by
    ///    `TrustedRoot.next` (signed by its predecessor's root key and its own, version exactly + 1);
    /// 4. the newest root must not have expired;
    /// 5. `timestamp.json`: signed by a timestamp key of the root, not older than the last one
    ///    accepted, not expired (**stale timestamp**: a frozen view);
    /// 6. `catalog.json`: exactly the bytes the timestamp names (size, then SHA-256) — taken from
    ///    the store when it already holds them —, signed by a catalog key of the root, not expired,
    ///    not rolled back, with the version the timestamp names;
    /// 7. only then root, timestamp and catalog are stored, in one transaction.
    func refreshTrusted(anchor: TrustAnchor, now: Date) throws -> Catalog {
        let stored = try store.acceptedTrust().flatMap { $0.anchor == anchor.id ? $0 : nil }
        var root = anchor.start
        if let stored, stored.rootVersion >= root.version {
            root = try Self.mapped { try TrustedRoot(acceptedFile: stored.root, file: "the client store's root") }
        }
        let trusted = root
        let newest = try client.fetchAccepted(TrustRole.root.fileName, smallFile: true) { response, _ throws(AssetPackManagerError) -> Int in
            try Self.mapped { try Self.announcedVersion(response.body, trusted: trusted) }
        }
        while root.version < newest {
            let path = TrustRole.rootPath(version: root.version + 1)
            let current = root
            root = try client.fetchAccepted(path, smallFile: true) { response, _ throws(AssetPackManagerError) in
                try Self.mapped { try current.next(response.body, file: path) }
            }
        }
        try Self.mapped { try root.checkNotExpired(now: now) }
        let walked = root
        let (timestamp, timestampBytes) = try client.fetchAccepted(TrustRole.timestamp.fileName, smallFile: true) { response, _ throws(AssetPackManagerError) in
            try Self.mapped { (try walked.verifyTimestamp(response.body, now: now, minimumVersion: stored?.timestampVersion), response.body) }
        }
        let accepted = try store.acceptedCatalog()
        // The channel's catalog as the timestamp names it; a channel it does not name is gone.
        guard let named = timestamp.reference(for: channel) else {
            throw AssetPackManagerError.channelNotFound(channel: channel ?? "", url: "\(client.mirrors.first ?? "")\(TrustRole.timestamp.fileName) names no catalog for it")
        }
        let floor = try store.catalogFloor(channel: channel)
        func check(_ bytes: [UInt8]) throws(AssetPackManagerError) -> Catalog {
            try Self.mapped {
                try timestamp.checkCatalogBytes(bytes, channel: channel)
                let catalog = try walked.verifyCatalog(bytes, now: now, minimumVersion: floor, channel: channel)
                try timestamp.checkCatalogVersion(catalog.version, channel: channel)
                return catalog
            }
        }
        let catalog: Catalog, body: [UInt8]
        if let accepted, SHA256Digest.hash(accepted.envelope).hex == named.sha256 {
            // The catalog the timestamp names is the one held: no need to fetch it again.
            (catalog, body) = (try check(accepted.envelope), accepted.envelope)
        } else {
            (catalog, body) = try fetchChannelCatalog { response, _ throws(AssetPackManagerError) in
                (try check(response.body), response.body)
            }
        }
        let trust = AcceptedTrust(anchor: anchor.id, rootVersion: walked.version, root: walked.envelope!, timestampVersion: timestamp.version,
                                  timestamp: timestampBytes, timestampExpires: timestamp.expires, checkedAt: now)
        // The catalog held, accepted again, is not written again (with many packs it is the
        // bulk of what a refresh with nothing new would write).
        let held = accepted.map { $0.envelope == body && $0.version == catalog.version } ?? false
        try store.acceptTrusted(trust, catalogVersion: catalog.version, payload: held ? nil : CatalogCoding.encode(catalog), envelope: body, channel: channel)
        return catalog
    }

    /// The version `root.json` announces, read before it is verified (it only says how far to
    /// walk; each step is verified). Older than the trusted root → **rolled-back root**; a walk
    /// longer than `maximumRootSteps` → refused.
    static func announcedVersion(_ bytes: [UInt8], trusted: TrustedRoot) throws -> Int {
        let file = TrustRole.root.fileName
        let envelope = try SignedEnvelope.parse(bytes, role: .root, file: file)
        let version = try RootMetadata.decode(envelope.payload, file: file).version
        if version < trusted.version { throw TrustError.rootRolledBack(version: version, minimumVersion: trusted.version) }
        if version - trusted.version > maximumRootSteps { throw TrustError.tooManyRoots(from: trusted.version, to: version) }
        return version
    }

    /// How fresh the client's view of the repository is (root mode), from the store alone.
    func freshness(now: Date) throws -> RepositoryFreshness? {
        guard let anchor, let trust = try store.acceptedTrust(), trust.anchor == anchor.id,
              let catalog = try store.acceptedCatalog() else { return nil }
        return RepositoryFreshness(rootVersion: trust.rootVersion, timestampVersion: trust.timestampVersion, catalogVersion: catalog.version,
                                   lastVerified: trust.checkedAt, timestampExpires: trust.timestampExpires, now: now)
    }
}
