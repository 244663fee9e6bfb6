/// Why a text file could not be read, and where: the one error every parser of text formats
/// throws (JSON, OpenStep property lists, Steam KeyValues). A caller that knows the file name
/// adds it with `in(file:)`; the description then starts with it.
public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the text came from, when the caller named it.
    public var file: String?
    public var location: SourceLocation
    /// What is wrong, without the position (`expected ';' after the value of "name", found '}'`).
    public var message: String

    public init(file: String? = nil, at location: SourceLocation, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var line: Int { location.line }
    public var column: Int { location.column }

    /// The same error, naming the file it was found in.
    public func `in`(file: String) -> SyntaxError {
        SyntaxError(file: file, at: location, message)
    }

    /// `line 3, column 7: expected ':' after key "a", found '}'`, preceded by `FILE: ` when named.
    public var description: String {
        let position = "line \(location.line), column \(location.column): \(message)"
        return file.map { "\($0): \(position)" } ?? position
    }
}
