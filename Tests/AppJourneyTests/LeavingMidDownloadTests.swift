import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The user leaves in the middle of a download of a multi-MB pack — the process is killed
/// (SIGKILL) or the app's task is cancelled as it goes to the background — and comes back: the
/// download resumes, the server is asked again for at most what was in flight (its access log
/// counts the bytes), and the installed tree is byte-exact.
@Suite struct LeavingMidDownloadTests {
    static let content = patternBytes(6 << 20, seed: 31)
    /// The most a download can have in flight and lose: one chunk of the default chunking.
    static let inFlight: UInt64 = 1 << 20

    @Test(arguments: Client.allCases)
    func leavingMidDownloadAndComingBackFetchesAtMostWhatWasInFlight(_ client: Client) async throws {
        let repo = try TestRepository()
        try repo.put("Big", files: ["big.bin": Self.content])
        let pack = try repo.publish().packs[0]
        // 6 s for the pack at 1 MiB/s: the user leaves after about 1.5 s, with room to spare on a
        // loaded machine.
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 1 << 20 }
        let app = App(client, repo: repo, urls: [slow.url])
        let threshold: Int64 = 3 << 19

        // The first session: gone once 1.5 MiB are verified.
        let verifiedWhenLeft: Int64
        switch client {
        case .cli:
            let output = repo.dir.file("first.out")
            let first = try app.start(["ensure", "Big"] + app.networkArguments, output: output, error: repo.dir.file("first.err"))
            let killer = Killer(first, when: { lastCompleted(inJSONLines: output) >= threshold }, within: .seconds(90))
            try await waitUntil("the first run is killed", timeout: .seconds(100)) { killer.isDone }
            let ended = try await ChildExit.wait(for: first, timeout: .seconds(30))
            try #require(ended == ChildExit.Status(code: SIGKILL, signaled: true),
                         "the first run ended before it was killed: \(repo.dir.text("first.err") ?? "")")
            verifiedWhenLeft = lastCompleted(inJSONLines: output)
        case .library:
            let manager = try app.manager()
            let updates = UpdateCollector(manager.statusUpdates)
            let ended = Flag()
            let session = Task {
                defer { ended.raise() }
                try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Big"))
            }
            // Bounded generously: the whole suite in one process can starve a download for a while.
            try await waitUntil("1.5 MiB are verified", timeout: .seconds(90)) { updates.lastCompleted("Big") >= threshold || ended.isRaised }
            if ended.isRaised {
                let result = await session.result
                Issue.record("the download ended before the user left: \(result)")
                return
            }
            session.cancel()
            let left = await session.result
            #expect(left.isCancellation, "\(left)")
            _ = await updates.stop(afterQuietPeriod: .milliseconds(50))
            verifiedWhenLeft = updates.lastCompleted("Big")
            app.quit()
        }
        slow.stop()
        #expect(tree(app.root + "/packs").isEmpty, "nothing is visible before the pack is whole")

        // Coming back, on a good network: the download resumes.
        let fast = try repo.serve()
        app.urls = [fast.url]
        let second = await app.ensure("Big")
        #expect(second.succeeded, "\(second.error ?? "")")
        let missing = pack.size - UInt64(verifiedWhenLeft)
        let asked = fast.packRequests().reduce(UInt64(0)) { $0 + $1.bytes }
        print("\(client): left with \(verifiedWhenLeft) of \(pack.size) bytes verified; the second session asked for \(asked), fetched \(second.fetchedBytes)")
        #expect(asked <= missing + Self.inFlight, "asked for \(asked) bytes; \(missing) were missing")
        #expect(second.fetchedBytes <= missing + Self.inFlight)
        #expect(second.fetchedBytes + Self.inFlight >= missing, "the second session fetched less than was missing")
        // The tree is byte-exact and nothing is left in staging.
        let installed = tree(app.root + "/packs")
        #expect(installed.count == 1 && installed.first?.key.hasPrefix("Big/") == true && installed.first?.key.hasSuffix("/big.bin") == true)
        #expect(installed.first?.value == Self.content)
        #expect(tree(app.root + "/staging").isEmpty)
        #expect(await app.read("big.bin") == Self.content)
    }
}

/// The last `completed` of a `downloading` line in a file of `--json` lines (0 when none).
func lastCompleted(inJSONLines path: String) -> Int64 {
    let text = String(decoding: readFile(path), as: UTF8.self)
    for line in text.split(separator: "\n").reversed() {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["event"] as? String == "downloading", let completed = object["completed"] as? Int else { continue }
        return Int64(completed)
    }
    return 0
}

extension UpdateCollector {
    /// The last progress reported for `id` so far (0 when none).
    func lastCompleted(_ id: String) -> Int64 {
        for update in snapshot.reversed() {
            if case .downloading(let p, let progress) = update, p.id == id { return progress.completedUnitCount }
        }
        return 0
    }
}

extension Result {
    /// Whether this is the failure a cancelled caller gets.
    var isCancellation: Bool { if case .failure(let e) = self { e is CancellationError } else { false } }
}
