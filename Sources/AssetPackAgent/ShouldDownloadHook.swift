import AssetPacks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The app's say before the agent spends bandwidth on a download it starts on its own (Apple's
/// extension, `shouldDownload`): a command run with `/bin/sh -c`, the pack's JSON (as the API
/// describes packs) on its standard input. Exit status 0 is go; any other status, death by a
/// signal, or no answer within `timeout` is skip, with the reason. Its output is ignored.
public struct ShouldDownloadHook: Sendable {
    public var command: String
    public var timeout: Duration

    public init(command: String, timeout: Duration = .seconds(10)) {
        self.command = command
        self.timeout = timeout
    }

    public enum Verdict: Sendable, Equatable {
        case go
        case skip(reason: String)
    }

    /// Runs the command for `pack` on a thread of its own (never one of Swift's pool).
    func verdict(for pack: AssetPack) async -> Verdict {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: run(pack)) }.start()
        }
    }

    private func run(_ pack: AssetPack) -> Verdict {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let input = (try? encoder.encode(AgentPackDescription(pack, status: []))) ?? Data("{}".utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch {
            return .skip(reason: "the should-download hook could not start: \(error.localizedDescription)")
        }
        // A hook that does not read its input must not block the agent (EPIPE is ignored).
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        guard ended.wait(timeout: .now() + .milliseconds(Int(timeout.seconds * 1000))) == .success else {
            // The whole hook: Foundation starts it in a process group of its own, so what the
            // shell started goes too.
            let pid = process.processIdentifier
            kill(getpgid(pid) == pid ? -pid : pid, SIGKILL)
            _ = ended.wait(timeout: .now() + .seconds(2))
            return .skip(reason: "the should-download hook gave no answer within \(timeout)")
        }
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0): return .go
        case (.exit, let status): return .skip(reason: "the should-download hook said no (exit status \(status))")
        case (_, let signal): return .skip(reason: "the should-download hook was killed by signal \(signal)")
        }
    }
}
