import Foundation

/// Reads the Background Assets keys of an Info.plist (XML or binary) with Foundation, then finds
/// each key's line by scanning the XML text for `<key>NAME</key>` (binary files get no lines).
public enum InfoPlistReader {
    public enum Failure: Error, Sendable { case unreadable(String), notADictionary }

    /// The BA keys of the plist at `absolutePath`, named `file` in the results.
    public static func backgroundAssetsKeys(atPath absolutePath: String, file: String) throws -> [BackgroundAssetsKey] {
        guard let data = FileManager.default.contents(atPath: absolutePath) else { throw Failure.unreadable("cannot read the file") }
        let any: Any
        do {
            any = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw Failure.unreadable("not a valid property list (\(error.localizedDescription))")
        }
        guard let dict = any as? [String: Any] else { throw Failure.notADictionary }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        func line(of key: String, after: Int = 0) -> Int? {
            let needle = "<key>\(key)</key>"
            for i in after..<lines.count where lines[i].contains(needle) { return i + 1 }
            return nil
        }
        var out: [BackgroundAssetsKey] = []
        for key in BackgroundAssetsKeys.topLevel {
            guard let v = dict[key] else { continue }
            let at = line(of: key)
            out.append(BackgroundAssetsKey(key: key, value: PlistValue(v), file: file, line: at, parent: nil))
            if key == "BAInitialDownloadRestrictions", let inner = v as? [String: Any] {
                for k in BackgroundAssetsKeys.downloadRestrictions {
                    guard let iv = inner[k] else { continue }
                    out.append(BackgroundAssetsKey(key: k, value: PlistValue(iv), file: file, line: line(of: k, after: at ?? 0), parent: key))
                }
            }
        }
        return out
    }
}
