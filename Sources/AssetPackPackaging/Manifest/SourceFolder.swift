import Foundation

/// A folder on disk whose files a selection lists: its path, its pack path, and the names of the
/// files selected in it, end to end in one buffer (each followed by a NUL, so that it can go to
/// `openat` or `fstatat` as it is). The files (`SelectedFile`) hold their name's place here; the
/// buffer is sized once, from the folder's listing, and never moves.
///
/// The walk adds names while files added before are already read on other threads (a streaming
/// selection hands its files on as it goes): a name is written once, before the file that names
/// it is handed on, and not written again.
public final class SourceFolder: @unchecked Sendable {
    public let path: String
    /// The folder's path inside the pack; empty for the top of the source root.
    let packPrefix: String
    /// Where each name begins in `bytes`; a name ends where the next begins, less its NUL.
    private let starts: UnsafeMutablePointer<UInt32>
    private let bytes: UnsafeMutablePointer<UInt8>
    private let capacity: (names: Int, bytes: Int)
    private var count = 0
    private var used = 0

    /// A folder with room for `names` names of `bytes` bytes in all, their NULs included.
    init(_ path: String, packPrefix: String, names: Int, bytes: Int) {
        self.path = path
        self.packPrefix = packPrefix
        capacity = (names, bytes)
        starts = .allocate(capacity: names + 1)
        starts[0] = 0
        self.bytes = .allocate(capacity: max(bytes, 1))
    }

    deinit {
        starts.deallocate()
        bytes.deallocate()
    }

    /// Adds a name of `length` bytes (without a slash or a NUL) and returns its place.
    func add(_ name: UnsafePointer<CChar>, length: Int) -> UInt32 {
        precondition(count < capacity.names && used + length + 1 <= capacity.bytes && used + length + 1 <= Int(UInt32.max),
                     "a folder's names outgrew its listing")
        UnsafeMutableRawPointer(bytes + used).copyMemory(from: name, byteCount: length)
        bytes[used + length] = 0
        used += length + 1
        count += 1
        starts[count] = UInt32(used)
        return UInt32(count - 1)
    }

    private func name(_ i: UInt32) -> UnsafeBufferPointer<UInt8> {
        let start = Int(starts[Int(i)])
        return UnsafeBufferPointer(start: bytes + start, count: Int(starts[Int(i) + 1]) - start - 1)
    }

    /// Name `i`, NUL-terminated.
    func cName(_ i: UInt32) -> UnsafePointer<CChar> {
        UnsafeRawPointer(bytes + Int(starts[Int(i)])).assumingMemoryBound(to: CChar.self)
    }

    /// `head + "/" + name` (or the name alone when `head` is empty), built in one allocation.
    static func joined(_ head: String, _ name: UnsafeBufferPointer<UInt8>) -> String {
        var head = head
        return head.withUTF8 { head in
            let total = head.isEmpty ? name.count : head.count + 1 + name.count
            return String(unsafeUninitializedCapacity: total) { out in
                var at = 0
                if !head.isEmpty {
                    _ = UnsafeMutableBufferPointer(rebasing: out[0..<head.count]).initialize(from: head)
                    out[head.count] = 0x2F
                    at = head.count + 1
                }
                _ = UnsafeMutableBufferPointer(rebasing: out[at..<total]).initialize(from: name)
                return total
            }
        }
    }

    /// The pack path of name `i`.
    func packPath(_ i: UInt32) -> String { Self.joined(packPrefix, name(i)) }

    /// The path on disk of name `i`.
    func sourcePath(_ i: UInt32) -> String {
        path == "/" ? "/" + String(decoding: name(i), as: UTF8.self) : Self.joined(path, name(i))
    }

    /// Calls `body` with the pack path of name `i`, put together on the stack.
    func withPackPath<R>(_ i: UInt32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let name = name(i)
        if packPrefix.isEmpty { return try body(name) }
        var prefix = packPrefix
        return try prefix.withUTF8 { head in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: head.count + 1 + name.count) { out in
                _ = UnsafeMutableBufferPointer(rebasing: out[0..<head.count]).initialize(from: head)
                out[head.count] = 0x2F
                _ = UnsafeMutableBufferPointer(rebasing: out[(head.count + 1)...]).initialize(from: name)
                return try body(UnsafeBufferPointer(out))
            }
        }
    }

    /// Appends the path on disk of name `i` to `bytes`.
    func appendSourcePath(_ i: UInt32, to bytes: inout [UInt8]) {
        if path != "/" { bytes += path.utf8 }
        bytes.append(0x2F)
        bytes += name(i)
    }
}
