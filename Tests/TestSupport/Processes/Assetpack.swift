import Foundation

/// The `assetpack` executable SwiftPM built beside the test bundle: the one way tests find and
/// run it. A test target that uses this lists "assetpack" among its dependencies in
/// Package.swift, so that the executable is built (and rebuilt) before its tests run.
public enum Assetpack {
    /// The executable's path; throws when it was not built.
    public static func executable() throws -> String {
        guard let located else {
            throw TestSupportError("the assetpack executable was not found beside the test bundle (\(CommandLine.arguments[0])); "
                                   + "build it first (swift build --build-tests)")
        }
        return located
    }

    /// SwiftPM places executables and the test bundle in one folder (.build/<configuration>);
    /// on Linux the bundle is the running executable, on macOS a bundle folder a few levels up.
    private static let located: String? = {
        var starts = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()]
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("assetpack").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        return nil
    }()

    /// Runs `assetpack ARGUMENTS` to the end in `directory`, blocking the thread (tasks use `run`).
    @discardableResult
    public static func runBlocking(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        try ChildProcess.runBlocking(executable(), arguments, in: directory, environment: environment)
    }

    /// Runs `assetpack ARGUMENTS` to the end without holding a thread of the shared pool; it is
    /// killed, and the wait fails, after `timeout`.
    @discardableResult
    public static func run(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
                           timeout: Duration = .seconds(60)) async throws -> ProcessResult {
        try await ChildProcess.run(executable(), arguments, in: directory, environment: environment, timeout: timeout)
    }

    /// Starts `assetpack ARGUMENTS` with standard output and error going to files; returns at once.
    public static func start(_ arguments: [String], in directory: String? = nil, output: String, error: String) throws -> Process {
        try ChildProcess.start(executable(), arguments, in: directory, output: output, error: error)
    }
}
