import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import Foundation

struct RotateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "rotate",
            abstract: "Write a repository's next root: start the root chain, or replace root, catalog or timestamp keys.",
            discussion: """
            Writes DIR/roots/N+1.root.json (kept forever) and its copy DIR/root.json, signed with the
            current root key (--root-key) and, when it changes, with the new one too (--new-root-key).
            The first rotate (no DIR/roots yet) starts the chain: it needs --catalog-key and
            --timestamp-key. Keys not given stay as they were. Catalog and timestamp keys are public
            keys (the string or a .pub file; repeat the option for several). Clients pinned to the root
            key walk the chain one version at a time and refuse a catalog signed by a key the newest
            root no longer names: after rotating a catalog key, publish again with the new key.
            """)
    }

    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("--root-key", value: "KEYFILE", help: "The current root key's private key file (required).")
    var rootKeyFile: String
    @Option("--new-root-key", value: "KEYFILE", help: "A new root key to hand over to (private key file; it signs too).")
    var newRootKeyFile: String?
    @Option("--catalog-key", value: "KEY", help: "A catalog public key of the new root (repeatable; replaces the current ones).")
    var catalogKeys: [String]
    @Option("--timestamp-key", value: "KEY", help: "A timestamp public key of the new root (repeatable; replaces the current ones).")
    var timestampKeys: [String]
    @Option("--expires", value: "DURATION", help: "How long the new root stays valid (default 365d).",
            range: DurationWithUnit(.seconds(86_400))...DurationWithUnit(.seconds(3650 * 86_400)))
    var expires: DurationWithUnit?

    init() {}

    func run() throws -> Int32 {
        var rotation: RootRotation
        do { rotation = RootRotation(rootKey: try SigningKey(contentsOf: rootKeyFile)) } catch { throw CLIError.failure("--root-key: \(error)") }
        if let newRootKeyFile {
            do { rotation.newRootKey = try SigningKey(contentsOf: newRootKeyFile) } catch { throw CLIError.failure("--new-root-key: \(error)") }
        }
        if !catalogKeys.isEmpty { rotation.catalogKeys = try Self.publicKeys(catalogKeys, option: "--catalog-key") }
        if !timestampKeys.isEmpty { rotation.timestampKeys = try Self.publicKeys(timestampKeys, option: "--timestamp-key") }
        if let expires { rotation.expiresIn = expires.duration.secondsValue }
        let root: RootMetadata
        do { root = try rotation.rotate(repository: repository) } catch { throw CLIError.failure("\(error)") }
        print("\(repository): root version \(root.version), expires \(RFC3339.string(root.expires))")
        print("  root keys      \(root.rootPublicKeys.map(\.keyID).joined(separator: ", "))")
        print("  catalog keys   \(root.catalogPublicKeys.map(\.keyID).joined(separator: ", "))")
        print("  timestamp keys \(root.timestampPublicKeys.map(\.keyID).joined(separator: ", "))")
        return 0
    }

    static func publicKeys(_ arguments: [String], option: String) throws(CLIError) -> [Ed25519PublicKey] {
        var keys: [Ed25519PublicKey] = []
        for a in arguments {
            do { keys.append(try Ed25519PublicKey(argument: a)) } catch { throw .usage("\(option): \(error)") }
        }
        return keys
    }
}
