import Foundation

/// How `assetpack key-server` decides whether a token is entitled to a pack.
public enum EntitlementCheck: Sendable {
    /// A grants file, read at start.
    case grants(EntitlementGrants)
    /// A command run for every request (`--verify-command`): `/bin/sh -c CMD sh PACK_ID`, the
    /// token on its standard input (never in its arguments, which other users can see), exit 0
    /// for granted; on refusal its first line of output is the reason given to the client. It
    /// must answer within `timeout` seconds, or the request is refused.
    case command(String, timeout: Double)

    /// nil when granted, else the reason.
    func refusal(token: String, pack: String, now: Date) -> String? {
        switch self {
        case .grants(let grants): return grants.refusal(token: token, pack: pack, now: now)
        case .command(let command, let timeout): return Self.run(command, token: token, pack: pack, timeout: timeout)
        }
    }

    private static func run(_ command: String, token: String, pack: String, timeout: Double) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command, "sh", pack]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try process.run() } catch { return "the verify command could not be started (\(error))" }
        try? input.fileHandleForWriting.write(contentsOf: Data((token + "\n").utf8))
        try? input.fileHandleForWriting.close()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            done.wait()
            return "the verify command did not answer within \(Int(timeout)) s"
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if process.terminationReason == .exit && process.terminationStatus == 0 { return nil }
        let first = text.split(separator: "\n").first.map { String($0.prefix(200)) }
        return first.flatMap { $0.isEmpty ? nil : $0 } ?? "the verify command refused (exit status \(process.terminationStatus))"
    }
}
