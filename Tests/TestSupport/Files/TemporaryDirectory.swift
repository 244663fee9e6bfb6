import Foundation

/// A fresh directory under $TMPDIR for one test, removed with everything in it when the value
/// goes away (or earlier, by `remove()`). The one temporary-folder helper of the test targets.
///
/// The value must outlive every use of its path: keep it in scope until the test is done with the
/// folder (`defer { directory.remove() }` does that and cleans up at once).
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    /// `label` starts the folder's name, to tell whose folder it is when one is left behind.
    public init(_ label: String = "test") throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        let safe = label.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        path = (base as NSString).appendingPathComponent("\(safe)-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// Removes the folder and everything in it now.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
        // Foundation gives up on a tree deeper than the kernel's 4096-byte path limit (the
        // pack-path limit tests make one); rm walks it folder by folder.
        if FileManager.default.fileExists(atPath: path) {
            let rm = Process()
            rm.executableURL = URL(fileURLWithPath: "/bin/rm")
            rm.arguments = ["-rf", "--", path]
            try? rm.run()
            rm.waitUntilExit()
        }
    }

    /// The absolute path of `relative` inside the folder.
    public func file(_ relative: String) -> String { (path as NSString).appendingPathComponent(relative) }

    /// Writes `bytes` at `relative`, creating folders, with permission bits `mode` when given;
    /// returns the absolute path.
    @discardableResult
    public func write(_ relative: String, _ bytes: [UInt8], mode: Int? = nil) throws -> String {
        let full = file(relative)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        if let mode { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: full) }
        return full
    }

    /// Writes `text` (UTF-8) at `relative`, as `write(_:_:mode:)` writes bytes.
    @discardableResult
    public func write(_ relative: String, _ text: String, mode: Int? = nil) throws -> String {
        try write(relative, Array(text.utf8), mode: mode)
    }

    /// The bytes of `relative`, nil when there is no such file.
    public func contents(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: file(relative)).map { [UInt8]($0) }
    }

    /// The text (UTF-8) of `relative`, nil when there is no such file.
    public func text(_ relative: String) -> String? {
        contents(relative).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether anything is at `relative`.
    public func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: file(relative)) }
}

/// The bytes of the file at `path` (empty when there is none).
public func readFile(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }
