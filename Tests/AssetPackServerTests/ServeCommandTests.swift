import Foundation
import Testing

/// Runs the real `assetpack serve` binary.
@Suite struct ServeCommandTests {
    /// The `assetpack` executable SwiftPM built beside the test bundle.
    static var executable: String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.path.hasSuffix(".xctest/Contents/MacOS") { dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        return dir.appendingPathComponent("assetpack").path
    }

    @Test func missingDirectoryFailsAtStart() throws {
        let r = try run(Self.executable, ["serve", "/nonexistent/assetpack-repo", "--port", "0"])
        #expect(r.status == 1)
        #expect(r.error.contains("cannot serve /nonexistent/assetpack-repo: No such file or directory"))
    }

    @Test func badFaultValuesAreUsageErrors() throws {
        let repo = try TestRepository()
        let r = try run(Self.executable, ["serve", repo.directory, "--corrupt-rate", "1.5"])
        #expect(r.status == 2)
        #expect(r.error.contains("--corrupt-rate takes a probability from 0 to 1"))
    }

    @Test func refusesATLSFolderInsideTheRepository() throws {
        let repo = try TestRepository()
        let r = try run(Self.executable, ["serve", repo.directory, "--port", "0", "--https", "--tls-dir", repo.directory + "/tls"])
        #expect(r.status == 2)
        #expect(r.error.contains("inside the repository"))
        #expect(!FileManager.default.fileExists(atPath: repo.directory + "/tls"))
    }

    @Test func servesUntilSIGTERMOverHTTPS() throws {
        let repo = try TestRepository()
        let tlsDir = repo.root.appendingPathComponent("tls").path
        let outPath = repo.root.appendingPathComponent("serve.out").path
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve", repo.directory, "--port", "0", "--https", "--tls-dir", tlsDir, "--access-log", repo.accessLogPath]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The server prints its URL once it listens; wait for it (bounded).
        var url: String?
        for _ in 0..<100 where url == nil {
            let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            url = out.components(separatedBy: "\n").first { $0.hasPrefix("Serving ") }?.components(separatedBy: " at ").last
            if url == nil { usleep(100_000) }
        }
        let base = try #require(url)
        #expect(base.hasPrefix("https://127.0.0.1:"))
        let out = try String(contentsOfFile: outPath, encoding: .utf8)
        #expect(out.contains("curl --cacert \(tlsDir)/ca.pem"))
        #expect(out.contains("ca.mobileconfig"))
        let fetched = try run("/usr/bin/curl", ["-sS", "--fail", "--cacert", tlsDir + "/ca.pem", base + "catalog.json"])
        #expect(Array(fetched.output) == repo.catalog)
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(repo.accessLog().contains("\"GET /catalog.json HTTP/1.1\" 200"))
    }
}
