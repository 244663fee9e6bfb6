/// Why a request failed, precise enough to decide whether to retry and to tell the user.
public enum TransportError: Error, CustomStringConvertible {
    /// The request cannot be sent as given (bad URL, unsupported scheme, unreadable CA file…).
    case invalidRequest(String)
    case nameResolution(url: String, message: String)
    case connection(url: String, message: String)
    case tls(url: String, message: String)
    /// Connect timeout, low-speed abort or whole-transfer timeout.
    case timedOut(url: String, message: String)
    case cancelled(url: String)
    /// The body stream threw `underlying`.
    case aborted(url: String, underlying: any Error)
    /// A status the caller did not accept (see `HTTPResponse.requireSuccess`).
    case httpStatus(url: String, status: Int, body: [UInt8])
    /// A local file (request body or destination) could not be read or written.
    case file(path: String, message: String)
    /// Any other libcurl failure (connection reset, truncated response…), with its code.
    case transfer(url: String, code: Int, message: String)

    public var description: String {
        switch self {
        case .invalidRequest(let m): return "invalid request: \(m)"
        case .nameResolution(let url, let m): return "\(url): cannot resolve host: \(m)"
        case .connection(let url, let m): return "\(url): cannot connect: \(m)"
        case .tls(let url, let m): return "\(url): TLS failure: \(m)"
        case .timedOut(let url, let m): return "\(url): timed out: \(m)"
        case .cancelled(let url): return "\(url): cancelled"
        case .aborted(let url, let e): return "\(url): aborted: \(e)"
        case .httpStatus(let url, let status, _): return "\(url): HTTP status \(status)"
        case .file(let path, let m): return "\(path): \(m)"
        case .transfer(let url, let code, let m): return "\(url): transfer failed (curl error \(code)): \(m)"
        }
    }

    /// Worth retrying after a pause: network failures, timeouts, and the statuses that mean
    /// "try later" (408, 429, 5xx). Not: bad requests, TLS or DNS failures, 4xx, local files,
    /// cancellation or an abort by the caller's stream.
    public var isTransient: Bool {
        switch self {
        case .connection, .timedOut, .transfer: return true
        case .httpStatus(_, let status, _): return status == 408 || status == 429 || (500..<600).contains(status)
        case .invalidRequest, .nameResolution, .tls, .cancelled, .aborted, .file: return false
        }
    }

    /// The HTTP status for `.httpStatus`, else nil.
    public var httpStatus: Int? {
        if case .httpStatus(_, let status, _) = self { return status }
        return nil
    }
}
