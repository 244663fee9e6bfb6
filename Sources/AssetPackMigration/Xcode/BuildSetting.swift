/// One build setting as written somewhere: its value, and the file and line that set it.
/// `file` is an absolute path until the audit makes it relative to the audited folder.
public struct BuildSetting: Sendable, Equatable {
    public var name: String
    /// The value; list values (`( a, b )` in a pbxproj) are joined with spaces as Xcode does.
    public var value: String
    public var file: String
    public var line: Int

    public init(name: String, value: String, file: String, line: Int) {
        self.name = name
        self.value = value
        self.file = file
        self.line = line
    }

    /// The value split into words, as Xcode splits list-type settings (quotes group words).
    public var words: [String] {
        var out: [String] = []
        var current = ""
        var quote: Character?
        var has = false
        for c in value {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c; has = true
            } else if c == " " || c == "\t" {
                if has || !current.isEmpty { out.append(current) }
                current = ""; has = false
            } else {
                current.append(c)
            }
        }
        if has || !current.isEmpty { out.append(current) }
        return out.filter { $0 != "$(inherited)" }
    }
}
