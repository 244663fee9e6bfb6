import Foundation
@testable import AssetPackMigration
import Testing
import TestSupport

@Suite struct PortableSourceRootTests {
    @Test func relativeFormClimbsOnlyWithinASharedFolder() {
        #expect(PortableSourceRoot.relativeForm(of: "/a/b", from: "/a/b") == ".")
        #expect(PortableSourceRoot.relativeForm(of: "/a/b/c", from: "/a") == "b/c")
        #expect(PortableSourceRoot.relativeForm(of: "/a/b/c", from: "/a/d/e") == "../../b/c")
        #expect(PortableSourceRoot.relativeForm(of: "/a", from: "/a/b") == "..")
        #expect(PortableSourceRoot.relativeForm(of: "/srv/data", from: "/") == "srv/data")
        // Nothing shared but `/`: another tree, kept absolute.
        #expect(PortableSourceRoot.relativeForm(of: "/mnt/assets", from: "/home/me/game") == nil)
        #expect(PortableSourceRoot.relativeForm(of: "/ab/c", from: "/a/c") == nil)
    }

    @Test func pathResolvesSymbolicLinksAndKeepsOtherTreesAndWindowsPathsAsWritten() throws {
        let scratch = try TemporaryDirectory("migration")
        defer { scratch.remove() }
        let dir = scratch.path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real/work/content", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/real/run", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real/work")
        // Through the link the content is in real/work; `..` from real/run reaches it the way the kernel walks.
        #expect(PortableSourceRoot.path(for: dir + "/link/content", base: dir + "/real/run") == "../work/content")
        // A content root that does not exist (yet) below an existing, linked folder.
        #expect(PortableSourceRoot.path(for: dir + "/link/later/x", base: dir + "/real/work") == "later/x")
        #expect(PortableSourceRoot.path(for: "D:/BuildMachine/content", base: dir) == "D:/BuildMachine/content")
        let top = "/" + (dir.split(separator: "/").first.map(String.init) ?? "")
        let elsewhere = top == "/nonexistent-root-a" ? "/nonexistent-root-b/x" : "/nonexistent-root-a/x"
        #expect(PortableSourceRoot.path(for: elsewhere, base: dir) == elsewhere)
        #expect(PortableSourceRoot.isRelative("../content") && !PortableSourceRoot.isRelative(elsewhere)
                && !PortableSourceRoot.isRelative("D:/BuildMachine/content"))
    }
}
