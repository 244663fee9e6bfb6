import Foundation
import TestRepositories
import TestSupport
import Testing

/// Runs the real `assetpack serve` binary.
@Suite struct ServeCommandTests {
    @Test func missingDirectoryFailsAtStart() async throws {
        let r = try await Assetpack.run(["serve", "/nonexistent/assetpack-repo", "--port", "0"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot serve /nonexistent/assetpack-repo: No such file or directory"))
    }

    @Test func badFaultValuesAreUsageErrors() async throws {
        let repo = try TestRepository.servingBytes()
        let r = try await Assetpack.run(["serve", repo.path, "--corrupt-rate", "1.5"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--corrupt-rate takes a probability from 0 to 1"))
    }

    @Test func refusesATLSFolderInsideTheRepository() async throws {
        let repo = try TestRepository.servingBytes()
        let r = try await Assetpack.run(["serve", repo.path, "--port", "0", "--https", "--tls-dir", repo.path + "/tls"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("inside the repository"))
        #expect(!FileManager.default.fileExists(atPath: repo.path + "/tls"))
    }

    @Test func servesUntilSIGTERMOverHTTPS() throws {
        let repo = try TestRepository.servingBytes()
        let tlsDir = repo.dir.file("tls")
        let outPath = repo.dir.file("serve.out")
        let accessLogPath = repo.dir.file("access.log")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Assetpack.executable())
        process.arguments = ["serve", repo.path, "--port", "0", "--https", "--tls-dir", tlsDir, "--access-log", accessLogPath]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The server prints its URL once it listens; wait for it (bounded).
        var url: String?
        try blockingWaitUntil("assetpack serve prints its URL", timeout: .seconds(30)) {
            let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            url = out.components(separatedBy: "\n").first { $0.hasPrefix("Serving ") }?.components(separatedBy: " at ").last
            return url != nil
        }
        let base = try #require(url)
        #expect(base.hasPrefix("https://127.0.0.1:"))
        let out = try String(contentsOfFile: outPath, encoding: .utf8)
        #expect(out.contains("curl --cacert \(tlsDir)/ca.pem"))
        #expect(out.contains("ca.mobileconfig"))
        let fetched = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", "--fail", "--cacert", tlsDir + "/ca.pem", base + "catalog.json"])
        #expect(Array(fetched.output) == TestRepository.stubCatalog)
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(((try? String(contentsOfFile: accessLogPath, encoding: .utf8)) ?? "").contains("\"GET /catalog.json HTTP/1.1\" 200"))
    }
}
