import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing

struct KeygenCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "keygen",
            abstract: "Create an Ed25519 key pair for signing catalogs.",
            discussion: """
            Writes the private key to KEYFILE (PEM PKCS#8, mode 0600) and the public key to KEYFILE.pub
            ("ed25519:<base64>"), and prints the public key. Refuses to overwrite either file. Keep
            KEYFILE secret; give clients the public key (--public-key takes the string or the .pub file).
            With --root the key is a repository's root key: keep it offline, start the root chain with
            'assetpack rotate --repo DIR --root-key KEYFILE --catalog-key C.pub --timestamp-key T.pub',
            and pin it in clients with --root-key KEYFILE.pub (docs/PUBLISHING.md, "Keys that can change").
            """)
    }

    @Option("-o", "--output", value: "KEYFILE", help: "Where to write the private key (required).")
    var output: String
    @Flag("--root", help: "The key is a root key (kept offline; signs the repository's roots/N.root.json).")
    var root: Bool

    init() {}

    func run() throws -> Int32 {
        do {
            let key = try KeyFiles.generate(at: output)
            printError("wrote \(output) (private, mode 0600) and \(KeyFiles.publicKeyPath(for: output)); key ID \(key.publicKey.keyID)")
            if root {
                printError("root key: keep \(output) offline; next: assetpack rotate --repo DIR --root-key \(output) --catalog-key CATALOG.pub --timestamp-key TIMESTAMP.pub")
            }
            print(key.publicKey.text)
        } catch {
            throw CLIError.failure("\(error)")
        }
        return 0
    }
}
