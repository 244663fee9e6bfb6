/// Parses a byte count given on the command line: a whole number with an optional binary unit,
/// `K`/`KiB`, `M`/`MiB`, `G`/`GiB` (case-insensitive): "5242880", "16MiB", "64m". Nil when
/// malformed or above UInt64.
func parseByteSize(_ text: String) -> UInt64? {
    let digits = text.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, let number = UInt64(digits) else { return nil }
    let shift: UInt64
    switch text.dropFirst(digits.count).lowercased() {
    case "", "b": shift = 0
    case "k", "kib": shift = 10
    case "m", "mib": shift = 20
    case "g", "gib": shift = 30
    default: return nil
    }
    let (value, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
    return overflow ? nil : value
}
