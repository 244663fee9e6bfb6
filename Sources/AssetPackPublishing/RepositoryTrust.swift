import AssetPackFormat
import Foundation

/// The root chain of a repository folder as the publisher reads it: `roots/1.root.json` (signed
/// by a key it names), then each next version checked as a client checks it. Nil when the
/// repository has no `roots/` folder (single-key mode).
public struct RepositoryTrust: Sendable {
    /// The newest root.
    public var current: TrustedRoot
    /// Every catalog key any root of the chain named: the existing catalog may be signed by a
    /// key a rotation has just replaced, and is still read to carry versions on.
    public var everyCatalogKey: [Ed25519PublicKey]

    /// The newest root's metadata (a chain always has one).
    public var root: RootMetadata { current.metadata! }

    /// Reads and checks the chain in `repository`; nil without `roots/`.
    public static func load(repository: String) throws -> RepositoryTrust? {
        let folder = "\(repository)/\(TrustRole.rootsFolder)"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { throw PublishError.trust("\(folder) is not a folder") }
        let directory = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        func read(_ version: Int) throws -> [UInt8]? {
            let path = TrustRole.rootPath(version: version)
            guard directory.exists(path) else { return nil }
            let bytes: [UInt8]?
            do { bytes = try directory.contents(of: path) } catch { throw PublishError.trust("\(repository)/\(path): \(error)") }
            if let bytes, bytes.count > Self.maximumRootSize {
                throw PublishError.trust("\(repository)/\(path): \(bytes.count) bytes, more than a root file may hold (\(Self.maximumRootSize))")
            }
            return bytes
        }
        guard let first = try read(1) else { throw PublishError.trust("\(folder) holds no 1.root.json: the root chain must start at version 1") }
        var current: TrustedRoot
        do { current = try TrustedRoot(acceptedFile: first, file: "\(repository)/\(TrustRole.rootPath(version: 1))") } catch {
            throw PublishError.trust("\(error)")
        }
        var keys = current.metadata!.catalogPublicKeys
        while let bytes = try read(current.version + 1) {
            do { current = try current.next(bytes, file: "\(repository)/\(TrustRole.rootPath(version: current.version + 1))") } catch {
                throw PublishError.trust("\(error)")
            }
            keys += current.metadata!.catalogPublicKeys.filter { !keys.contains($0) }
        }
        return RepositoryTrust(current: current, everyCatalogKey: keys)
    }

    /// Root files larger than this are refused (a root names a handful of keys).
    public static let maximumRootSize = 1 << 20

    /// The timestamp now in `repository` (its version, to count on from), not checked against
    /// any clock; nil when there is none.
    public func currentTimestamp(repository: String) throws -> TimestampMetadata? {
        let path = "\(repository)/\(TrustRole.timestamp.fileName)"
        let directory = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        guard let data = try RepositoryTransaction.confined({ () throws(ConfinementError) in try directory.contents(of: TrustRole.timestamp.fileName) }) else {
            return nil
        }
        do { return try current.verifyTimestamp([UInt8](data), now: nil) } catch {
            // A timestamp signed by a key the newest root replaced: read its version only, to count on from.
            if case .wrongKey = error, let envelope = try? SignedEnvelope.parse([UInt8](data), role: .timestamp, file: path),
               let old = try? TimestampMetadata.decode(envelope.payload, file: path) {
                return old
            }
            throw PublishError.trust("\(path): \(error)")
        }
    }
}
