import AssetPackFormat
import AssetPackPackaging
import Foundation

/// Encodes manifests the way every converter must (pretty, sorted keys), checks that the bytes
/// decode as a valid manifest, and writes whole sets atomically.
public enum ManifestSetWriter {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The manifest's JSON, verified by `ManifestDecoder`.
    public static func encode(_ manifest: AssetPackManifest, name: String) throws(Failure) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do { bytes = Array(try encoder.encode(manifest)) + [0x0A] } catch { throw Failure(description: "\(name): cannot encode: \(error)") }
        let (decoded, diagnostics) = ManifestDecoder.decode(bytes, file: name)
        guard decoded != nil else {
            throw Failure(description: "\(name): the converted manifest is not valid: " + diagnostics.map(\.description).joined(separator: "; "))
        }
        return bytes
    }

    /// Writes one file atomically (temporary name, then rename): a manifest, or a report.
    public static func writeFile(_ bytes: [UInt8], to path: String) throws(Failure) {
        do {
            let file = try AtomicFile(destination: path)
            try file.write(bytes)
            try file.commit()
        } catch {
            throw Failure(description: error.description) // names the path and the reason
        }
    }

    /// Writes every file into a staging folder beside `folder`, then renames it to `folder`, so a
    /// reader sees all of the set or none of it. `folder` must not exist or be an empty folder.
    public static func writeSet(_ files: [(name: String, bytes: [UInt8])], to folder: String) throws(Failure) {
        let fm = FileManager.default
        let target = PathText.absolute(folder)
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: target, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? fm.contentsOfDirectory(atPath: target))?.isEmpty == true else {
                throw Failure(description: "\(folder) exists and is not an empty folder; not overwriting it")
            }
        }
        let staging = PathText.parent(target) + "/.\(PathText.lastComponent(target)).staging-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try fm.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create \(staging): \(error.localizedDescription)")
        }
        do {
            for f in files {
                guard !f.name.contains("/"), !f.name.hasPrefix(".") else { throw Failure(description: "bad file name \(f.name)") }
                guard fm.createFile(atPath: staging + "/" + f.name, contents: Data(f.bytes)) else {
                    throw Failure(description: "cannot write \(staging)/\(f.name)")
                }
            }
            if fm.fileExists(atPath: target) { rmdir(target) }
            guard rename(staging, target) == 0 else {
                throw Failure(description: "cannot move the manifests into \(folder): \(String(cString: strerror(errno)))")
            }
        } catch let failure as Failure {
            try? fm.removeItem(atPath: staging)
            throw failure
        } catch {
            try? fm.removeItem(atPath: staging)
            throw Failure(description: "\(error)")
        }
    }
}
