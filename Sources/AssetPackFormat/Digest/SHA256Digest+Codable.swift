/// A digest in JSON is its 64 lowercase hex digits.
extension SHA256Digest: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let d = SHA256Digest(hex: text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected 64 hex digits (a SHA-256 digest), found \"\(text.prefix(70))\"")
        }
        self = d
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}
