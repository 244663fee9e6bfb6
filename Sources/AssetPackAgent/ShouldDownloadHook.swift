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
        let input = Array((try? encoder.encode(AgentPackDescription(pack, status: []))) ?? Data("{}".utf8))
        let child: HookProcess
        do { child = try HookProcess(command: command) } catch {
            return .skip(reason: "the should-download hook could not start: \(error)")
        }
        // The exit is waited for on a thread of its own, so that this one can give up on time.
        let ended = DispatchSemaphore(value: 0)
        let status = StatusBox()
        Thread {
            status.value = child.waitForExit()
            ended.signal()
        }.start()
        child.write(input)  // a hook that does not read its input changes nothing (EPIPE)
        guard ended.wait(timeout: .now() + .milliseconds(Int(timeout.seconds * 1000))) == .success else {
            child.killGroup()  // the hook and everything it started
            _ = ended.wait(timeout: .now() + .seconds(2))
            return .skip(reason: "the should-download hook gave no answer within \(timeout)")
        }
        let raw = status.value
        if raw & 0x7F == 0 {
            let code = (raw >> 8) & 0xFF
            return code == 0 ? .go : .skip(reason: "the should-download hook said no (exit status \(code))")
        }
        return .skip(reason: "the should-download hook was killed by signal \(raw & 0x7F)")
    }
}

private final class StatusBox: @unchecked Sendable { var value: Int32 = 0 }
