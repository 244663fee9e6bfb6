/// The length of the header block libmicrohttpd 0.9 writes for a response, so the access log
/// can tell header bytes from body bytes on the wire: the status line, a `Date` field, a
/// `Connection` field when it closes the connection or keeps an HTTP/1.0 one open, the fields
/// the server set, `Content-Length` (for every status but 1xx, 204 and 304) and the blank line.
/// A test checks it against what a client reads.
func responseHeaderLength(status: Int, reason: String, fields: [(String, String)], contentLength: UInt64,
                          requestVersion: String, connectionHeader: String?) -> UInt64 {
    func line(_ name: String, _ value: String) -> Int { name.utf8.count + 2 + value.utf8.count + 2 }
    var n = "HTTP/1.1 \(status) \(reason)\r\n".utf8.count
    n += line("Date", "Tue, 01 Dec 2026 17:59:49 GMT")  // IMF-fixdate: always 29 characters
    let tokens = (connectionHeader ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }
    if requestVersion == "HTTP/1.0" {
        n += tokens.contains("keep-alive") ? line("Connection", "Keep-Alive") : line("Connection", "close")
    } else if tokens.contains("close") {
        n += line("Connection", "close")
    }
    for (name, value) in fields { n += line(name, value) }
    if !(100..<200).contains(status) && status != 204 && status != 304 { n += line("Content-Length", String(contentLength)) }
    return UInt64(n + 2)
}
