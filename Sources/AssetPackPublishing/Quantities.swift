import Foundation

/// Parses the sizes and durations that `publish` options take.
public enum Quantities {
    /// `500MB`, `2GiB`, `1.5 GB`, `1048576`: decimal units (kB/KB, MB, GB, TB = 1000ⁿ), binary
    /// units (KiB, MiB, GiB, TiB = 1024ⁿ), or plain bytes (optionally with `B`). Nil when not one.
    public static func byteCount(_ text: String) -> UInt64? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let numberEnd = t.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? t.endIndex
        let number = String(t[..<numberEnd])
        let unit = t[numberEnd...].trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
            "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
        ]
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, let value = Double(number),
              let multiplier = multipliers[unit] else { return nil }
        let bytes = (value * multiplier).rounded()
        guard bytes.isFinite, bytes >= 0, bytes < 1.8e19 else { return nil }
        return UInt64(bytes)
    }

    /// `90s`, `15m`, `12h`, `30d`: a whole number and a unit; nil otherwise or when not positive.
    public static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0, n <= 36_500 * 86_400 else { return nil }
        let seconds: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let factor = seconds[unit], n <= 36_500 * 86_400 / factor else { return nil }
        return TimeInterval(n * factor)
    }

    /// "2.0 GB (2000000000 bytes)": decimal units, as Apple states its limits, plus the exact count.
    public static func describe(_ bytes: UInt64) -> String {
        let units = ["bytes", "kB", "MB", "GB", "TB"]
        var v = Double(bytes), u = 0
        while v >= 1000 && u < units.count - 1 { v /= 1000; u += 1 }
        return u == 0 ? "\(bytes) bytes" : String(format: "%.1f %@ (%llu bytes)", v, units[u], bytes)
    }
}
