import AssetPackFormat
import Foundation

/// A file chosen by a manifest: where it is on disk and what it is called inside the pack.
///
/// A publish holds every selected file at once, so a file takes 24 bytes here and no string of
/// its own: a file listed in a folder is its name's place in that folder (`SourceFolder`, which
/// holds the folder's pack path and its files' names once each), and its paths are put together
/// when asked for. Only a file selected by a path of its own (a link, a file selector, a file
/// given by a library caller) holds its two paths.
public struct SelectedFile: Sendable, Equatable {
    public var size: UInt64
    /// Permission bits (0o7777 mask).
    public var mode: UInt32
    /// The file's name's place in its `SourceFolder`; 0 for a file with paths of its own.
    private let name: UInt32
    private let source: Source

    private enum Source: Sendable {
        case paths(OwnPaths)
        case inFolder(SourceFolder)
    }

    private final class OwnPaths: Sendable {
        let packPath: String
        let sourcePath: String

        init(packPath: String, sourcePath: String) {
            self.packPath = packPath
            self.sourcePath = sourcePath
        }
    }

    public init(packPath: String, sourcePath: String, size: UInt64, mode: UInt32) {
        self.size = size
        self.mode = mode
        name = 0
        source = .paths(OwnPaths(packPath: packPath, sourcePath: sourcePath))
    }

    /// The file named by name `name` of `folder`.
    init(name: UInt32, in folder: SourceFolder, size: UInt64, mode: UInt32) {
        self.size = size
        self.mode = mode
        self.name = name
        source = .inFolder(folder)
    }

    /// Its path inside the pack.
    public var packPath: String {
        switch source {
        case .paths(let own): own.packPath
        case .inFolder(let folder): folder.packPath(name)
        }
    }

    /// Where the file is on disk.
    public var sourcePath: String {
        switch source {
        case .paths(let own): own.sourcePath
        case .inFolder(let folder): folder.sourcePath(name)
        }
    }

    /// Calls `body` with the UTF-8 bytes of `packPath`, without a string for a listed file's.
    public func withPackPath<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch source {
        case .paths(let own):
            var path = own.packPath
            return try path.withUTF8(body)
        case .inFolder(let folder): return try folder.withPackPath(name, body)
        }
    }

    /// The folder the file was listed in, shared with the other files listed there; nil for a
    /// file with paths of its own.
    public var sourceFolder: SourceFolder? {
        if case .inFolder(let folder) = source { folder } else { nil }
    }

    /// Calls `body` with the file's name in `sourceFolder`, NUL-terminated, or with its whole
    /// `sourcePath` when it has no folder.
    public func withSourceName<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        switch source {
        case .paths(let own): try own.sourcePath.withCString(body)
        case .inFolder(let folder): try body(folder.cName(name))
        }
    }

    /// Appends the bytes of `sourcePath` to `bytes`, without a string for the path.
    public func appendSourcePath(to bytes: inout [UInt8]) {
        switch source {
        case .paths(let own): bytes += own.sourcePath.utf8
        case .inFolder(let folder): folder.appendSourcePath(name, to: &bytes)
        }
    }

    /// Whether `a`'s pack path comes before `b`'s (`PackPath.precedes`), compared in place.
    public static func precedes(_ a: SelectedFile, _ b: SelectedFile) -> Bool {
        a.withPackPath { x in b.withPackPath { y in PackPath.compare(x, y) < 0 } }
    }

    public static func == (a: SelectedFile, b: SelectedFile) -> Bool {
        a.size == b.size && a.mode == b.mode && a.packPath == b.packPath && a.sourcePath == b.sourcePath
    }
}
