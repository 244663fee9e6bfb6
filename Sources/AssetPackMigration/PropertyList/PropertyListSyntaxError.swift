import AssetPackFormat

/// Why an OpenStep property list could not be read, and where.
public struct PropertyListSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var reason: String

    public init(at location: SourceLocation, _ reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "line \(location.line), column \(location.column): \(reason)" }
}
