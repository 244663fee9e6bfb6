import Foundation

/// A file in the pack: its bytes are the next `size` bytes of the pack's content stream.
///
/// A decoded index holds every file at once (an update holds two), so an entry takes 24 bytes
/// and no string of its own: its path lies in a `PathBuffer` shared with the other paths of its
/// table, and `path` puts the string together when asked for. `withPathBytes` and
/// `comparePath` read the bytes in place.
public struct FileEntry: Sendable, Equatable {
    private var buffer: PathBuffer
    private var start: UInt32
    private var length: UInt16
    private var storedMode: UInt16
    public var size: UInt64

    package init(path: String, mode: UInt32, size: UInt64) {
        (buffer, start, length) = PathBuffer.holding(path)
        storedMode = Self.checked(mode)
        self.size = size
    }

    /// The entry whose path is `length` bytes at `start` of `buffer`.
    init(in buffer: PathBuffer, start: UInt32, length: UInt16, mode: UInt32, size: UInt64) {
        self.buffer = buffer
        self.start = start
        self.length = length
        storedMode = Self.checked(mode)
        self.size = size
    }

    /// Modes are permission bits; a decoded table holds no more than 0o777.
    private static func checked(_ mode: UInt32) -> UInt16 {
        precondition(mode <= UInt32(UInt16.max), "file mode \(String(mode, radix: 8)) is more than permission and type bits")
        return UInt16(mode)
    }

    /// Its path inside the pack.
    public package(set) var path: String {
        get { withPathBytes { String(decoding: $0, as: UTF8.self) } }
        set { (buffer, start, length) = PathBuffer.holding(newValue) }
    }

    /// Permission bits (at most 0o777).
    public package(set) var mode: UInt32 {
        get { UInt32(storedMode) }
        set { storedMode = Self.checked(newValue) }
    }

    /// Calls `body` with the UTF-8 bytes of `path`, in place.
    public func withPathBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: buffer.base + Int(start), count: Int(length)))
    }

    /// Byte-wise order of the paths (`PackPath.precedes`): negative when this entry's path comes
    /// first, 0 when they are equal.
    public func comparePath(to other: FileEntry) -> Int {
        withPathBytes { a in other.withPathBytes { b in PackPath.compare(a, b) } }
    }

    /// `comparePath` against a path given as a string.
    public func comparePath(to path: String) -> Int {
        var path = path
        return withPathBytes { a in path.withUTF8 { b in PackPath.compare(a, b) } }
    }

    /// Whether two entries' paths lie in the same buffer (a decoded table shares one for many).
    func sharesPathBuffer(with other: FileEntry) -> Bool { buffer === other.buffer }

    public static func == (a: FileEntry, b: FileEntry) -> Bool {
        a.size == b.size && a.storedMode == b.storedMode && a.comparePath(to: b) == 0
    }
}
