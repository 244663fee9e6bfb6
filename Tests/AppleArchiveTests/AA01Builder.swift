/// Writes AA01 streams field by field for tests, hostile ones included: the header size is
/// computed unless a test gives a false one.
struct AA01Builder {
    var bytes: [UInt8] = []

    static func key(_ key: String, _ subtype: Character) -> [UInt8] { Array(key.utf8) + [UInt8(subtype.asciiValue!)] }

    static func le(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

    static func uint(_ name: String, _ value: UInt64, width: Int = 1) -> [UInt8] {
        key(name, Character(String(width))) + le(value, width)
    }

    static func string(_ name: String, _ text: String) -> [UInt8] { key(name, "P") + le(UInt64(text.utf8.count), 2) + Array(text.utf8) }

    static func blob(_ name: String, size: UInt64, subtype: Character = "B") -> [UInt8] {
        key(name, subtype) + le(size, subtype == "A" ? 2 : subtype == "B" ? 4 : 8)
    }

    static func time(_ name: String, seconds: Int64) -> [UInt8] { key(name, "S") + le(UInt64(bitPattern: seconds), 8) }

    /// Appends a header of `fields` (its size counted, or `size` when given) and `blobs` after it.
    mutating func entry(_ fields: [[UInt8]], blobs: [[UInt8]] = [], size: Int? = nil, magic: String = "AA01") {
        let body = fields.flatMap { $0 }
        bytes += Array(magic.utf8) + Self.le(UInt64(size ?? body.count + 6), 2) + body
        for b in blobs { bytes += b }
    }

    mutating func file(_ path: String, _ data: [UInt8], mode: UInt64 = 0o644, extra: [[UInt8]] = []) {
        entry([Self.uint("TYP", UInt64(UInt8(ascii: "F"))), Self.string("PAT", path), Self.uint("MOD", mode, width: 2)] + extra
              + [Self.blob("DAT", size: UInt64(data.count))], blobs: [data])
    }

    mutating func directory(_ path: String, mode: UInt64 = 0o755) {
        entry([Self.uint("TYP", UInt64(UInt8(ascii: "D"))), Self.string("PAT", path), Self.uint("MOD", mode, width: 2)])
    }

    mutating func symlink(_ path: String, to target: String) {
        entry([Self.uint("TYP", UInt64(UInt8(ascii: "L"))), Self.string("PAT", path), Self.string("LNK", target), Self.uint("MOD", 0o755, width: 2)])
    }
}
