import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestSupport
import Testing

@Suite struct KeyTests {
    @Test func keygenWritesPrivateKeyWithMode0600AndPublicKeyFile() throws {
        let dir = try TemporaryDirectory("publishing")
        let path = "\(dir.path)/signing.pem"
        let key = try KeyFiles.generate(at: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let pem = String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self)
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(pem.hasSuffix("-----END PRIVATE KEY-----\n"))
        let pub = String(decoding: FileManager.default.contents(atPath: path + ".pub")!, as: UTF8.self)
        #expect(pub == key.publicKey.text + "\n")
        #expect(pub.hasPrefix("ed25519:"))
        // The key read back is the same key: same public half, and it signs verifiably.
        let reread = try SigningKey(contentsOf: path)
        #expect(reread.publicKey == key.publicKey)
        let message = Array("hello".utf8)
        #expect(key.publicKey.isValidSignature(try reread.sign(message), of: message))
    }

    @Test func keygenRefusesToOverwriteEitherFile() throws {
        let dir = try TemporaryDirectory("publishing")
        let path = "\(dir.path)/k"
        try dir.write("k", "precious")
        #expect(throws: KeyError.self) { try KeyFiles.generate(at: path) }
        #expect(String(decoding: FileManager.default.contents(atPath: path)!, as: UTF8.self) == "precious")
        #expect(!FileManager.default.fileExists(atPath: path + ".pub"))

        let path2 = "\(dir.path)/k2"
        try dir.write("k2.pub", "old public key")
        #expect(throws: KeyError.self) { try KeyFiles.generate(at: path2) }
        #expect(!FileManager.default.fileExists(atPath: path2))
    }

    @Test func publicKeyArgumentTakesTheStringOrTheFile() throws {
        let dir = try TemporaryDirectory("publishing")
        let key = try KeyFiles.generate(at: "\(dir.path)/k")
        #expect(try Ed25519PublicKey(argument: key.publicKey.text) == key.publicKey)
        #expect(try Ed25519PublicKey(argument: "\(dir.path)/k.pub") == key.publicKey)
        #expect(key.publicKey.keyID == String(SHA256Digest.hash(key.publicKey.rawBytes).hex.prefix(16)))
        #expect(key.publicKey.keyID.count == 16)
    }

    @Test(arguments: ["ed25519:", "ed25519:!!!", "ed25519:AAAA", "rsa:AAAA", "/no/such/file.pub"])
    func malformedPublicKeysAreRefused(_ text: String) {
        #expect(throws: KeyError.self) { try Ed25519PublicKey(argument: text) }
    }

    @Test func privateKeyFileMustBeAnEd25519PEM() throws {
        let dir = try TemporaryDirectory("publishing")
        try dir.write("text.pem", "not a key")
        #expect(throws: KeyError.self) { try SigningKey(contentsOf: "\(dir.path)/text.pem") }
        // A real PEM private key of another algorithm, made by the openssl command line.
        #expect(try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(dir.path)/ec.pem"]).status == 0)
        do {
            _ = try SigningKey(contentsOf: "\(dir.path)/ec.pem")
            Issue.record("an EC key was accepted as an Ed25519 key")
        } catch {
            #expect("\(error)".contains("not an Ed25519 one"))
        }
    }

    @Test func opensslReadsTheKeyFile() throws {
        let dir = try TemporaryDirectory("publishing")
        try KeyFiles.generate(at: "\(dir.path)/k")
        let (status, text) = try openssl(["pkey", "-in", "\(dir.path)/k", "-noout", "-text"])
        #expect(status == 0)
        #expect(text.contains("ED25519 Private-Key"))
    }
}

/// Runs the openssl command line; returns its status and standard output.
func openssl(_ arguments: [String]) throws -> (status: Int32, out: String) {
    let result = try ChildProcess.runBlocking("/usr/bin/openssl", arguments)
    return (result.status, result.stdout)
}
