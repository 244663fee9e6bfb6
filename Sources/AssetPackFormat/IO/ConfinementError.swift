import Foundation

/// A path beneath a confined directory that could not be used: it is malformed (absolute,
/// empty, or with a `.` or `..` component), one of its components is a symbolic link, or the
/// system call failed (`code` is its errno then). `path` is the whole path, for the message.
public struct ConfinementError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The path is not a plain relative path below the directory.
        case malformed
        /// A component (`path` names it) is a symbolic link: nothing is followed.
        case symbolicLink
        /// The system call failed with `code`.
        case system
    }

    public let kind: Kind
    public let path: String
    public let code: Int32
    public let reason: String

    public init(_ kind: Kind, path: String, code: Int32 = 0, reason: String) {
        self.kind = kind
        self.path = path
        self.code = code
        self.reason = reason
    }

    /// Whether the path (or a folder on the way) does not exist.
    public var isMissing: Bool { kind == .system && code == ENOENT }

    public var description: String { "\(path): \(reason)" }
}
