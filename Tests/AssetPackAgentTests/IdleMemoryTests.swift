import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// `IdleMemory.release()` unmaps the resident pages of read-only file mappings and hands
/// malloc's free memory back — in this very process, whose other tests go on meanwhile — and
/// everything works afterwards: code, constants and relocated tables come back on first use.
@Suite struct IdleMemoryTests {
    @Test func releasingShrinksTheMappedFilesAndTheProcessWorksOn() async throws {
        let before = try #require(Self.kilobytes("RssFile"))
        IdleMemory.release()
        let after = try #require(Self.kilobytes("RssFile"))
        #expect(after < before, "RssFile \(before) kB before, \(after) kB after")

        // Everything the agent does, after the release: an agent serving a download, read back.
        let fixture = try AgentFixture()
        let content = patternBytes(200_000, seed: 61)
        try fixture.put("Levels", files: ["level1.bin": content])
        try await fixture.publishAndServe()
        IdleMemory.release()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels")
        IdleMemory.release()
        #expect(try await connection.contents(at: "level1.bin") == Data(content))
        #expect(try await connection.namespace().map(\.path) == ["level1.bin"])
        await agent.stopped()
    }

    /// A `kB` figure of /proc/self/status.
    static func kilobytes(_ key: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }
}
