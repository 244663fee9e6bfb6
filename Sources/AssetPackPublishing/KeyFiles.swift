import AssetPackFormat
import Foundation

/// `assetpack keygen`: a new key pair written as `KEYFILE` (the private key, mode 0600) and
/// `KEYFILE.pub` (the public key's text form and a newline, mode 0644). Neither file may exist.
public enum KeyFiles {
    public static func publicKeyPath(for keyFile: String) -> String { keyFile + ".pub" }

    @discardableResult
    public static func generate(at keyFile: String) throws(KeyError) -> SigningKey {
        let pubFile = publicKeyPath(for: keyFile)
        for path in [keyFile, pubFile] where FileManager.default.fileExists(atPath: path) {
            throw .exists("\(path) already exists; not overwriting a key")
        }
        let key = try SigningKey.generate()
        try create(keyFile, bytes: try key.pem(), mode: 0o600)
        do { try create(pubFile, bytes: Array((key.publicKey.text + "\n").utf8), mode: 0o644) } catch {
            unlink(keyFile)
            throw error
        }
        return key
    }

    /// Creates `path` exclusively with `mode` (not widened by the umask's absence nor narrowed by
    /// it: the mode is set explicitly) and writes `bytes` durably.
    private static func create(_ path: String, bytes: [UInt8], mode: mode_t) throws(KeyError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else {
            if errno == EEXIST { throw .exists("\(path) already exists; not overwriting a key") }
            throw .unreadable("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard fchmod(fd, mode) == 0, written == bytes.count, fsync(fd) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(path)
            throw .unreadable("cannot write \(path): \(why)")
        }
    }
}
