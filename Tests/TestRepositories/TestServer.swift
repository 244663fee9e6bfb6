import AssetPackServer
import Foundation

/// A `RepositoryServer` with an access log in a file of its own; stopped when released.
public final class TestServer: @unchecked Sendable {
    public let server: RepositoryServer
    public let logPath: String

    init(directory: String, configuration: ServerConfiguration, logPath: String) throws {
        var configuration = configuration
        configuration.accessLog = .file(logPath)
        self.logPath = logPath
        server = try RepositoryServer(directory: directory, configuration: configuration)
    }

    deinit { server.stop() }

    public var url: String { server.url }
    public var port: UInt16 { server.port }
    public func stop() { server.stop() }

    /// The access log as written so far.
    public func accessLog() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Every request logged so far.
    public func requests() -> [LoggedRequest] {
        accessLog().split(separator: "\n").compactMap { LoggedRequest(accessLogLine: String($0)) }
    }

    /// Requests for pack files (not the catalog).
    public func packRequests() -> [LoggedRequest] { requests().filter { $0.path.hasPrefix("/packs/") } }
}
