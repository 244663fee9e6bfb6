import Foundation

/// Runs programs for tests and collects what they write.
public enum ChildProcess {
    /// Runs `executable ARGUMENTS` to the end in `directory`, with `environment` added to this
    /// process's; both pipes are read while it runs, so that neither fills up. Blocks the thread
    /// (tasks use `run`).
    public static func runBlocking(_ executable: String, _ arguments: [String], in directory: String? = nil,
                                   environment: [String: String] = [:]) throws -> ProcessResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardInput = FileHandle.nullDevice
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async { errorData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return ProcessResult(status: p.terminationStatus, output: outputData, stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// Starts `executable ARGUMENTS` with standard output and error going to the files `output`
    /// and `error` (created or emptied), and returns at once.
    public static func start(_ executable: String, _ arguments: [String], in directory: String? = nil,
                             environment: [String: String] = [:], output: String, error: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: error, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: error))
        try p.run()
        return p
    }

    /// Runs `executable ARGUMENTS` to the end (killed after `timeout`, which fails the wait), without
    /// holding a thread of the shared pool while it runs.
    public static func run(_ executable: String, _ arguments: [String], in directory: String? = nil,
                           environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> ProcessResult {
        let files = try TemporaryDirectory("process")
        defer { files.remove() }
        let p = try start(executable, arguments, in: directory, environment: environment,
                          output: files.file("stdout"), error: files.file("stderr"))
        // The exit is learned with waitpid (`ChildExit`): Foundation can miss it when children
        // run side by side, and waitUntilExit would then block a thread of the pool for ever.
        var status: ChildExit.Status?
        do {
            try await waitUntil("\((executable as NSString).lastPathComponent) \(arguments.joined(separator: " ")) exits",
                                timeout: timeout) {
                status = ChildExit.poll(p)
                return status != nil
            }
        } catch {
            kill(p.processIdentifier, SIGKILL)
            _ = try? await ChildExit.wait(for: p, timeout: .seconds(10))
            throw error
        }
        return ProcessResult(status: status!.code, output: FileManager.default.contents(atPath: files.file("stdout")) ?? Data(),
                             stderr: files.text("stderr") ?? "")
    }
}
