import AssetPackFormat
import Foundation
import TestSupport
import Testing

/// Paths below a `ConfinedDirectory` never follow a link and never leave it, through `openat2`
/// and through the component-by-component walk used where the kernel lacks it alike.
@Suite struct ConfinedDirectoryTests {
    /// A root with `inside/a.txt`, a folder `outside/` beside it holding `victim.txt`, and links
    /// inside the root to both: `link` (to the outside folder) and `inside/file-link` (to the victim).
    private func planted() throws -> (TemporaryDirectory, String, String) {
        let dir = try TemporaryDirectory()
        try dir.write("root/inside/a.txt", Array("a\n".utf8))
        let victim = try dir.write("outside/victim.txt", Array("precious\n".utf8))
        let root = dir.file("root")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: dir.file("outside"))
        try FileManager.default.createSymbolicLink(atPath: root + "/inside/file-link", withDestinationPath: victim)
        return (dir, root, victim)
    }

    @Test(arguments: [true, false])
    func opensPlainPathsAndRefusesLinksOnTheWay(openat2: Bool) throws {
        let (dir, rootPath, victim) = try planted()
        let root = try ConfinedDirectory(root: rootPath, usesOpenat2: openat2)
        #expect(try root.contents(of: "inside/a.txt") == Array("a\n".utf8))
        #expect(try root.contents(of: "inside/missing") == nil)

        for path in ["link/victim.txt", "inside/file-link", "link"] {
            do {
                let fd = try root.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
                close(fd)
                Issue.record("\(path) was opened")
            } catch {
                #expect(error.kind == .symbolicLink, "\(path): \(error)")
                #expect(error.description.contains(rootPath + "/" + (path == "inside/file-link" ? "inside/file-link" : "link")), "\(error)")
            }
        }
        #expect(throws: ConfinementError.self) { _ = try root.directory("link/new", create: true) }
        #expect(throws: ConfinementError.self) { try root.write(Array("x".utf8), to: "link/victim.txt") }
        #expect(throws: ConfinementError.self) { try root.setMode("inside/file-link", 0o777) }
        #expect(dir.contents("outside/victim.txt") == Array("precious\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("outside")) == ["victim.txt"])
        _ = victim
    }

    @Test(arguments: ["/etc/passwd", "../outside/victim.txt", "inside/../../outside/victim.txt", "inside//a.txt", "./inside/a.txt", "inside/.", "..", "."])
    func refusesPathsThatAreNotPlain(path: String) throws {
        let (dir, rootPath, _) = try planted()
        let root = try ConfinedDirectory(root: rootPath)
        do {
            _ = try root.open(path, flags: O_RDONLY)
            Issue.record("\(path) was opened")
        } catch {
            #expect(error.kind == .malformed, "\(error)")
            #expect(error.description.contains(path.hasPrefix("/") ? path : rootPath + "/" + path), "\(error)")
        }
        #expect(throws: ConfinementError.self) { try root.removeTree(path) }
        #expect(dir.contents("outside/victim.txt") == Array("precious\n".utf8))
    }

    @Test(arguments: [true, false])
    func removingATreeRemovesLinksWithoutFollowingThem(openat2: Bool) throws {
        let (dir, rootPath, _) = try planted()
        let root = try ConfinedDirectory(root: rootPath, usesOpenat2: openat2)
        try root.removeTree("inside")
        try root.removeTree("link")
        try root.removeTree("never-was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: rootPath).isEmpty)
        #expect(dir.contents("outside/victim.txt") == Array("precious\n".utf8))
    }

    @Test(arguments: [true, false])
    func createsRenamesAndListsBelowTheRoot(openat2: Bool) throws {
        let (dir, rootPath, _) = try planted()
        let root = try ConfinedDirectory(root: rootPath, usesOpenat2: openat2)
        let folder = try root.directory("new/deeper", create: true)
        try folder.write(Array("b\n".utf8), to: "b.txt")
        try root.rename("new/deeper", to: "inside/moved")
        #expect(dir.contents("root/inside/moved/b.txt") == Array("b\n".utf8))
        #expect(try root.entries("inside").sorted() == ["a.txt", "file-link", "moved"])
        #expect(try root.entries("nothing-here").isEmpty)
        #expect(root.exists("inside/file-link"))
        // A rename whose destination folder is a link is refused.
        #expect(throws: ConfinementError.self) { try root.rename("inside/a.txt", to: "link/a.txt") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("outside")) == ["victim.txt"])
    }

    /// A path as long as a pack path may be (4096 bytes, more than the kernel takes whole with its
    /// terminator) is written, opened and read back below the root, and a link on its way is
    /// still refused.
    @Test(arguments: [true, false])
    func pathsAtThePackPathLimitAreWalked(openat2: Bool) throws {
        let (dir, rootPath, _) = try planted()
        defer { dir.remove() }
        let root = try ConfinedDirectory(root: rootPath, usesOpenat2: openat2)
        let folders = String(repeating: String(repeating: "f", count: 199) + "/", count: 20)
        let path = "inside/" + folders + String(repeating: "n", count: 4096 - 7 - folders.utf8.count)
        #expect(path.utf8.count == 4096)
        _ = try root.directory(String(path[..<path.lastIndex(of: "/")!]), create: true)
        try root.write(Array("deep\n".utf8), to: path)
        #expect(try root.contents(of: path) == Array("deep\n".utf8))
        let fd = try root.open(path, flags: O_WRONLY | O_APPEND)
        close(fd)
        #expect(throws: ConfinementError.self) { _ = try root.open("link/" + folders + "x", flags: O_RDONLY) }
    }

    /// A conditional link is made only for a file the check approves; the shared files of a
    /// folder lose their name there and nothing else does; a renewed change time is later than
    /// every change made before it.
    @Test func conditionalLinksSharedFileRemovalAndARenewedChangeTime() throws {
        let (dir, rootPath, victim) = try planted()
        defer { dir.remove() }
        let root = try ConfinedDirectory(root: rootPath)
        _ = try root.directory("old/x", create: true)
        try root.write(Array("shared\n".utf8), to: "old/x/shared.txt")
        try root.write(Array("own\n".utf8), to: "old/x/own.txt")
        try FileManager.default.createSymbolicLink(atPath: rootPath + "/old/x/to-victim", withDestinationPath: victim)
        let old = try root.directory("old"), new = try root.directory("new", create: true)
        #expect(try old.link("x/shared.txt", to: "x/refused.txt", in: new, if: { _ in false }) == false)
        #expect(!new.exists("x/refused.txt"))
        #expect(try old.link("x/shared.txt", to: "x/shared.txt", in: new, if: { $0.st_size == 7 }))
        #expect(throws: ConfinementError.self) { _ = try old.link("x/to-victim", to: "x/v", in: new, if: { _ in true }) }
        let before = try #require(root.status("new/x/shared.txt"))
        try root.removeFilesWithOtherNames(in: "old")
        #expect(!root.exists("old/x/shared.txt") && root.exists("old/x/own.txt") && root.exists("old/x/to-victim"))
        let after = try #require(root.status("new/x/shared.txt"))
        #expect(after.st_nlink == 1 && after.st_ino == before.st_ino)
        #expect(try root.contents(of: "new/x/shared.txt") == Array("shared\n".utf8))
        #expect(dir.contents("outside/victim.txt") == Array("precious\n".utf8))
        let renewed = try #require(new.renewChangeTime())
        #expect(renewed >= ConfinedDirectory.changeTime(after))
        let mode = try #require(root.status("new")).st_mode
        #expect(try #require(new.renewChangeTime()) >= renewed && (try #require(root.status("new")).st_mode) == mode)
    }
}
