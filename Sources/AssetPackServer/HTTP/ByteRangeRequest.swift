/// What a `Range` header asks of a representation of a known length (RFC 9110 §14), after the
/// server's limits: a Range header is a request the server may ignore (§14.2), and this one
/// ignores sets that would cost more than the file.
///
/// - More than `maximumRangeCount` range specs: the header is ignored (200, the whole file), as
///   nginx does past `max_ranges`.
/// - Satisfiable ranges whose sizes add up to more than the file (`bytes=0-,0-`, or many
///   overlapping ranges): ignored too, as nginx does; sending them would multiply the file.
/// - Otherwise overlapping and adjacent ranges are merged and the result is sorted, so no byte
///   is sent twice (§14.3 lets a server coalesce): `bytes=0-99,50-149` is one part, `0-149`.
public enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header: send the whole representation (absent, not `bytes=`, malformed,
    /// over the limits above).
    case whole
    /// One or more satisfiable ranges, clamped to the length, merged and in ascending order.
    case ranges([ClosedRange<UInt64>])
    /// Well-formed but no range overlaps the representation: 416.
    case unsatisfiable

    /// More range specs than this in one request are ignored (the whole file is sent), which
    /// keeps a client from making the server assemble many multipart parts.
    public static let maximumRangeCount = 16

    /// Parses `header` (the value of `Range`, or nil) against a representation of `length` bytes.
    public init(header: String?, length: UInt64) {
        guard let header else { self = .whole; return }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let specs = trimmed.dropFirst("bytes=".count).split(separator: ",", omittingEmptySubsequences: false)
            .map { Substring($0).trimmingSpaces }.filter { !$0.isEmpty }
        guard !specs.isEmpty, specs.count <= Self.maximumRangeCount else { self = .whole; return }
        var satisfiable: [ClosedRange<UInt64>] = []
        for spec in specs {
            guard let dash = spec.firstIndex(of: "-") else { self = .whole; return }
            let first = spec[..<dash], last = spec[spec.index(after: dash)...]
            if first.isEmpty {
                // Suffix range: the last N bytes.
                guard let n = UInt64(digits: last) else { self = .whole; return }
                if n > 0 && length > 0 { satisfiable.append((length - min(n, length))...(length - 1)) }
                continue
            }
            guard let start = UInt64(digits: first) else { self = .whole; return }
            var end = length == 0 ? 0 : length - 1
            if !last.isEmpty {
                guard let e = UInt64(digits: last), e >= start else { self = .whole; return }
                end = min(e, end)
            }
            if start < length { satisfiable.append(start...end) }
        }
        guard !satisfiable.isEmpty else { self = .unsatisfiable; return }
        // Sixteen ranges of a representation near 2^64 bytes (a sparse file) can overflow the
        // sum, so it stops as soon as it passes the length.
        var requested: UInt64 = 0
        for range in satisfiable {
            let (sum, overflow) = requested.addingReportingOverflow(range.count64)
            guard !overflow, sum <= length else { self = .whole; return }
            requested = sum
        }
        self = .ranges(coalesced(satisfiable))
    }
}

extension UInt64 {
    /// Parses ASCII digits only (no sign, no spaces), rejecting overflow.
    init?<S: StringProtocol>(digits: S) {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        self.init(digits, radix: 10)
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
