import AssetPackFormat
/// One problem found in an input file: which file, where in it, and why.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning }

    public var severity: Severity
    public var file: String
    /// A JSON key path such as `fileSelectors[2].directory`; empty for the whole file.
    public var keyPath: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(_ severity: Severity, file: String, keyPath: String = "", at location: SourceLocation? = nil, _ message: String) {
        self.severity = severity
        self.file = file
        self.keyPath = keyPath
        self.line = location?.line
        self.column = location?.column
        self.message = message
    }

    /// `Manifest.json:4:17: error: fileSelectors[1].file: no such file "a.png"`
    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)"; if let column { where_ += ":\(column)" } }
        let key = keyPath.isEmpty ? "" : "\(keyPath): "
        return "\(where_): \(severity.rawValue): \(key)\(message)"
    }
}

extension Array where Element == Diagnostic {
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
