import AssetPackCLI
import AssetPackFormat
import Foundation

let verifyCatalogCommand = CommandSpec(
    name: "verify-catalog",
    abstract: "Check a repository's catalog signature and expiry, and print it.",
    arguments: "DIR_OR_URL",
    discussion: """
    DIR_OR_URL is a repository folder or URL (its catalog.json is read), or a catalog file or URL. Exits 1 and says
    which when the catalog is tampered with, signed by another key, expired, or malformed.
    """,
    options: [
        .option("--public-key", value: "KEY", help: "The publisher's public key: \"ed25519:…\" or a .pub file (required)."),
        .option("--min-version", value: "N", help: "Refuse catalogs older than version N (rollback protection)."),
        .option("--ca", value: "FILE", help: "A PEM CA file to trust for an https URL (e.g. the one 'serve --https' made)."),
        .flag("--json", help: "Print the catalog as JSON."),
    ],
    positionalCount: 1...1
) { args in
    let location = args.positionals[0]
    let key: Ed25519PublicKey
    do { key = try Ed25519PublicKey(argument: try args.required("--public-key")) } catch let error as KeyError {
        throw CLIError.failure("--public-key: \(error)")
    }
    var minimum: Int?
    if let m = args.value("--min-version") {
        guard let n = Int(m), n >= 1 else { throw CLIError.usage("--min-version takes a whole number ≥ 1") }
        minimum = n
    }
    let (bytes, name) = try catalogBytes(at: location, caFile: args.value("--ca"))
    let catalog: Catalog
    do {
        catalog = try CatalogVerifier(publicKey: key).verify(bytes, now: Date(), minimumVersion: minimum)
    } catch {
        throw CLIError.failure("\(name): \(error)")
    }
    if args.flag("--json") {
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
        print("\(p.id)\(language) v\(p.version)  \(p.downloadPolicy.name)  download \(byteCount(p.downloadSize)), install \(byteCount(p.installSize))  \(p.path)")
    }
    return 0
}
