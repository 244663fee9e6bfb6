import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct DiffCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "diff",
            abstract: "Print the update size of each pack: what a client on each kept version fetches and writes.",
            discussion: """
            For each pack of the repository DIR, and each earlier version whose file the repository keeps, the
            bytes a client with that version installed downloads to reach the newest (the index, the patch table,
            patch frames and full frames), what the same update costs without patches, and the bytes it writes
            (the changed files; unchanged ones are hard links). A pack with device variants has a line per
            variant, from that variant's kept versions; --switches adds what a device pays to switch from
            one variant of the current version to another. Without --public-key the catalog is read
            without checking its signature (it is your own repository).
            """)
    }

    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("--from", value: "N", help: "Only from pack version N.", range: 1...Int(Int32.max))
    var from: Int?
    @Option("--to", value: "M", help: "To pack version M, which the repository keeps (default: each pack's newest).", range: 1...Int(Int32.max))
    var to: Int?
    @Option("--public-key", value: "KEY", help: "Verify the catalog with this key: \"ed25519:…\" or a .pub file.")
    var publicKey: String?
    @Flag("--switches", help: "Also print what switching between the device variants of each pack's current version costs.")
    var switches: Bool
    @Flag("--json", help: "Print the sizes as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        let path = "\(repository)/\(CatalogFormat.fileName)"
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError.failure("cannot read \(path)") }
        let catalog: Catalog
        do {
            if let publicKey {
                let key = try Ed25519PublicKey(argument: publicKey)
                catalog = try CatalogVerifier(publicKey: key).verify([UInt8](data), now: nil)
            } else {
                catalog = try SignedCatalog.parse([UInt8](data)).decodedCatalog()
            }
        } catch { throw CLIError.failure("\(path): \(error)") }
        let sizes: [UpdateSize]
        do {
            sizes = try RepositoryUpdates.sizes(repository: repository, catalog: catalog, from: from, to: to)
                + (switches ? try RepositoryUpdates.switches(repository: repository, catalog: catalog) : [])
        } catch {
            throw CLIError.failure("\(error)")
        }
        if json {
            struct Out: Encodable { var catalogVersion: Int; var updates: [UpdateSize] }
            print(jsonString(Out(catalogVersion: catalog.version, updates: sizes)))
            return 0
        }
        if sizes.isEmpty { print("\(repository): no pack keeps an earlier version to update from") }
        for line in UpdateSizeText.lines(sizes) { print(line) }
        return 0
    }
}

/// The one-line text form of an update size, shared by `diff` and `publish`.
enum UpdateSizeText {
    static func lines(_ sizes: [UpdateSize], indent: String = "") -> [String] {
        sizes.map { u in
            var parts = [u.indexBytes == 0 ? "index made from the installed one" : "index \(ByteCount.format(u.indexBytes))"]
            if u.patchTableBytes > 0 { parts.append("patch table \(ByteCount.format(u.patchTableBytes))") }
            parts.append("\(u.patchedChunks) patch(es) \(ByteCount.format(u.patchBytes))")
            parts.append("\(u.frameChunks) frame(s) \(ByteCount.format(u.frameBytes))")
            let variant = u.variant.map { " [\($0)]" } ?? ""
            return "\(indent)\(u.id)\(variant) v\(u.fromVersion) → v\(u.toVersion): download \(ByteCount.format(u.downloadBytes)) ("
                + parts.joined(separator: ", ")
                + "; \(ByteCount.format(u.newIndexBytes + u.withoutPatchesBytes)) without patches), writes at most \(ByteCount.format(u.writtenBytes)) "
                + "(\(u.changedFiles) of \(u.changedFiles + u.unchangedFiles) file(s) changed)"
        }
    }
}
