import ArgumentParsing
import AssetPackFormat
import Foundation

struct VerifyCatalogCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "verify-catalog",
            abstract: "Check a repository's catalog signature and expiry, and print it.",
            discussion: """
            DIR_OR_URL is a repository folder or URL (its catalog.json is read), or a catalog file or URL. Exits 1 and says
            which when the catalog is tampered with, signed by another key, expired, or malformed.
            With --root-key (a repository with a root), checks what a client pinned to that root key checks: the root
            chain from roots/1.root.json to root.json's version, the root's expiry, timestamp.json (its key, its
            expiry) and that catalog.json is the one it names, signed by a catalog key of the newest root.
            With --channel NAME, the channel's catalog (channels/NAME/catalog.json), which must be signed for that
            channel (and, with --root-key, be the one timestamp.json names for it).
            """)
    }

    @Argument("DIR_OR_URL")
    var location: String
    @Option("--public-key", value: "KEY", help: "The publisher's public key: \"ed25519:…\" or a .pub file.")
    var publicKey: String?
    @Option("--root-key", value: "KEY", help: "Check as a client pinned to this root key does (root chain, timestamp, catalog).")
    var rootKey: String?
    @Option("--min-version", value: "N", help: "Refuse catalogs older than version N (rollback protection).")
    var minimumVersion: Int?
    @Option("--ca", value: "FILE", help: "A PEM CA file to trust for an https URL (e.g. the one 'serve --https' made).")
    var caFile: String?
    @Option("--channel", value: "NAME", help: "Check this channel's catalog (channels/NAME/catalog.json; default: catalog.json).")
    var channel: String?
    @Flag("--json", help: "Print the catalog as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        guard (publicKey == nil) != (rootKey == nil) else { throw CLIError.usage("pass --public-key KEY or --root-key KEY (one of them)") }
        let key: Ed25519PublicKey
        do { key = try Ed25519PublicKey(argument: publicKey ?? rootKey!) } catch {
            throw CLIError.failure("\(publicKey != nil ? "--public-key" : "--root-key"): \(error)")
        }
        if let n = minimumVersion, n < 1 { throw CLIError.usage("--min-version takes a whole number ≥ 1") }
        let minimum = minimumVersion
        let channel = try ChannelChangeText.channel(self.channel, option: "--channel")
        let isFile = location.lowercased().hasSuffix(".json")
        let (bytes, name) = try catalogBytes(at: location, caFile: caFile, file: isFile ? CatalogFormat.fileName : ChannelName.catalogPath(channel))
        let catalog: Catalog
        var trustLines: [String] = []
        do {
            if rootKey != nil {
                (catalog, trustLines) = try verifyThroughRoot(key, catalogBytes: bytes, minimumVersion: minimum, channel: channel)
            } else {
                catalog = try CatalogVerifier(publicKey: key).verify(bytes, now: Date(), minimumVersion: minimum, channel: channel)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("\(name): \(error)")
        }
        if !json { for line in trustLines { print(line) } }
        if json {
            print(String(decoding: CatalogCoding.encode(catalog, pretty: true), as: UTF8.self))
            return 0
        }
        print("""
        \(name): signature OK\(rootKey == nil ? " (key ID \(key.keyID))" : "")
        Channel:    \(catalog.channel ?? ChannelName.defaultName) (catalog format \(catalog.catalogFormat))
        Version:    \(catalog.version)
        Published:  \(RFC3339.string(catalog.published))
        Expires:    \(RFC3339.string(catalog.expires))
        Packs:      \(catalog.packs.count)\(catalog.retired.isEmpty ? "" : ", plus \(catalog.retired.count) retired file(s) kept for clients mid-download")\(catalog.rollout.map { "\nRollout:    \($0.percent) % of clients; the others keep catalog version \($0.fromVersion)'s packs" } ?? "")

        """)
        for p in catalog.packs {
            let language = p.language.map { " [\($0)]" } ?? ""
            print("\(p.id)\(language) v\(p.version)  \(p.downloadPolicy.name)  download \(ByteCount.format(p.downloadSize)), install \(ByteCount.format(p.installSize))  \(p.path)")
        }
        return 0
    }

    /// The client's checks in root mode (docs/FORMAT.md, "Client verification order"), on the
    /// files of the repository at `location`; lines that describe the root and the timestamp.
    private func verifyThroughRoot(_ key: Ed25519PublicKey, catalogBytes bytes: [UInt8], minimumVersion: Int?, channel: String?) throws -> (Catalog, [String]) {
        let now = Date()
        let (announcedBytes, announcedName) = try catalogBytes(at: location, caFile: caFile, file: TrustRole.root.fileName)
        let announced = try RootMetadata.decode(try SignedEnvelope.parse(announcedBytes, role: .root, file: announcedName).payload, file: announcedName).version
        guard announced <= 1024 else { throw TrustError.tooManyRoots(from: 0, to: announced) }
        var root = TrustedRoot.pinned(key)
        while root.version < announced {
            let (file, name) = try catalogBytes(at: location, caFile: caFile, file: TrustRole.rootPath(version: root.version + 1))
            root = try root.next(file, file: name)
        }
        try root.checkNotExpired(now: now)
        let (stampBytes, _) = try catalogBytes(at: location, caFile: caFile, file: TrustRole.timestamp.fileName)
        let stamp = try root.verifyTimestamp(stampBytes, now: now)
        try stamp.checkCatalogBytes(bytes, channel: channel)
        let catalog = try root.verifyCatalog(bytes, now: now, minimumVersion: minimumVersion, channel: channel)
        try stamp.checkCatalogVersion(catalog.version, channel: channel)
        let meta = root.metadata!
        return (catalog, [
            "Root:       version \(root.version), expires \(RFC3339.string(meta.expires)); catalog keys \(meta.catalogPublicKeys.map(\.keyID).joined(separator: ", ")), timestamp keys \(meta.timestampPublicKeys.map(\.keyID).joined(separator: ", "))",
            "Timestamp:  version \(stamp.version), expires \(RFC3339.string(stamp.expires)), names catalog version \(stamp.catalog.version)",
        ])
    }
}
