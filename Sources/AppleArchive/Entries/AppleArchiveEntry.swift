/// One entry of an Apple Archive as its header describes it (docs/FORMAT.md, "Apple Archive").
/// Fields the header does not carry are nil; `unexpectedKeys` lists the fields this reader does
/// not know (key and subtype, e.g. "ABCP"), which it skipped by their subtype's size.
public struct AppleArchiveEntry: Sendable, Equatable {
    /// The `TYP` field.
    public enum EntryType: Sendable, Equatable, CustomStringConvertible {
        case file, directory, symbolicLink, fifo, characterDevice, blockDevice, socket, whiteout, door, port, metadata
        /// A letter this reader does not know.
        case other(UInt8)

        public init(letter: UInt8) {
            self = switch letter {
            case UInt8(ascii: "F"): .file
            case UInt8(ascii: "D"): .directory
            case UInt8(ascii: "L"): .symbolicLink
            case UInt8(ascii: "P"): .fifo
            case UInt8(ascii: "C"): .characterDevice
            case UInt8(ascii: "B"): .blockDevice
            case UInt8(ascii: "S"): .socket
            case UInt8(ascii: "W"): .whiteout
            case UInt8(ascii: "R"): .door
            case UInt8(ascii: "T"): .port
            case UInt8(ascii: "M"): .metadata
            default: .other(letter)
            }
        }

        /// The `TYP` letter.
        public var letter: Character {
            switch self {
            case .file: "F"
            case .directory: "D"
            case .symbolicLink: "L"
            case .fifo: "P"
            case .characterDevice: "C"
            case .blockDevice: "B"
            case .socket: "S"
            case .whiteout: "W"
            case .door: "R"
            case .port: "T"
            case .metadata: "M"
            case .other(let l): Character(Unicode.Scalar(l))
            }
        }

        /// The word `aar list --json` prints.
        public var description: String {
            switch self {
            case .file: "file"
            case .directory: "directory"
            case .symbolicLink: "symlink"
            case .fifo: "fifo"
            case .characterDevice: "character-device"
            case .blockDevice: "block-device"
            case .socket: "socket"
            case .whiteout: "whiteout"
            case .door: "door"
            case .port: "port"
            case .metadata: "metadata"
            case .other(let l): "unknown-\(Character(Unicode.Scalar(l)))"
            }
        }
    }

    /// A time field: seconds since 1970 and, for subtype `T`, nanoseconds.
    public struct Time: Sendable, Equatable {
        public let seconds: Int64
        public let nanoseconds: UInt32
        public init(seconds: Int64, nanoseconds: UInt32 = 0) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }
    }

    /// The entry's number in the archive, from 0.
    public var index: Int
    /// Where its header starts in the AA01 stream.
    public var offset: UInt64
    public var type: EntryType
    /// The relative, `/`-separated path (`PAT`); empty for the archive's root folder.
    public var path: String
    /// The symlink's target (`LNK`).
    public var linkTarget: String?
    /// The permission bits (`MOD`, low 12 bits).
    public var mode: UInt16?
    public var uid: UInt64?
    public var gid: UInt64?
    /// BSD file flags (`FLG`).
    public var flags: UInt64?
    public var modificationTime: Time?
    public var creationTime: Time?
    /// The file data's size (`DAT` blob); 0 when the entry has none.
    public var size: UInt64
    /// Whether the entry carries a `DAT` blob.
    public var hasData: Bool
    /// The size of the `XAT` (extended attributes) blob, when there is one.
    public var extendedAttributesSize: UInt64?
    /// The SHA-256 of the data (`SH2`), checked when the data is read.
    public var sha256: [UInt8]?
    /// Fields this reader does not know, as key + subtype ("ABCP"), in header order.
    public var unexpectedKeys: [String]

    /// "entry N (path)", for messages.
    public var region: String { Self.region(index, path) }

    static func region(_ index: Int, _ path: String?) -> String {
        guard let path else { return "entry \(index)" }
        return "entry \(index) (\(path.isEmpty ? "the root folder" : path))"
    }
}
