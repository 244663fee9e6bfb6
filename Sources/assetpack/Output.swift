import AssetPackFormat
import Foundation

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Encodes `value` as pretty, key-sorted JSON for `--json` output.
func jsonString<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try! encoder.encode(value), as: UTF8.self)
}

/// "1.2 MiB"
func byteCount(_ n: UInt64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var v = Double(n), u = 0
    while v >= 1024 && u < units.count - 1 { v /= 1024; u += 1 }
    return u == 0 ? "\(n) B" : String(format: "%.1f %@", v, units[u])
}
