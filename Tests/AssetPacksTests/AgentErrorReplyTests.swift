import AssetPackFormat
import AssetPackTransport
import AssetPacks
import Foundation
import Testing

/// Every `AssetPackManagerError` the agent answers with comes back, through the JSON of its
/// error reply (docs/AGENT.md), as the same error: a manager working through the agent throws
/// what an in-process one would.
@Suite struct AgentErrorReplyTests {
    static let expires = Date(timeIntervalSince1970: 1_800_000_000), now = Date(timeIntervalSince1970: 1_800_000_600)
    static let errors: [AssetPackManagerError] = [
        .assetPackNotFound(withID: "Nope"),
        .fileNotFound(at: "Levels/missing.bin"),
        .transport(.httpStatus(url: "http://127.0.0.1:9/packs/A/x.pack", status: 404, body: [])),
        .transport(.connection(url: "http://127.0.0.1:9/catalog.json", message: "Connection refused")),
        .transport(.transfer(url: "http://127.0.0.1:9/a", code: 18, message: "transfer closed")),
        .transport(.timedOut(url: "http://127.0.0.1:9/a", message: "low speed")),
        .catalog(.expired(expires: expires, now: now)),
        .catalog(.rolledBack(version: 3, minimumVersion: 5)),
        .catalog(.wrongKey(expected: "abc", found: ["def", "123"])),
        .catalog(.badSignature(keyID: "abc")),
        .verification("chunk 3 of Levels does not hash to its digest"),
        .allowanceExceeded("downloadAllowance", needed: 1200, limit: 1000),
        .storageBudgetExceeded(assetPackID: "Big", needed: 900, budget: 500, evictable: 100),
        .invalidPreservationPriority(1.5, assetPackID: "Levels"),
        .domainNotAllowed(host: "evil.example", url: "https://evil.example/catalog.json"),
        .insecureRedirect(from: "https://cdn.example/a", to: "http://cdn.example/a"),
        .downloadDeclined(assetPackID: "Voice"),
        .cancelled,
        .storage("cannot write /root/x: No space left on device"),
        .invalidConfiguration("no repository URL"),
        .channelNotFound(channel: "beta", url: "http://127.0.0.1:9/channels/beta/catalog.json"),
        .catalog(.wrongChannel(expected: "beta", found: nil)),
    ]

    @Test(arguments: errors) func aReplyBringsBackTheSameError(_ error: AssetPackManagerError) throws {
        let (status, body) = AgentErrorBody.reply(for: error)
        #expect((400..<600).contains(status))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let back = try decoder.decode(AgentErrorBody.self, from: encoder.encode(body))
        let rebuilt = try #require(back.managerError, "\(body.kind) maps back to no manager error")
        #expect("\(rebuilt)" == "\(error)")
        // The same case with the same values, down to the transport or catalog failure.
        #expect(String(reflecting: rebuilt) == String(reflecting: error))
    }

    @Test func theAgentsOwnKindsStayAgentErrors() {
        for kind in ["malformedRequest", "stopping", "forbidden", "notFound", "noRequest", "queue", "internal"] {
            #expect(AgentErrorBody(error: "x", kind: kind).managerError == nil, "\(kind)")
        }
        // A cancel through the agent while a call waits is the manager's `cancelled`.
        guard case .cancelled? = AgentErrorBody(error: "paused", kind: "paused").managerError else {
            Issue.record("paused is not cancelled")
            return
        }
    }
}
