/// How a command ends when it does not succeed: usage errors exit 2, failures exit 1.
public enum CLIError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case failure(String)

    public var description: String {
        switch self { case .usage(let m), .failure(let m): return m }
    }

    public var exitCode: Int32 {
        switch self { case .usage: return 2; case .failure: return 1 }
    }
}
