import AssetPackServer
import Foundation
import TestSupport

/// A `RepositoryServer` with an access log in a file of its own; stopped when released. Once
/// stopped, its port stays held (bound, not listening) until it is released: a client that
/// still has its URL is refused, never answered by another test's server given the same port.
public final class TestServer: @unchecked Sendable {
    public let server: RepositoryServer
    public let logPath: String
    private let held = NSLock()
    private var heldPort: RefusingPort?

    init(directory: String, configuration: ServerConfiguration, logPath: String) throws {
        var configuration = configuration
        configuration.accessLog = .file(logPath)
        self.logPath = logPath
        server = try RepositoryServer(directory: directory, configuration: configuration)
    }

    deinit { server.stop() }

    public var url: String { server.url }
    public var port: UInt16 { server.port }
    public func stop() {
        server.stop()
        held.withLock { if heldPort == nil { heldPort = try? RefusingPort(holding: port) } }
    }

    /// The access log as written so far.
    public func accessLog() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The access log once `lines` of its lines contain `text`: a line is written when its
    /// response has ended, which may be a moment after the client read the last byte, and the
    /// lines of responses on different connections may be written in another order than the
    /// requests were made. After `timeout`, the log as it is (the caller's expectation then says
    /// what is missing).
    public func accessLog(containing text: String, lines: Int = 1, timeout: Duration = .seconds(10)) -> String {
        try? blockingWaitUntil("the access log names \(text)", timeout: timeout) {
            self.accessLog().split(separator: "\n").count { $0.contains(text) } >= lines
        }
        return accessLog()
    }

    /// Every request answered so far: waits (bounded) for the responses under way to end, since
    /// a response's line is written when it ends, which may be a moment after the client has
    /// read its last byte.
    public func requests() -> [LoggedRequest] {
        try? blockingWaitUntil("the server's responses under way have ended", timeout: .seconds(10)) { server.responsesInProgress == 0 }
        return accessLog().split(separator: "\n").compactMap { LoggedRequest(accessLogLine: String($0)) }
    }

    /// Requests for pack files (not the catalog).
    public func packRequests() -> [LoggedRequest] { requests().filter { $0.path.hasPrefix("/packs/") } }
}
