/// A JSON array of strings as UTF-8 bytes (RFC 8259): each string quoted, with a quotation
/// mark, a reverse solidus and every control character escaped; any other byte as it is.
enum JSONStringArray {
    /// Replaces `out`'s contents with the array of `strings`.
    static func encode(_ strings: [String], into out: inout [UInt8]) {
        encode(strings, 0..<strings.count, into: &out)
    }

    /// Replaces `out`'s contents with the array of the texts at `range`.
    static func encode(_ texts: some BoundTexts, _ range: Range<Int>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.append(UInt8(ascii: "["))
        for i in range {
            if i > range.lowerBound { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            texts.withText(i) { bytes in
                guard bytes.contains(where: needsEscape) else { return out.append(contentsOf: bytes) }
                for byte in bytes {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                        out.append(UInt8(ascii: "\\"))
                        out.append(byte)
                    } else if byte < 0x20 {
                        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                                hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                    } else {
                        out.append(byte)
                    }
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
