import Foundation

/// moto's S3 endpoint (PyPI `moto[server]`) on 127.0.0.1, in a process of its own. It accepts any
/// credentials. Stopped in deinit.
public final class MotoServer: @unchecked Sendable {
    public let port: UInt16
    private let logs: TemporaryDirectory
    private let process: ServerProcess

    public init() throws {
        let logs = try TemporaryDirectory("moto")
        self.logs = logs
        (port, process) = try ServerProcess.withFreePort { port in
            (port, try ServerProcess(["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)],
                                     port: port, logPath: logs.file("moto.log")))
        }
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func stop() { process.stop() }
}
