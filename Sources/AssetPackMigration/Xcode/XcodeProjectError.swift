import AssetPackFormat

/// Why a `project.pbxproj` could not be read as an Xcode project, and where.
public struct XcodeProjectError: Error, Sendable, CustomStringConvertible {
    /// The absolute path of the `project.pbxproj`.
    public var file: String
    public var location: SourceLocation?
    public var reason: String

    public var description: String {
        let at = location.map { ":\($0.line):\($0.column)" } ?? ""
        return "\(file)\(at): \(reason)"
    }
}
