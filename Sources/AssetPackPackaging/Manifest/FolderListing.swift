import AssetPackFormat
import Foundation

/// The names in one folder, read with `readdir` into one buffer and sorted in pack order
/// (byte-wise, as `PackPath.precedes` orders them) without a `String` a name: the walk of a
/// hundred thousand files builds strings only for the paths it selects, and sorting moves
/// plain offsets instead of reference-counted strings.
///
/// A name that is not valid UTF-8 is not listed with the others (no pack path can hold it): its
/// bytes are kept in `invalidNames`, for the walk to refuse by name.
final class FolderListing: @unchecked Sendable {
    private struct Name {
        var offset: Int
        var length: Int
        /// Whether the name holds a control character (which no pack path may).
        var hasControl: Bool
        /// Whether the name is ASCII without capitals, so that case folding leaves it as it is.
        var foldsToItself: Bool
    }

    /// The names end to end, each followed by a NUL, so that each can go to `fstatat` as it is.
    private var bytes: UnsafeMutablePointer<UInt8>
    private var capacity = 16 << 10
    private var used = 0
    /// Where each name lies in `bytes`, in pack order.
    private var names: [Name] = []

    /// The `errno` of a `readdir` that failed, or 0.
    private(set) var failure: Int32 = 0
    /// The names that are not valid UTF-8, as their bytes, in byte order.
    private(set) var invalidNames: [[UInt8]] = []

    /// Lists `directory` (every entry but `.` and `..`) and sorts the names.
    init(_ directory: OpaquePointer) {
        bytes = .allocate(capacity: capacity)
        errno = 0
        while let entry = readdir(directory) {
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                let length = strlen(name)
                let dots = name[0] == 0x2E && (length == 1 || (length == 2 && name[1] == 0x2E))
                if !dots { add(UnsafeRawBufferPointer(start: name, count: length)) }
            }
        }
        failure = errno
        invalidNames.sort { $0.lexicographicallyPrecedes($1) }
        let base = bytes
        names.sort { a, b in
            let order = memcmp(base + a.offset, base + b.offset, min(a.length, b.length))
            return order < 0 || (order == 0 && a.length < b.length)
        }
    }

    deinit { bytes.deallocate() }

    private func add(_ name: UnsafeRawBufferPointer) {
        if name.contains(where: { $0 >= 0x80 }), String(validating: name, as: UTF8.self) == nil {
            invalidNames.append(Array(name))
            return
        }
        if used + name.count + 1 > capacity {
            capacity = max(capacity * 2, used + name.count + 1)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            larger.update(from: bytes, count: used)
            bytes.deallocate()
            bytes = larger
        }
        UnsafeMutableRawPointer(bytes + used).copyMemory(from: name.baseAddress!, byteCount: name.count)
        bytes[used + name.count] = 0
        var control = false, folds = true
        for byte in name {
            if byte < 0x20 || byte == 0x7F { control = true }
            if byte >= 0x80 || (byte >= 0x41 && byte <= 0x5A) { folds = false }
        }
        names.append(Name(offset: used, length: name.count, hasControl: control, foldsToItself: folds))
        used += name.count + 1
    }

    var count: Int { names.count }

    /// The bytes the names take, a NUL after each.
    var byteCount: Int { used }

    /// The length of name `i` in bytes.
    func length(_ i: Int) -> Int { names[i].length }

    /// `bytes` for a message: printable ASCII as it is (but `\`), every other byte as `\xHH`.
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { (0x20..<0x7F).contains($0) && $0 != 0x5C ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined()
    }

    /// Name `i`, NUL-terminated, valid while the listing is.
    func cName(_ i: Int) -> UnsafePointer<CChar> {
        UnsafeRawPointer(bytes + names[i].offset).assumingMemoryBound(to: CChar.self)
    }

    /// Whether name `i` holds a control character.
    func hasControl(_ i: Int) -> Bool { names[i].hasControl }

    /// Whether name `i` is ASCII without capitals (case folding leaves it as it is).
    func foldsToItself(_ i: Int) -> Bool { names[i].foldsToItself }

    /// Whether name `a` comes before name `b` in pack order, a folder's name followed by a slash.
    func precedes(_ a: Int, asFolder aIsFolder: Bool, _ b: Int, asFolder bIsFolder: Bool) -> Bool {
        let x = names[a], y = names[b]
        let order = memcmp(bytes + x.offset, bytes + y.offset, min(x.length, y.length))
        if order != 0 { return order < 0 }
        // One name is the other's beginning: the next byte decides, a folder's being a slash.
        let xNext: Int = x.length > y.length ? Int(bytes[x.offset + y.length]) : aIsFolder ? 0x2F : -1
        let yNext: Int = y.length > x.length ? Int(bytes[y.offset + x.length]) : bIsFolder ? 0x2F : -1
        return xNext < yNext
    }

    /// Name `i` as a string.
    func name(_ i: Int) -> String { path(i, under: "") }

    /// `prefix + "/" + name`, or the name alone when `prefix` is empty, built in one allocation.
    func path(_ i: Int, under prefix: String) -> String {
        SourceFolder.joined(prefix, UnsafeBufferPointer(start: bytes + names[i].offset, count: names[i].length))
    }
}
