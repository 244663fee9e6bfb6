/// The four bytes that open each block of an LZFSE stream, read as a little-endian UInt32.
enum LZFSEBlockMagic: UInt32 {
    /// `bvx$`: end of stream, no payload.
    case endOfStream = 0x2478_7662
    /// `bvx-`: stored bytes.
    case stored = 0x2d78_7662
    /// `bvx1`: LZFSE with its frequency tables written out in full.
    case compressedV1 = 0x3178_7662
    /// `bvx2`: LZFSE with packed header fields and coded frequency tables.
    case compressedV2 = 0x3278_7662
    /// `bvxn`: LZVN.
    case lzvn = 0x6e78_7662

    /// The magic as its four ASCII characters.
    var name: String {
        switch self {
        case .endOfStream: "bvx$"
        case .stored: "bvx-"
        case .compressedV1: "bvx1"
        case .compressedV2: "bvx2"
        case .lzvn: "bvxn"
        }
    }

    /// How an unknown magic is named in errors: its bytes in hex, in stream order.
    static func describe(unknown value: UInt32) -> String {
        (0..<4).map { index in
            let byte = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index)))
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
