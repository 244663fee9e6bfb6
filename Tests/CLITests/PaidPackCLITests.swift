import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Paid packs through the binary: `publish --encrypt --key-store`, `key-server --grants`, and
/// `ensure --entitlement --key-server`, which the root remembers (the token in a 0600 file).
@Suite struct PaidPackCLITests {
    @Test func publishServeKeysAndEnsureWithAnEntitlement() async throws {
        let dir = try TemporaryDirectory("paid-cli")
        try dir.write("src/chapter2/level.json", textBytes(400_000, seed: 71))
        try dir.write("Chapter2.json", """
        {"assetPackID": "Chapter2", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "src"}], "platforms": ["iOS"]}
        """)
        #expect(try await Assetpack.run(["keygen", "-o", "signing.pem"], in: dir.path).status == 0)
        // A key store that others may read is refused, and nothing is published.
        try dir.write("loose.json", "{\"format\": \"assetpack-key-store\", \"version\": 1, \"packs\": {}}", mode: 0o644)
        let loose = try await Assetpack.run(["publish", "Chapter2.json", "--repo", "site", "--key", "signing.pem",
                                             "--encrypt", "Chapter2", "--key-store", "loose.json"], in: dir.path)
        #expect(loose.status == 1 && loose.stderr.contains("has mode 0644, so others may read the content keys"), "\(loose.stderr)")
        #expect(!dir.exists("site/catalog.json"))
        let publish = try await Assetpack.run(["publish", "Chapter2.json", "--repo", "site", "--key", "signing.pem",
                                               "--encrypt", "Chapter2", "--key-store", "keys.json"], in: dir.path)
        #expect(publish.status == 0, "\(publish.stderr)")

        // The key server refuses to hand keys out in clear off loopback.
        try dir.write("grants.json", """
        {"format": "assetpack-grants", "version": 1, "tokens": {"tok-buyer": {"packs": ["Chapter2"]}}}
        """)
        let exposed = try await Assetpack.run(["key-server", "--key-store", "keys.json", "--grants", "grants.json", "--host", "0.0.0.0", "--port", "0"],
                                              in: dir.path)
        #expect(exposed.status == 1 && exposed.stderr.contains("content keys travel only over TLS"), "\(exposed.stderr)")
        let server = try Assetpack.start(["key-server", "--key-store", "keys.json", "--grants", "grants.json", "--port", "0"], in: dir.path,
                                         output: dir.file("ks.out"), error: dir.file("ks.err"))
        defer { server.terminate() }
        try await waitUntil("the key server to say where it serves") {
            guard server.isRunning else { throw TestSupportError("key-server exited: \(dir.text("ks.err") ?? "")") }
            return dir.text("ks.out")?.contains("Serving content keys at ") == true
        }
        let url = try #require(dir.text("ks.out")?.components(separatedBy: "Serving content keys at ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let pub = try #require(dir.text("signing.pem.pub")?.trimmingCharacters(in: .whitespacesAndNewlines))

        // Without an entitlement: refused, nothing installed, status says why.
        let root = dir.file("root")
        let refused = try await Assetpack.run(["ensure", "Chapter2", "--root", root, "--repo", dir.file("site"), "--public-key", pub])
        #expect(refused.status == 1 && refused.stderr.contains("Chapter2 is a paid pack: it needs an entitlement"), "\(refused.stderr)")
        let status = try await Assetpack.run(["status", "Chapter2", "--root", root])
        #expect(status.stdout.contains("requiresEntitlement"), "\(status.stdout)")

        let ensure = try await Assetpack.run(["ensure", "Chapter2", "--root", root, "--entitlement", "tok-buyer", "--key-server", url])
        #expect(ensure.status == 0, "\(ensure.stderr)")
        let cat = try await Assetpack.run(["cat", "src/chapter2/level.json", "--root", root])
        #expect(Array(cat.stdout.utf8) == textBytes(400_000, seed: 71))
        var st = stat()
        #expect(stat(dir.file("root/entitlement"), &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(dir.text("root/entitlement") == "tok-buyer\n")
        let log = dir.text("ks.err") ?? ""
        #expect(log.contains(" 200 granted: key ") && !log.contains("tok-buyer"), "\(log)")

        // Through the agent, on a root that has no key yet: it presents the entitlement and the
        // key server that root remembers, and asks the key server itself.
        let agentRoot = dir.file("agent-root")
        try RootSettings(repositoryURLs: [URL(fileURLWithPath: dir.file("site")).absoluteString], publicKey: pub, keyServerURL: url, entitlementToken: "tok-buyer").save(root: agentRoot)
        let agent = try Assetpack.start(["agent", "--root", agentRoot], output: dir.file("agent.out"), error: dir.file("agent.err"))
        defer { if agent.isRunning { kill(agent.processIdentifier, SIGKILL) } }
        let connection = try AgentConnection(root: agentRoot)
        try await waitUntil("the agent to answer", timeout: .seconds(60)) {
            guard agent.isRunning else { throw TestSupportError("the agent exited: \(dir.text("agent.err") ?? "")") }
            return await connection.isReachable()
        }
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Chapter2")
        let viaAgent = try await Assetpack.run(["cat", "src/chapter2/level.json", "--root", agentRoot, "--installed"])
        #expect(Array(viaAgent.stdout.utf8) == textBytes(400_000, seed: 71), "\(viaAgent.stderr)")
        #expect((dir.text("ks.err") ?? "").components(separatedBy: " 200 granted: key ").count == 3, "the agent asked the key server once")
        kill(agent.processIdentifier, SIGTERM)
        try await waitUntil("the agent to exit", timeout: .seconds(30)) { !agent.isRunning }
    }
}
