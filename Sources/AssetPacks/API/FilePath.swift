// Apple's reads take a `FilePath` and return a `FileDescriptor` (the System module). Where
// System exists they are System's; where it does not (the Linux toolchain ships none), these
// types of the same names and shapes stand in, so that the same code compiles on both.
#if canImport(System)
@_exported import struct System.FilePath
@_exported import struct System.FileDescriptor
#else
import Foundation

/// A file path (System's `FilePath`, which the Linux toolchain lacks): the path's text, made
/// from a `String` or a string literal.
public struct FilePath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible, CustomDebugStringConvertible {
    /// The path as a string.
    public var string: String

    /// An empty path.
    public init() { string = "" }
    /// The path `string`.
    public init(_ string: String) { self.string = string }
    /// The path a string literal spells.
    public init(stringLiteral value: String) { string = value }

    /// Whether the path starts at the root (`/`).
    public var isAbsolute: Bool { string.hasPrefix("/") }
    /// Whether the path is relative.
    public var isRelative: Bool { !isAbsolute }
    /// The path as a string.
    public var description: String { string }
    /// The path, quoted.
    public var debugDescription: String { "\"\(string)\"" }
}

extension String {
    /// The text of `path` (as System's `String(decoding:)` gives it).
    public init(decoding path: FilePath) { self = path.string }
}

/// An open file descriptor (System's `FileDescriptor`, which the Linux toolchain lacks): the
/// raw descriptor, closed by `close()`.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The descriptor's number.
    public let rawValue: CInt
    /// The descriptor `rawValue`.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// Closes the descriptor; throws the `errno` of a failed `close(2)`.
    public func close() throws {
        guard Foundation.close(rawValue) == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
        }
    }
}
#endif
