import Foundation

/// A folder that appears whole or not at all: its content is written into a staging folder
/// beside the destination (`.NAME.extracting-PID-RANDOM`), which `commit()` renames into place
/// and `discard()` removes, with any parent folders made for it. The destination must not exist
/// or be an empty folder.
public final class StagedDestination {
    public let destination: String
    /// The folder to write into.
    public let staging: String
    private let parent: String
    private let replacesEmptyFolder: Bool
    /// Parent folders this created (deepest first), removed again by `discard()`.
    private let createdParents: [String]

    /// A failure to prepare, commit or check the destination: the path and why.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "\(path) \(reason)" }
    }

    public init(_ destination: String) throws(Failure) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        let exists = fm.fileExists(atPath: destination, isDirectory: &isDirectory)
        if exists {
            guard isDirectory.boolValue, (try? fm.contentsOfDirectory(atPath: destination))?.isEmpty == true else {
                throw Failure(path: destination, reason: "already exists and is not an empty directory")
            }
        }
        let url = URL(fileURLWithPath: destination).standardizedFileURL
        let parentURL = url.deletingLastPathComponent()
        var created: [String] = []
        var p = parentURL
        while !fm.fileExists(atPath: p.path) { created.append(p.path); p = p.deletingLastPathComponent() }
        self.destination = destination
        self.parent = parentURL.path
        self.staging = parentURL.path + "/.\(url.lastPathComponent).extracting-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.replacesEmptyFolder = exists
        self.createdParents = created
        do {
            try fm.createDirectory(at: parentURL, withIntermediateDirectories: true)
        } catch {
            for d in created { rmdir(d) }
            throw Failure(path: parent, reason: "cannot be created: \(error.localizedDescription)")
        }
        guard mkdir(staging, 0o755) == 0 else {
            let e = errno
            for d in created { rmdir(d) }
            throw Failure(path: staging, reason: "cannot be created: \(String(cString: strerror(e)))")
        }
    }

    /// Renames the staging folder to the destination (replacing the empty folder there).
    public func commit() throws(Failure) {
        if replacesEmptyFolder { rmdir(destination) }
        guard rename(staging, destination) == 0 else {
            throw Failure(path: destination, reason: "cannot receive the extracted files: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the staging folder and everything in it (links are removed, never followed), and
    /// the parent folders made for it.
    public func discard() {
        if let folder = try? ConfinedDirectory(root: parent) { try? folder.removeTree(URL(fileURLWithPath: staging).lastPathComponent) }
        for d in createdParents { rmdir(d) }
    }
}
