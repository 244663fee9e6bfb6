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
            """)
    }

    @Argument("DIR_OR_URL")
    var location: String
    @Option("--public-key", value: "KEY", help: "The publisher's public key: \"ed25519:…\" or a .pub file (required).")
    var publicKey: String
    @Option("--min-version", value: "N", help: "Refuse catalogs older than version N (rollback protection).")
    var minimumVersion: Int?
    @Option("--ca", value: "FILE", help: "A PEM CA file to trust for an https URL (e.g. the one 'serve --https' made).")
    var caFile: String?
    @Flag("--json", help: "Print the catalog as JSON.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        let key: Ed25519PublicKey
        do { key = try Ed25519PublicKey(argument: publicKey) } catch {
            throw CLIError.failure("--public-key: \(error)")
        }
        if let n = minimumVersion, n < 1 { throw CLIError.usage("--min-version takes a whole number ≥ 1") }
        let minimum = minimumVersion
        let (bytes, name) = try catalogBytes(at: location, caFile: caFile)
        let catalog: Catalog
        do {
            catalog = try CatalogVerifier(publicKey: key).verify(bytes, now: Date(), minimumVersion: minimum)
        } catch {
            throw CLIError.failure("\(name): \(error)")
        }
        if json {
            print(String(decoding: CatalogCoding.encode(catalog, pretty: true), as: UTF8.self))
            return 0
        }
        print("""
        \(name): signature OK (key ID \(key.keyID))
        Version:    \(catalog.version)
        Published:  \(RFC3339.string(catalog.published))
        Expires:    \(RFC3339.string(catalog.expires))
        Packs:      \(catalog.packs.count)\(catalog.retired.isEmpty ? "" : ", plus \(catalog.retired.count) retired file(s) kept for clients mid-download")

        """)
        for p in catalog.packs {
            let language = p.language.map { " [\($0)]" } ?? ""
            print("\(p.id)\(language) v\(p.version)  \(p.downloadPolicy.name)  download \(ByteCount.format(p.downloadSize)), install \(ByteCount.format(p.installSize))  \(p.path)")
        }
        return 0
    }
}
