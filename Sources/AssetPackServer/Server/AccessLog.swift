import Foundation

/// Writes one line per request in common log format, plus a note when the server refused the
/// request or injected a fault:
///
///     127.0.0.1 - - [10/Oct/2025:13:55:36 +0000] "GET /a.pack HTTP/1.1" 206 1048576 fault=cut@100
///
/// The byte count is the body bytes actually sent (0 for HEAD): the announced length when the
/// response finished, what the socket took when the client left or a fault cut the body short,
/// `-` if the kernel could not say. Lines are written when the response ends, each whole with
/// one write(2), so lines from different threads do not interleave.
final class AccessLog: @unchecked Sendable {
    private let fd: Int32
    private let ownsDescriptor: Bool

    init(_ destination: AccessLogDestination) throws(ServerError) {
        switch destination {
        case .none: fd = -1; ownsDescriptor = false
        case .standardError: fd = STDERR_FILENO; ownsDescriptor = false
        case .file(let path):
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .accessLog(path, String(cString: strerror(errno))) }
            ownsDescriptor = true
        }
    }

    deinit { if ownsDescriptor { close(fd) } }

    func record(client: String, method: String, target: String, version: String, status: Int, bytes: UInt64?, note: String?) {
        guard fd >= 0 else { return }
        let request = "\(method) \(target) \(version)".unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" ? "?" : String($0) }.joined()
        let line = "\(client) - - [\(HTTPDate.logString(time(nil)))] \"\(request)\" \(status) \(bytes.map(String.init) ?? "-")\(note.map { " " + $0 } ?? "")\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
