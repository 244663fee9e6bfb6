import Foundation

/// What a folder holds, as extraction must reproduce it: every path with its type, permission
/// bits, symlink target, file bytes and (for files) modification time. Owners are left out
/// (extraction does not apply them).
struct TreeSnapshot: Equatable, CustomStringConvertible {
    struct Node: Equatable {
        var type: mode_t
        var mode: mode_t
        var link: String?
        var bytes: [UInt8]?
        var fileTime: Int?
    }

    var nodes: [String: Node] = [:]

    init(_ root: String) throws {
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: root) else { throw TreeError("cannot walk \(root)") }
        while let relative = walker.nextObject() as? String {
            let full = root + "/" + relative
            var st = stat()
            guard lstat(full, &st) == 0 else { throw TreeError("cannot stat \(full)") }
            var node = Node(type: st.st_mode & S_IFMT, mode: st.st_mode & 0o7777)
            switch st.st_mode & S_IFMT {
            case S_IFLNK: node.link = try fm.destinationOfSymbolicLink(atPath: full); node.mode = 0
            case S_IFREG: node.bytes = [UInt8](fm.contents(atPath: full) ?? Data()); node.fileTime = st.st_mtim.tv_sec
            default: break
            }
            nodes[relative] = node
        }
    }

    var description: String { nodes.keys.sorted().joined(separator: "\n") }

    /// The first differences, for a failure message.
    func differences(from other: TreeSnapshot) -> [String] {
        var out: [String] = []
        for path in Set(nodes.keys).union(other.nodes.keys).sorted() where nodes[path] != other.nodes[path] {
            let a = nodes[path], b = other.nodes[path]
            out.append("\(path): \(a.map { "type \(String($0.type, radix: 8)) mode \(String($0.mode, radix: 8)) link \($0.link ?? "-") \($0.bytes?.count ?? -1) B" } ?? "missing")"
                       + " vs \(b.map { "type \(String($0.type, radix: 8)) mode \(String($0.mode, radix: 8)) link \($0.link ?? "-") \($0.bytes?.count ?? -1) B" } ?? "missing")")
            if out.count == 10 { break }
        }
        return out
    }
}

struct TreeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
