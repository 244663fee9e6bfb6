/// Merges byte ranges that overlap or touch (`0-9` and `10-19` become `0-19`) and sorts the
/// result, so a multipart answer never sends a byte twice and has as few parts as possible.
func coalesced(_ ranges: [ClosedRange<UInt64>]) -> [ClosedRange<UInt64>] {
    var merged: [ClosedRange<UInt64>] = []
    for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
        if let last = merged.last, r.lowerBound <= last.upperBound || r.lowerBound - last.upperBound == 1 {
            merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
        } else {
            merged.append(r)
        }
    }
    return merged
}
