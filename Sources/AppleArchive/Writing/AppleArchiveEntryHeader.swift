import AssetPackFormat

/// The AA01 header this writer emits before an entry (docs/FORMAT.md "Apple Archive written"):
/// the fields Apple's own tools write, in their order — `TYP1 PATP [LNKP] UID2 GID1 MOD2 FLG1
/// CTMS MTMS [DATA|DATB|DATC]` — with the integers little-endian. The data blob's bytes follow
/// the header and are not counted in its size.
///
/// Only what the tree says is taken from the source: the type, the path, the link target, the
/// permission bits and the size. Owner, group, flags and both times are fixed (0), so the same
/// files give the same bytes wherever and whenever they were checked out: a checkout's times
/// are the time of the checkout, its owner the user who made it, and neither is part of an
/// asset pack (a device extracts the files as its own user and never reads them back).
public struct AppleArchiveEntryHeader: Sendable, Equatable {
    /// The entry types this writer emits (`TYP` values).
    public enum Kind: UInt8, Sendable {
        case file = 0x46 // F
        case directory = 0x44 // D
        case symbolicLink = 0x4C // L
    }

    public var kind: Kind
    /// Relative, `/`-separated.
    public var path: String
    /// The target of a symbolic link.
    public var linkTarget: String?
    /// Permission bits (the low 12 bits of the mode).
    public var mode: UInt16
    /// The size of the file's data blob (files only).
    public var dataSize: UInt64

    public init(kind: Kind, path: String, linkTarget: String? = nil, mode: UInt16, dataSize: UInt64 = 0) {
        self.kind = kind
        self.path = path
        self.linkTarget = linkTarget
        self.mode = mode & 0o7777
        self.dataSize = dataSize
    }

    /// The owner, group, flags and times every entry carries (see the type's comment).
    public static let userID: UInt16 = 0
    public static let groupID: UInt8 = 0
    public static let flags: UInt8 = 0
    public static let time: Int64 = 0

    /// The header bytes. Throws when a path or link target does not fit a `P` field (65,535
    /// bytes) or the header its 16-bit size.
    public func encoded() throws(PackWriteError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + path.utf8.count + (linkTarget?.utf8.count ?? 0))
        out += Array("AA01".utf8)
        out += [0, 0] // the header size, set below
        field(&out, "TYP1")
        out.append(kind.rawValue)
        try string(&out, "PATP", path)
        if let linkTarget { try string(&out, "LNKP", linkTarget) }
        field(&out, "UID2")
        little(&out, UInt64(Self.userID), 2)
        field(&out, "GID1")
        out.append(Self.groupID)
        field(&out, "MOD2")
        little(&out, UInt64(mode), 2)
        field(&out, "FLG1")
        out.append(Self.flags)
        field(&out, "CTMS")
        little(&out, UInt64(bitPattern: Self.time), 8)
        field(&out, "MTMS")
        little(&out, UInt64(bitPattern: Self.time), 8)
        if kind == .file {
            // The narrowest blob width that holds the size, as Apple's tools choose it.
            switch dataSize {
            case ..<(1 << 16): field(&out, "DATA"); little(&out, dataSize, 2)
            case ..<(1 << 32): field(&out, "DATB"); little(&out, dataSize, 4)
            default: field(&out, "DATC"); little(&out, dataSize, 8)
            }
        }
        guard out.count <= Int(UInt16.max) else {
            throw .tooLarge("\(path): an Apple Archive header holds at most 65535 bytes, this entry needs \(out.count)")
        }
        out[4] = UInt8(out.count & 0xFF)
        out[5] = UInt8(out.count >> 8)
        return out
    }

    private func field(_ out: inout [UInt8], _ keyAndSubtype: StaticString) {
        keyAndSubtype.withUTF8Buffer { out += $0 }
    }

    private func little(_ out: inout [UInt8], _ value: UInt64, _ width: Int) {
        for i in 0..<width { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    private func string(_ out: inout [UInt8], _ key: StaticString, _ value: String) throws(PackWriteError) {
        let bytes = Array(value.utf8)
        guard bytes.count <= Int(UInt16.max) else {
            throw .tooLarge("\(path): \(key) holds at most 65535 bytes, got \(bytes.count)")
        }
        field(&out, key)
        little(&out, UInt64(bytes.count), 2)
        out += bytes
    }
}
