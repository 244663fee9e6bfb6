@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `ensure` leaves a pack's files to the kernel's writeback and records the boot in the store,
/// unless `--flush` asks it to flush them before the commit; either way the pack is installed.
@Suite struct DurabilityCLITests {
    @Test(arguments: [false, true]) func ensureRecordsTheBootUnlessAskedToFlush(_ flush: Bool) async throws {
        let dir = try TemporaryDirectory("cli-durability")
        try dir.write("Manifests/Levels.json", Array(#"{"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "levels"}], "platforms": ["iOS"]}"#.utf8))
        try dir.write("levels/world.bin", patternBytes(1_500_000, seed: 7))
        for arguments in [["keygen", "-o", "signing.pem"], ["publish", "Manifests/Levels.json", "--repo", "site", "--key", "signing.pem"],
                          ["ensure", "Levels", "--root", "root", "--repo", "site", "--public-key", "signing.pem.pub"] + (flush ? ["--flush"] : [])] {
            let result = try await Assetpack.run(arguments, in: dir.path)
            #expect(result.status == 0, "assetpack \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        let store = try ClientStore(path: StorageLayout(root: dir.file("root")).database)
        #expect(try store.installedPack("Levels") != nil)
        let unflushed = try store.unflushedInstalls()
        #expect(unflushed.map(\.id) == (flush ? [] : ["Levels"]))
        #expect(unflushed.first?.unflushed?.id == (flush ? nil : BootSession.current()?.id))
        let cat = try await Assetpack.run(["cat", "levels/world.bin", "--root", "root"], in: dir.path)
        #expect(cat.status == 0 && cat.output == Data(patternBytes(1_500_000, seed: 7)))
    }
}
