/// A range of bytes in a resource, inclusive at both ends as in HTTP's `Range: bytes=first-last`;
/// `last == nil` means "to the end".
public struct ByteRange: Sendable, Equatable, CustomStringConvertible {
    public var first: UInt64
    public var last: UInt64?

    /// nil when `last < first`.
    public init?(first: UInt64, last: UInt64? = nil) {
        if let last, last < first { return nil }
        self.first = first
        self.last = last
    }

    /// The `length` bytes starting at `offset`; nil when `length` is 0 or the end overflows.
    public init?(offset: UInt64, length: UInt64) {
        guard length > 0 else { return nil }
        let (end, overflow) = offset.addingReportingOverflow(length - 1)
        guard !overflow else { return nil }
        self.init(first: offset, last: end)
    }

    /// Parses `a-b` or `a-` (the form `assetpack fetch --range` takes).
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = UInt64(parts[0]) else { return nil }
        if parts[1].isEmpty { self.init(first: first) } else {
            guard let last = UInt64(parts[1]) else { return nil }
            self.init(first: first, last: last)
        }
    }

    /// The byte count, or nil for an open-ended range.
    public var count: UInt64? { last.map { $0 - first + 1 } }

    /// `first-last` or `first-`, the value libcurl's CURLOPT_RANGE takes.
    public var description: String { "\(first)-\(last.map(String.init) ?? "")" }
}
