import Foundation

/// Byte counts for people: decimal units as App Store Connect states ODR's limits ("512 MB").
enum ByteText {
    static func format(_ n: UInt64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.2f %@" : "%.1f %@", value, units[unit])
    }
}
