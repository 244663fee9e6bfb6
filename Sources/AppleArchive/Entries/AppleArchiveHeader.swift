/// One AA01 entry header decoded and checked (docs/FORMAT.md, "Apple Archive"): `AA01` (or
/// `YAA1`), a u16 little-endian size counting the whole header, then fields of a 3-letter key
/// and a subtype letter until the size is used up. The blobs the header announces (`DAT`, `XAT`,
/// ...) follow it in field order and are not part of it. Every rule is a guard whose error names
/// the entry and the offset in the AA01 stream.
struct AppleArchiveHeader {
    /// A blob announced by the header: its key and size, in field order.
    struct Blob {
        let key: String
        let size: UInt64
    }

    var entry: AppleArchiveEntry
    var blobs: [Blob]

    static let fixedSize = 6
    static let magics: [[UInt8]] = [Array("AA01".utf8), Array("YAA1".utf8)]

    /// The keys this reader knows, with the subtypes each may have. A known key with another
    /// subtype is an error (the writer meant something else by it); an unknown key is skipped.
    static let knownKeys: [String: Set<UInt8>] = {
        let integer = Set("1248".utf8), time = Set("ST".utf8), blob = Set("ABC".utf8), string: Set<UInt8> = [UInt8(ascii: "P")]
        var keys: [String: Set<UInt8>] = ["TYP": integer, "PAT": string, "LNK": string, "UIN": string, "GIN": string,
                                          "MTM": time, "CTM": time, "BTM": time,
                                          "CKS": Set("F".utf8), "SH1": Set("G".utf8), "SH2": Set("H".utf8), "SH3": Set("I".utf8), "SH5": Set("J".utf8)]
        for k in ["UID", "GID", "MOD", "FLG", "INO", "NLK", "DEV", "SIZ", "HLC", "CLC", "SLC", "IDX", "IDZ", "AFT", "AFR", "DUZ"] { keys[k] = integer }
        for k in ["DAT", "XAT", "ACL", "YAF"] { keys[k] = blob }
        return keys
    }()

    /// The size of a field's value for `subtype`, nil for a subtype that does not exist (a string's
    /// size is its u16 length plus 2, read separately).
    static func valueSize(_ subtype: UInt8) -> Int? {
        switch subtype {
        case UInt8(ascii: "*"): 0
        case UInt8(ascii: "1"): 1
        case UInt8(ascii: "2"), UInt8(ascii: "A"): 2
        case UInt8(ascii: "4"), UInt8(ascii: "B"), UInt8(ascii: "F"): 4
        case UInt8(ascii: "8"), UInt8(ascii: "C"), UInt8(ascii: "S"): 8
        case UInt8(ascii: "T"): 12
        case UInt8(ascii: "G"): 20
        case UInt8(ascii: "H"): 32
        case UInt8(ascii: "I"): 48
        case UInt8(ascii: "J"): 64
        default: nil
        }
    }

    /// Decodes the header `bytes` (the whole header, its size already checked against the
    /// bytes read) of entry `index`, which starts at `offset` in the AA01 stream.
    static func decode(_ bytes: [UInt8], index: Int, offset: UInt64) throws(AppleArchiveError) -> AppleArchiveHeader {
        var typeLetter: UInt8?
        var path: String?
        var entry = AppleArchiveEntry(index: index, offset: offset, type: .file, path: "", size: 0, hasData: false, unexpectedKeys: [])
        var blobs: [Blob] = []
        var seen: [UInt32] = []
        var declaredSize: UInt64?
        var at = fixedSize
        func region() -> String { AppleArchiveEntry.region(index, path) }
        func fail(_ p: Int, _ reason: String) -> AppleArchiveError { .malformed(region(), at: offset + UInt64(p), reason) }
        func le(_ p: Int, _ n: Int) -> UInt64 { (0..<n).reversed().reduce(0) { $0 << 8 | UInt64(bytes[p + $1]) } }

        while at < bytes.count {
            guard bytes.count - at >= 4 else { throw fail(at, "a field starts \(bytes.count - at) bytes before the header's end (a key and subtype take 4)") }
            let keyBytes = bytes[at..<at + 3]
            let subtype = bytes[at + 3]
            let key = String(decoding: keyBytes, as: UTF8.self)
            let fieldAt = at
            func name() -> String { "\(key)\(Character(Unicode.Scalar(subtype)))" }
            guard keyBytes.allSatisfy({ (0x21...0x7e).contains($0) }) else { throw fail(at, "a field key is not three printable letters") }
            at += 4
            // The value's size: fixed by the subtype, or a string's u16 length.
            let size: Int
            if subtype == UInt8(ascii: "P") {
                guard bytes.count - at >= 2 else { throw fail(fieldAt, "field \(name()): the string length runs past the header's end") }
                size = Int(le(at, 2))
                at += 2
            } else if let fixed = valueSize(subtype) {
                size = fixed
            } else {
                throw fail(fieldAt, "field \(key) has subtype '\(Character(Unicode.Scalar(subtype)))', which does not exist (its size is unknown)")
            }
            guard bytes.count - at >= size else {
                throw fail(fieldAt, "field \(name()) needs \(size) bytes but the header ends \(bytes.count - at) bytes later (the header size lies)")
            }
            let code = UInt32(bytes[fieldAt]) << 16 | UInt32(bytes[fieldAt + 1]) << 8 | UInt32(bytes[fieldAt + 2])
            guard !seen.contains(code) else { throw fail(fieldAt, "field \(key) appears twice") }
            seen.append(code)
            let valueAt = at
            at += size
            guard let subtypes = knownKeys[key] else {
                entry.unexpectedKeys.append(name())
                if (UInt8(ascii: "A")...UInt8(ascii: "C")).contains(subtype) { blobs.append(Blob(key: key, size: le(valueAt, size))) }
                continue
            }
            guard subtypes.contains(subtype) else {
                let allowed = subtypes.sorted().map { String(Character(Unicode.Scalar($0))) }.joined(separator: ", ")
                throw fail(fieldAt, "field \(key) has subtype '\(Character(Unicode.Scalar(subtype)))'; it takes \(allowed)")
            }
            func text() throws(AppleArchiveError) -> String {
                let raw = Array(bytes[valueAt..<valueAt + size])
                guard !raw.contains(0), let s = String(validating: raw, as: UTF8.self) else {
                    throw fail(fieldAt, "field \(name()) is not UTF-8 text without NUL bytes")
                }
                return s
            }
            let value = size <= 8 ? le(valueAt, size) : 0
            switch key {
            case "TYP": typeLetter = UInt8(truncatingIfNeeded: value)
                guard value <= 0x7f else { throw fail(fieldAt, "TYP \(value) is not a type letter") }
            case "PAT": path = try text()
            case "LNK": entry.linkTarget = try text()
            case "UID": entry.uid = value
            case "GID": entry.gid = value
            case "MOD": entry.mode = UInt16(value & 0o7777)
            case "FLG": entry.flags = value
            case "SIZ": declaredSize = value
            case "MTM", "CTM":
                let time = AppleArchiveEntry.Time(seconds: Int64(bitPattern: le(valueAt, 8)), nanoseconds: size == 12 ? UInt32(le(valueAt + 8, 4)) : 0)
                guard time.nanoseconds < 1_000_000_000 else { throw fail(fieldAt, "field \(name()) has \(time.nanoseconds) nanoseconds (at most 999,999,999)") }
                if key == "MTM" { entry.modificationTime = time } else { entry.creationTime = time }
            case "SH2": entry.sha256 = Array(bytes[valueAt..<valueAt + size])
            case "DAT", "XAT", "ACL", "YAF":
                blobs.append(Blob(key: key, size: value))
                if key == "DAT" { entry.size = value; entry.hasData = true }
                if key == "XAT" { entry.extendedAttributesSize = value }
            default: break // known, not used: read past by its size
            }
        }
        guard let typeLetter else { throw fail(0, "the header has no TYP field (entry type)") }
        guard let path else { throw fail(0, "the header has no PAT field (path)") }
        entry.type = AppleArchiveEntry.EntryType(letter: typeLetter)
        entry.path = path
        try checkPath(path, entry: entry, offset: offset)
        if entry.type == .symbolicLink {
            guard let target = entry.linkTarget, !target.isEmpty else { throw fail(0, "a symlink without a target (LNK)") }
        }
        if entry.hasData, entry.type != .file, entry.type != .metadata {
            throw fail(0, "a \(entry.type) carries file data (DAT); only files do")
        }
        if let declaredSize, declaredSize != entry.size {
            throw fail(0, "SIZ says \(declaredSize) bytes but the data (DAT) holds \(entry.size)")
        }
        return AppleArchiveHeader(entry: entry, blobs: blobs)
    }

    /// A path is relative, `/`-separated, with no empty, `.` or `..` component; empty only for
    /// the archive's root folder.
    static func checkPath(_ path: String, entry: AppleArchiveEntry, offset: UInt64) throws(AppleArchiveError) {
        let region = AppleArchiveEntry.region(entry.index, path)
        if path.isEmpty {
            guard entry.type == .directory else { throw .malformed(region, at: offset, "an empty path (PAT) on a \(entry.type); only the root folder has one") }
            return
        }
        guard !path.hasPrefix("/") else { throw .malformed(region, at: offset, "an absolute path (refused: entries stay inside the output)") }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) where part.isEmpty || part == "." || part == ".." {
            throw .malformed(region, at: offset, "the path has \(part.isEmpty ? "an empty" : "a '\(part)'") component (refused: entries stay inside the output)")
        }
    }
}
