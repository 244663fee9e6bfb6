import Foundation

/// A `.xcconfig` file with its `#include`s expanded, in order: later settings win.
public struct XCConfigFile: Sendable {
    /// Unconditional settings in the order they apply (includes first, at the point of inclusion).
    public var settings: [BuildSetting] = []
    /// Files that could not be read, includes that could not be found, lines that are not settings.
    public var problems: [(file: String, line: Int, message: String)] = []

    /// Reads `path` (absolute) and the files it includes, refusing include cycles.
    public init(path: String) {
        var visiting: Set<String> = []
        read(path, from: nil, visiting: &visiting)
    }

    /// The effective value of every setting (the last assignment of each name).
    public var effective: [String: BuildSetting] {
        var out: [String: BuildSetting] = [:]
        for s in settings { out[s.name] = s }
        return out
    }

    private mutating func read(_ path: String, from includer: (file: String, line: Int)?, visiting: inout Set<String>) {
        guard !visiting.contains(path) else {
            problems.append((includer?.file ?? path, includer?.line ?? 0, "#include cycle through \(PathText.lastComponent(path))"))
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            problems.append((includer?.file ?? path, includer?.line ?? 0, "cannot read \(path)"))
            return
        }
        visiting.insert(path)
        defer { visiting.remove(path) }
        let text = String(decoding: data, as: UTF8.self)
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = i + 1
            let line = Self.stripComment(String(raw)).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#include") {
                let optional = line.hasPrefix("#include?")
                guard let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close else {
                    problems.append((path, lineNumber, "#include needs a quoted path"))
                    continue
                }
                let target = String(line[line.index(after: open)..<close])
                let resolved = PathText.join(PathText.parent(path), target)
                if !FileManager.default.fileExists(atPath: resolved) {
                    if !optional { problems.append((path, lineNumber, "#include \"\(target)\": no such file")) }
                    continue
                }
                read(resolved, from: (path, lineNumber), visiting: &visiting)
                continue
            }
            guard let eq = line.firstIndex(of: "=") else {
                problems.append((path, lineNumber, "not a setting (NAME = value)"))
                continue
            }
            var name = line[..<eq].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            // Conditional assignments (NAME[sdk=iphoneos*]) apply only to some builds; skip them.
            if name.contains("[") { continue }
            name = name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { problems.append((path, lineNumber, "setting without a name")); continue }
            settings.append(BuildSetting(name: name, value: value.hasSuffix(";") ? String(value.dropLast()) : value, file: path, line: lineNumber))
        }
    }

    /// Drops a `//` comment that is not inside quotes (URLs like `https://` sit in quotes or after `=`).
    static func stripComment(_ line: String) -> String {
        var inQuote = false
        var previous: Character = " "
        var index = line.startIndex
        while index < line.endIndex {
            let c = line[index]
            if c == "\"" { inQuote.toggle() }
            if !inQuote, c == "/", previous == "/" {
                let before = line.index(before: index)
                // "https://": a colon right before the slashes means a URL, not a comment.
                if before > line.startIndex, line[line.index(before: before)] == ":" { previous = c; index = line.index(after: index); continue }
                return String(line[..<before])
            }
            previous = c
            index = line.index(after: index)
        }
        return line
    }
}
