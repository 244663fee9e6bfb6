/// A test fixture could not be set up (a server did not start, a tool failed, a file is missing).
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
