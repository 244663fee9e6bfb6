/// Why `assetpack key-server` cannot start.
public enum KeyServerError: Error, CustomStringConvertible, Equatable {
    case configuration(String)
    case server(ServerError)

    public var description: String {
        switch self {
        case .configuration(let why): return why
        case .server(let e): return "\(e)"
        }
    }
}
