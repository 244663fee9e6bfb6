/// Byte counts as people write and read them: the one grammar every command and report uses.
///
/// Reading: a number (`5`, `1.5`) and an optional unit, case-insensitive, optionally after a
/// space. The unit letters are DECIMAL, as disk makers, networks and Apple's stated limits count:
/// `k`/`kB` = 1000, `M`/`MB` = 1000², `G`/`GB` = 1000³, `T`/`TB` = 1000⁴. Binary units only
/// when spelt so: `KiB` = 1024, `MiB` = 1024², `GiB` = 1024³, `TiB` = 1024⁴. No unit (or `B`)
/// is bytes. Fractions round to the nearest byte: `1.5k` = 1500, `0.5KiB` = 512.
///
/// Writing: decimal units with one decimal, `"1.5 MB"`, or `"512 B"` below 1 kB.
public enum ByteCount {
    /// The sentence every help text that takes a size ends with.
    public static let grammar = "decimal units (5M = 5,000,000 bytes; KiB/MiB/GiB for binary)"

    /// `text` as a number of bytes; nil when it is not one of the forms above or exceeds UInt64.
    public static func parse(_ text: String) -> UInt64? {
        let t = Array(text.utf8)
        var i = 0
        while i < t.count, t[i] == UInt8(ascii: " ") { i += 1 }
        var whole: UInt64 = 0
        var wholeDigits = 0
        while i < t.count, let d = digit(t[i]) {
            guard case (let m, false) = whole.multipliedReportingOverflow(by: 10),
                  case (let v, false) = m.addingReportingOverflow(d) else { return nil }
            whole = v; wholeDigits += 1; i += 1
        }
        var fraction: UInt64 = 0, scale: UInt64 = 1
        if i < t.count, t[i] == UInt8(ascii: ".") {
            i += 1
            var fractionDigits = 0
            while i < t.count, let d = digit(t[i]) {
                // Digits past the 18th cannot change the rounded result of any multiplier below.
                if scale < 1_000_000_000_000_000_000 { fraction = fraction * 10 + d; scale *= 10 }
                fractionDigits += 1; i += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard wholeDigits > 0 else { return nil }
        while i < t.count, t[i] == UInt8(ascii: " ") { i += 1 }
        var end = t.count
        while end > i, t[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard let multiplier = multipliers[String(decoding: t[i..<end], as: UTF8.self).lowercased()] else { return nil }
        guard case (let bytes, false) = whole.multipliedReportingOverflow(by: multiplier) else { return nil }
        // fraction / scale × multiplier, rounded half up, in 128 bits.
        let product = fraction.multipliedFullWidth(by: multiplier)
        let (quotient, remainder) = scale.dividingFullWidth(product)
        let rounded = quotient + (remainder * 2 >= scale ? 1 : 0)
        guard case (let total, false) = bytes.addingReportingOverflow(rounded) else { return nil }
        return total
    }

    /// `"1.5 MB"`: decimal units with one decimal; `"512 B"` below 1 kB.
    public static func format(_ bytes: UInt64) -> String {
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        guard bytes >= 1000 else { return "\(bytes) B" }
        var unit = 0
        var divisor: Double = 1000
        // Move up a unit when the value would round to 1000.0 in this one.
        while unit < units.count - 1, Double(bytes) / divisor >= 999.95 { divisor *= 1000; unit += 1 }
        let tenths = (Double(bytes) / divisor * 10).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10) \(units[unit])"
    }

    /// `"2.0 GB (2000000000 bytes)"`: the formatted size and the exact count, for limits and
    /// reports where the last byte matters; `"512 bytes"` below 1 kB.
    public static func formatExactly(_ bytes: UInt64) -> String {
        bytes < 1000 ? "\(bytes) bytes" : "\(format(bytes)) (\(bytes) bytes)"
    }

    private static let multipliers: [String: UInt64] = [
        "": 1, "b": 1,
        "k": 1000, "kb": 1000, "m": 1_000_000, "mb": 1_000_000,
        "g": 1_000_000_000, "gb": 1_000_000_000, "t": 1_000_000_000_000, "tb": 1_000_000_000_000,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
    ]

    private static func digit(_ byte: UInt8) -> UInt64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? UInt64(byte - UInt8(ascii: "0")) : nil
    }
}
