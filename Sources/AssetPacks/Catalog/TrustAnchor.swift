import AssetPackFormat
import Foundation

/// What a client in root mode starts its walk of the root chain from: a pinned root key (the
/// first root file must be signed by it) or a root file shipped with the app (trusted as is once
/// it is signed by a root key it names; the walk starts at its version).
struct TrustAnchor: Sendable {
    /// Names the anchor in the client store: a stored root chain started from another anchor is
    /// not used (the walk starts again).
    let id: String
    /// The root trusted before anything is fetched.
    let start: TrustedRoot

    init(rootKey: Ed25519PublicKey) {
        id = rootKey.text
        start = .pinned(rootKey)
    }

    init(rootFile bytes: [UInt8]) throws(TrustError) {
        start = try TrustedRoot(acceptedFile: bytes, file: "the initial root file")
        id = "root-file:" + SHA256Digest.hash(bytes).hex
    }

    /// The anchor `configuration` sets, if any: its initial root file, else its root key.
    static func configured(_ configuration: AssetPackManager.Configuration) throws(AssetPackManagerError) -> TrustAnchor? {
        if let file = configuration.initialRoot {
            do { return try TrustAnchor(rootFile: file) } catch { throw .invalidConfiguration("initialRoot: \(error)") }
        }
        return configuration.rootKey.map(TrustAnchor.init(rootKey:))
    }
}
