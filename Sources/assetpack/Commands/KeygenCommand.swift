import AssetPackCLI
import AssetPackFormat
import AssetPackPublishing

let keygenCommand = CommandSpec(
    name: "keygen",
    abstract: "Create an Ed25519 key pair for signing catalogs.",
    discussion: """
    Writes the private key to KEYFILE (PEM PKCS#8, mode 0600) and the public key to KEYFILE.pub
    ("ed25519:<base64>"), and prints the public key. Refuses to overwrite either file. Keep
    KEYFILE secret; give clients the public key (--public-key takes the string or the .pub file).
    """,
    options: [.option("-o", "--output", value: "KEYFILE", help: "Where to write the private key (required).")]
) { args in
    let path = try args.required("--output")
    do {
        let key = try KeyFiles.generate(at: path)
        printError("wrote \(path) (private, mode 0600) and \(KeyFiles.publicKeyPath(for: path)); key ID \(key.publicKey.keyID)")
        print(key.publicKey.text)
    } catch {
        throw CLIError.failure("\(error)")
    }
    return 0
}
