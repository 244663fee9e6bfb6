/// The request target exactly as it came off the wire, and the one rule applied to it before
/// anything else: no raw control bytes (0x00–0x1F, 0x7F). libmicrohttpd hands the target over as
/// a C string, so a raw NUL would otherwise cut `/catalog.json\0.pack` down to `/catalog.json`
/// and serve a file the client never named; the other control bytes have no business in a
/// path either (RFC 3986 allows none of them unencoded). Encoded ones (`%00`) are
/// RepositoryRoot's to judge.
struct RequestTargetBytes: Equatable {
    /// The target's bytes up to the first NUL (all of it if it has none).
    let prefix: [UInt8]
    /// Whether a NUL ended `prefix` before the target did.
    let endsAtNUL: Bool

    /// The first control byte and its offset, nil if the target is clean.
    var firstControlByte: (offset: Int, byte: UInt8)? {
        if let i = prefix.firstIndex(where: Self.isControl) { return (i, prefix[i]) }
        return endsAtNUL ? (prefix.count, 0) : nil
    }

    /// The reason for the 400, for the access log.
    var refusal: RequestRefusal? {
        firstControlByte.map { c in
            let hex = String(c.byte, radix: 16, uppercase: true)
            return RequestRefusal(400, "control byte 0x\(hex.count == 1 ? "0" + hex : hex) at offset \(c.offset) of the request target")
        }
    }

    static func isControl(_ b: UInt8) -> Bool { b < 0x20 || b == 0x7F }
}
