import Foundation
import Testing

/// The `assetpack` executable SwiftPM builds beside the test bundle, run as a child process.
enum AssetpackProcess {
    static let executable: String? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("assetpack").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("assetpack").path,
            Bundle.main.bundleURL.appendingPathComponent("assetpack").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    struct Result {
        var status: Int32
        var output: Data
        var error: String
        var text: String { String(decoding: output, as: UTF8.self) }
        /// Standard output's lines parsed as JSON objects (the --json progress lines).
        var jsonLines: [[String: Any]] {
            text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    /// Starts `assetpack ARGS` with its standard output and error going to files.
    static func start(_ arguments: [String], output: String, error: String) throws -> Process {
        guard let executable else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "assetpack (run swift build first)"]) }
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: error, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: error))
        try p.run()
        return p
    }

    /// Runs `assetpack ARGS` to the end (at most `timeout` seconds, then it is killed). Waits
    /// without holding a thread of the shared pool.
    static func run(_ arguments: [String], in scratch: String, timeout: TimeInterval = 60) async throws -> Result {
        let name = UUID().uuidString.prefix(8)
        let out = "\(scratch)/stdout-\(name)", err = "\(scratch)/stderr-\(name)"
        let p = try start(arguments, output: out, error: err)
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            Issue.record("assetpack \(arguments.joined(separator: " ")) ran longer than \(timeout) s and was killed")
        }
        p.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: err) }
        return Result(status: p.terminationStatus, output: FileManager.default.contents(atPath: out) ?? Data(),
                      error: String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self))
    }
}
