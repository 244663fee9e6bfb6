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

/// One line of key-sorted JSON (a `--json` event line).
func jsonLine(_ fields: [String: Any]) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}
