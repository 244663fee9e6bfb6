/// One line of a server's access log.
public struct LoggedRequest: Equatable, Sendable {
    public var method: String
    public var path: String
    public var status: Int
    /// The body length the response announced (a fault may have cut it short).
    public var bytes: UInt64
    /// The server's note, e.g. `fault=corrupt@17,cut@4096`.
    public var note: String = ""

    public init(method: String, path: String, status: Int, bytes: UInt64, note: String = "") {
        self.method = method
        self.path = path
        self.status = status
        self.bytes = bytes
        self.note = note
    }

    /// Parses `127.0.0.1 - - [date] "GET /path HTTP/1.1" 206 1234 [note]` (common log format);
    /// nil for anything else.
    public init?(accessLogLine line: String) {
        guard let open = line.firstIndex(of: "\""), let close = line[line.index(after: open)...].firstIndex(of: "\"") else { return nil }
        let request = line[line.index(after: open)..<close].split(separator: " ")
        let rest = line[line.index(after: close)...].split(separator: " ")
        guard request.count >= 2, rest.count >= 2, let status = Int(rest[0]), let bytes = UInt64(rest[1]) else { return nil }
        self.init(method: String(request[0]), path: String(request[1]), status: status, bytes: bytes,
                  note: rest.dropFirst(2).joined(separator: " "))
    }
}
