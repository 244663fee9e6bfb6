import Foundation

/// How a child process ended and what it wrote.
public struct ProcessResult: Sendable {
    public var status: Int32
    /// Standard output, as bytes.
    public var output: Data
    /// Standard error, as text.
    public var stderr: String

    public init(status: Int32, output: Data, stderr: String) {
        self.status = status
        self.output = output
        self.stderr = stderr
    }

    /// Standard output, as text.
    public var stdout: String { String(decoding: output, as: UTF8.self) }

    /// Standard output's lines that are JSON objects (e.g. `--json` progress lines).
    public var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
