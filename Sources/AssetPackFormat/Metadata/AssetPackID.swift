/// The rules for `assetPackID`. Apple does not publish them; ours are the safe common subset of
/// file names, URL path segments and bundle identifiers: 1 to 128 ASCII letters, digits, `.`, `-`
/// and `_`, starting with a letter or digit.
public enum AssetPackID {
    public static let maximumLength = 128

    /// Why `id` is not a valid pack ID, or nil when it is.
    public static func problem(with id: String) -> String? {
        if id.isEmpty { return "must not be empty" }
        if id.utf8.count > maximumLength { return "is longer than \(maximumLength) characters" }
        for (i, b) in id.utf8.enumerated() {
            let alnum = (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
            if i == 0 && !alnum { return "must start with an ASCII letter or digit" }
            if !alnum && b != UInt8(ascii: ".") && b != UInt8(ascii: "-") && b != UInt8(ascii: "_") {
                return "may contain only ASCII letters, digits, '.', '-' and '_'"
            }
        }
        return nil
    }
}
