/// What a `Range` header asks of a representation of a known length (RFC 9110 §14).
public enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header: send the whole representation (absent, not `bytes=`, malformed,
    /// or more ranges than `maximumRangeCount` — servers may ignore Range, RFC 9110 §14.2).
    case whole
    /// One or more satisfiable ranges, in the order asked, clamped to the length.
    case ranges([ClosedRange<UInt64>])
    /// Well-formed but no range overlaps the representation: 416.
    case unsatisfiable

    /// More ranges than this in one request are ignored (the whole file is sent), which keeps a
    /// client from making the server assemble thousands of multipart parts.
    public static let maximumRangeCount = 64

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
        self = satisfiable.isEmpty ? .unsatisfiable : .ranges(satisfiable)
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
