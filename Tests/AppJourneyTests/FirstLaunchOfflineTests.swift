import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The first launch happens offline: no pack on the device, the repository unreachable. The app
/// is told which repository it could not reach and that nothing is installed; once the network
/// is back, the same call succeeds — in the same process for the library, with no restart.
@Suite struct FirstLaunchOfflineTests {
    static let core = text("the essential start screen\n", repeating: 200)
    static let level = patternBytes(60_000, seed: 11)

    @Test(arguments: Client.allCases)
    func offlineFirstLaunchSaysWhatFailedThenTheSameCallSucceedsOnceOnline(_ client: Client) async throws {
        let repo = try TestRepository()
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core/start.txt": Self.core])
        try repo.put("Level1", files: ["levels/1.bin": Self.level])
        try repo.publish()
        let offlineAddress = try OfflineAddress()
        let (url, port) = (offlineAddress.url, offlineAddress.port)
        let app = App(client, repo: repo, urls: [url])

        // The install step fails, naming the catalog's URL and why; nothing is installed or left.
        let offline = await app.install()
        #expect(offline.status == 1)
        let error = offline.error ?? ""
        #expect(error.contains("\(url)/catalog.json") || error.contains("127.0.0.1:\(port)/catalog.json"), "\(error)")
        #expect(error.lowercased().contains("connect"), "\(error)")
        switch client {
        case .cli: #expect(error.contains("(nothing is installed in \(app.root))"), "\(error)")
        case .library: #expect(try !app.manager().assetPackIsAvailableLocally(withID: "Core"))
        }
        #expect(tree(app.root + "/packs").isEmpty && tree(app.root + "/staging").isEmpty)
        // Status says the network failed, not that the pack is unknown; no file is readable.
        switch await app.status("Core") {
        case .success(let names): Issue.record("status offline on an empty root answered \(names)")
        case .failure(let e):
            #expect(e.description.contains("catalog.json") && !e.description.contains("no asset pack with ID"), "\(e)")
        }
        #expect(await app.read("core/start.txt") == nil)

        // The network comes back at the same address: the same call, same process, succeeds.
        offlineAddress.release()
        let server = try repo.serve(onPort: port)
        let online = await app.install()
        #expect(online.succeeded, "\(online.error ?? "")")
        #expect(online.events == ["finished Core"])
        #expect(await app.read("core/start.txt") == Self.core)
        #expect(try await app.status("Core").get().contains("downloaded"))
        #expect(try await app.status("Level1").get() == ["downloadAvailable"])
        #expect(server.packRequests().allSatisfy { $0.path.hasPrefix("/packs/Core/") })

        // Offline again: what is installed stays readable and the cached catalog answers status.
        server.stop()
        app.quit()
        #expect(await app.read("core/start.txt") == Self.core)
        #expect(try await app.status("Core").get().contains("upToDate"))
        let onDemand = await app.ensure("Level1")
        #expect(!onDemand.succeeded && (onDemand.error ?? "").contains("packs/Level1/"), "\(onDemand.error ?? "")")
        #expect(try await app.status("Level1").get() == ["downloadAvailable"])
    }
}
