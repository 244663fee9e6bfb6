import AssetPackFormat
import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// What the catalog says of a pack file just packaged comes from the writer's report rather than
/// from reading the file back: it must be what reading the file back says, sealed or not.
@Suite struct PackFileInfoTests {
    @Test(arguments: [false, true])
    func theWritersReportDescribesThePackAsReadingItBackDoes(sealed: Bool) async throws {
        let ws = try workspace()
        let manifest = try ws.put("Voice", policy: .prefetch(installationEventTypes: [.firstInstallation]), language: "fr",
                                  userInfo: ["level": 3],
                                  files: ["a/big.bin": patternBytes(700_000, seed: 9), "a/small.txt": Array("petit".utf8), "b": []])
        let input = ResolvedManifest(path: manifest, baseDirectory: ws.dir.path)
        try #require(input.isValid)
        let metadata = PackMetadata(input.manifest!)
        let key = sealed ? ContentKey.generate() : nil
        var writer = ws.options().writer
        writer.sealing = key
        writer.digestsFile = true
        let path = ws.dir.file("written.pack")
        let summary = try writer.write(metadata: metadata, files: input.files, to: path)
        let written = try #require(PackFileInfo(written: summary, metadata: metadata, writer: writer))
        let read = try PackFileInfo(path: path, keys: key.map { [$0] } ?? [])
        #expect(written == read)
        #expect((written.keyID != nil) == sealed && written.downloadSize == written.size)
        // Without the file's hash from the writer there is nothing to describe it by.
        var unhashed = summary
        unhashed.fileSHA256 = nil
        #expect(PackFileInfo(written: unhashed, metadata: metadata, writer: writer) == nil)
    }
}
