import Foundation

/// A file in the pack: its bytes are the next `size` bytes of the pack's content stream.
///
/// An entry is a value on its own, made when asked for: a decoded index keeps its files in a
/// `PackFiles`, which holds the paths front-coded and hands out entries one at a time.
public struct FileEntry: Sendable, Equatable {
    /// Its path inside the pack.
    public package(set) var path: String
    private var storedMode: UInt16
    public var size: UInt64

    package init(path: String, mode: UInt32, size: UInt64) {
        self.path = path
        storedMode = Self.checked(mode)
        self.size = size
    }

    /// The entry whose path is the UTF-8 `pathBytes`.
    init(pathBytes: UnsafeBufferPointer<UInt8>, mode: UInt32, size: UInt64) {
        self.init(path: String(decoding: pathBytes, as: UTF8.self), mode: mode, size: size)
    }

    /// Modes are permission bits; a decoded table holds no more than 0o777.
    private static func checked(_ mode: UInt32) -> UInt16 {
        precondition(mode <= UInt32(UInt16.max), "file mode \(String(mode, radix: 8)) is more than permission and type bits")
        return UInt16(mode)
    }

    /// Permission bits (at most 0o777).
    public package(set) var mode: UInt32 {
        get { UInt32(storedMode) }
        set { storedMode = Self.checked(newValue) }
    }

    /// Calls `body` with the UTF-8 bytes of `path`, in place.
    public func withPathBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        var path = path
        return try path.withUTF8 { bytes in Result { () throws(E) -> R in try body(bytes) } }.get()
    }

    /// Byte-wise order of the paths (`PackPath.precedes`): negative when this entry's path comes
    /// first, 0 when they are equal.
    public func comparePath(to other: FileEntry) -> Int {
        comparePath(to: other.path)
    }

    /// `comparePath` against a path given as a string.
    public func comparePath(to path: String) -> Int {
        var mine = self.path, other = path
        return mine.withUTF8 { a in other.withUTF8 { b in PackPath.compare(a, b) } }
    }

    public static func == (a: FileEntry, b: FileEntry) -> Bool {
        // Byte-wise: `String`'s `==` would equate canonically equivalent paths.
        a.size == b.size && a.storedMode == b.storedMode && a.comparePath(to: b) == 0
    }
}
