import Foundation

/// RFC 3339 timestamps as catalogs carry them: written in UTC to the second
/// (`2025-06-01T12:00:00Z`); read with `Z` or a numeric offset, with or without fractions, and
/// only in RFC 3339's exact shape (four-digit year, two digits for every other field; Foundation's
/// parser alone also takes `0-2-8T1:5:6Z`).
public enum RFC3339 {
    public static func string(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    public static func date(_ text: String) -> Date? {
        guard hasDateTimeShape(Array(text.utf8)) else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)
    }

    /// `YYYY-MM-DDTHH:MM:SS`, then optionally `.` and one or more digits, then `Z` or `±HH:MM`
    /// (RFC 3339, section 5.6, with upper-case `T` and `Z` as catalogs write them).
    static func hasDateTimeShape(_ b: [UInt8]) -> Bool {
        func digits(_ r: Range<Int>) -> Bool { r.upperBound <= b.count && b[r].allSatisfy { (0x30...0x39).contains($0) } }
        func byte(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
        guard digits(0..<4), byte(4, "-"), digits(5..<7), byte(7, "-"), digits(8..<10), byte(10, "T"),
              digits(11..<13), byte(13, ":"), digits(14..<16), byte(16, ":"), digits(17..<19) else { return false }
        var i = 19
        if byte(i, ".") {
            i += 1
            let start = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > start else { return false }
        }
        if byte(i, "Z") { return i + 1 == b.count }
        guard byte(i, "+") || byte(i, "-") else { return false }
        return b.count == i + 6 && digits(i + 1..<i + 3) && byte(i + 3, ":") && digits(i + 4..<i + 6)
    }

    /// For `JSONDecoder`: a time in RFC 3339's exact shape (above), or a decoding error that
    /// shows the text found.
    public static var decodingStrategy: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = RFC3339.date(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected an RFC 3339 time such as 2025-06-01T12:00:00Z, found \"\(text.prefix(40))\"")
            }
            return date
        }
    }
}
