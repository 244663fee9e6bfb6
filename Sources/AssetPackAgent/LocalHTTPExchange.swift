import Foundation

/// One request to the agent's API, once its body is in.
struct LocalHTTPRequest: Sendable {
    var method: String
    /// The path's segments after the leading slash, each percent-decoded.
    var segments: [String]
    var query: [String: String]
    var body: [UInt8]
    var peer: PeerCredentials?

    /// A query flag: present and not `0`/`false`.
    /// For messages.
    var path: String { "/" + segments.joined(separator: "/") }

    func flag(_ name: String) -> Bool {
        guard let value = query[name] else { return false }
        return value != "0" && value.lowercased() != "false"
    }
}

/// What the agent answers.
struct LocalHTTPResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        /// An open file, sent with sendfile; the server closes it.
        case file(descriptor: Int32, length: UInt64)
        /// A body of unknown length (chunked), read until the stream ends.
        case stream(any LocalHTTPBodyStream)
    }

    var status: Int
    var contentType: String
    var body: Body
    var headers: [(String, String)] = []

    static func json<T: Encodable>(_ value: T, status: Int = 200) -> LocalHTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return LocalHTTPResponse(status: status, contentType: "application/json", body: .bytes(Array(data) + [0x0A]))
    }

    /// `{"error": message, "kind": kind}` with this status.
    static func error(_ status: Int, _ kind: String, _ message: String) -> LocalHTTPResponse {
        json(ErrorBody(error: message, kind: kind), status: status)
    }

    private struct ErrorBody: Encodable { var error: String; var kind: String }
}

/// A response body produced while it is sent (the event stream). `read` runs on the
/// connection's own thread and may block until there is something to send.
protocol LocalHTTPBodyStream: AnyObject, Sendable {
    /// Fills up to `capacity` bytes; 0 means the body is complete.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int
    /// The connection is gone (sent completely, or the client left).
    func close()
}
