import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport

@Suite struct FileSelectionTests {
    func manifest(_ selectors: [FileSelector], sourceRoot: String? = nil) -> AssetPackManifest {
        AssetPackManifest(assetPackID: "p", downloadPolicy: .onDemand, fileSelectors: selectors, platforms: [.iOS], sourceRoot: sourceRoot)
    }

    @Test func selectsFilesAndDirectoriesInPackOrder() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("Videos/Intro.m4v", "v")
        try dir.write("Textures/T/b.png", "b")
        try dir.write("Textures/T/a/z.png", "z", mode: 0o755)
        try dir.write("Textures/T/a.png", "a")
        try dir.write("Other/x", "x")
        let (files, d) = FileSelection.resolve(manifest([.file("./Videos//Intro.m4v"), .directory("Textures/T/")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.isEmpty)
        #expect(files.map(\.packPath) == ["Textures/T/a.png", "Textures/T/a/z.png", "Textures/T/b.png", "Videos/Intro.m4v"])
        #expect(files[1].mode == 0o755)
        #expect(files.allSatisfy { $0.size == 1 })
    }

    @Test func aListedFileIsItsNamesPlaceInItsFolder() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let names = ["a.b", "a/b", "a/c/d", "a-b/c", "a0", "B", "é.txt", "long-name-of-a-file-past-fifteen-bytes.json"]
        for (i, name) in names.enumerated() { try dir.write("top/\(name)", String(repeating: "x", count: i + 1)) }
        try dir.write("other/own.txt", "o")
        let (files, d) = FileSelection.resolve(manifest([.directory("top"), .file("other/own.txt")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.isEmpty)
        let expected = (names.map { "top/\($0)" } + ["other/own.txt"]).sorted(by: PackPath.precedes)
        #expect(files.map(\.packPath) == expected)
        for file in files {
            // The paths put together on demand are the ones on disk, and the bytes lent in place
            // are the pack path's.
            #expect(FileManager.default.contents(atPath: file.sourcePath)?.count == Int(file.size))
            #expect(file.sourcePath == dir.path + "/" + file.packPath)
            #expect(file.withPackPath { Array($0) } == Array(file.packPath.utf8))
            var bytes: [UInt8] = []
            file.appendSourcePath(to: &bytes)
            #expect(bytes == Array(file.sourcePath.utf8))
            #expect(file.withSourceName { String(cString: $0) } == (file.sourceFolder == nil ? file.sourcePath : String(file.packPath.split(separator: "/").last!)))
        }
        // Only the file named by a selector of its own holds its paths.
        #expect(files.filter { $0.sourceFolder == nil }.map(\.packPath) == ["other/own.txt"])
        // In place, the order is the pack order of the strings, whatever the pair.
        for x in files { for y in files { #expect(SelectedFile.precedes(x, y) == PackPath.precedes(x.packPath, y.packPath)) } }
        // A file takes 24 bytes in a list: its name lives once in its folder.
        #expect(MemoryLayout<SelectedFile>.stride == 24)
    }

    @Test func resolvesAgainstSourceRoot() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("Assets/Voice/en/a.caf", "1")
        try dir.write("Assets/Voice/en/sub/b.caf", "2")
        let (files, d) = FileSelection.resolve(manifest([.directory(".")], sourceRoot: "Assets/Voice/en"), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.isEmpty)
        #expect(files.map(\.packPath) == ["a.caf", "sub/b.caf"])
        let missing = FileSelection.resolve(manifest([.directory(".")], sourceRoot: "Nope"), manifestFile: "M.json", baseDirectory: dir.path).diagnostics
        #expect(missing.first?.keyPath == "sourceRoot")
        #expect(missing.first?.message.contains("not an existing directory") == true)
    }

    @Test func reportsMissingPathsByName() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("a", "a")
        let (_, d) = FileSelection.resolve(manifest([.file("a"), .file("gone.png"), .directory("nodir")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.map(\.keyPath) == ["fileSelectors[1].file", "fileSelectors[2].directory"])
        #expect(d[0].message.contains("no such file \"gone.png\""))
        #expect(d[1].message.contains("no such directory \"nodir\""))
    }

    @Test func rejectsKindMismatches() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/f", "x")
        let (_, d) = FileSelection.resolve(manifest([.file("d"), .directory("d/f")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.count == 2)
        #expect(d[0].message.contains("is a directory"))
        #expect(d[1].message.contains("is not a directory"))
    }

    @Test func rejectsSymlinksThatEscapeTheRoot() throws {
        let outside = try TemporaryDirectory("outside"); defer { outside.remove() }
        try outside.write("secret", "s")
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("root/d/ok", "o")
        try dir.write("root/target", "t")
        symlink(outside.path + "/secret", dir.path + "/root/d/leak")
        symlink(outside.path, dir.path + "/root/outdir")
        symlink("../target", dir.path + "/root/d/inside")
        let (files, d) = FileSelection.resolve(manifest([.directory("d"), .file("outdir/secret")], sourceRoot: "root"), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.count == 2)
        #expect(d[0].keyPath == "fileSelectors[0].directory" && d[0].message.contains("\"d/leak\" is a symlink that leads outside"))
        #expect(d[1].keyPath == "fileSelectors[1].file" && d[1].message.contains("resolves outside the source root"))
        // A symlink that stays inside the root is followed and packed as a regular file.
        #expect(files.map(\.packPath) == ["d/inside", "d/ok"])
    }

    @Test func rejectsSymlinkLoops() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/f", "x")
        symlink(".", dir.path + "/d/loop")
        let (_, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.contains { $0.message.contains("symlink loop") })
    }

    @Test func rejectsFilesSelectedTwice() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/a", "a")
        let (_, d) = FileSelection.resolve(manifest([.directory("d"), .file("d/a")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.count == 1)
        #expect(d[0].keyPath == "fileSelectors[1].file")
        #expect(d[0].message.contains("already selected by fileSelectors[0]"))
    }

    @Test func rejectsAnEmptySelection() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try! FileManager.default.createDirectory(atPath: dir.path + "/empty/deeper", withIntermediateDirectories: true)
        let (_, d) = FileSelection.resolve(manifest([.directory("empty")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.count == 1)
        #expect(d[0].message.contains("select no files"))
    }

    @Test func rejectsSpecialFiles() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/a", "a")
        mkfifo(dir.path + "/d/pipe", 0o644)
        let (_, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.count == 1)
        #expect(d[0].message.contains("\"d/pipe\" is not a regular file"))
    }

    @Test func warnsAboutCaseOnlyDifferences() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/Hero.png", "a")
        try dir.write("d/hero.png", "b")
        let (files, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(files.count == 2)
        #expect(d.count == 1 && d[0].severity == .warning && d[0].message.contains("differ only in case"))
    }

    /// A folder's names are listed into one buffer (`FolderListing`) that grows past its first
    /// 16 KiB and sorted byte by byte: capitals before lowercase, "a-b" and "a.txt" before "a/…",
    /// non-ASCII after ASCII, and each name still leads to its own file.
    @Test func listsALargeFolderInByteOrder() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        var names = ["b", "B", "a-b", "a.txt", "Z", "é.txt", "e.txt", "ü", "z"]
        names += (0..<600).map { "file-with-a-longer-name-\(($0 * 7919) % 600).json" }
        for name in names { try dir.write("d/" + name, name) }
        try dir.write("d/a/inner", "inner")
        let (files, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.map(\.message).sorted() == ["\"d/b\" and \"d/B\" differ only in case and collide on case-insensitive file systems",
                                              "\"d/z\" and \"d/Z\" differ only in case and collide on case-insensitive file systems"])
        let expected = (names.map { "d/" + $0 } + ["d/a/inner"]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(files.map(\.packPath) == expected)
        #expect(files.allSatisfy { $0.size == UInt64($0.packPath.utf8.count - 2) || $0.packPath == "d/a/inner" })
        #expect(files.allSatisfy { $0.sourcePath.hasSuffix("/" + $0.packPath) })
    }

    /// The walk knows a path is valid from its folder's path and the name alone; a name with a
    /// control character, or any file below a folder whose name has one, is still refused by path.
    @Test func refusesControlCharactersInNamesAndFolders() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/ok.txt", "ok")
        try dir.write("d/bad\u{1}.txt", "b")
        try dir.write("d/sub\u{7F}/x.txt", "x")
        let (_, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.map(\.message) == ["\"d/bad\u{1}.txt\" cannot be a pack path: it contains a control character",
                                     "\"d/sub\u{7F}/x.txt\" cannot be a pack path: it contains a control character"])
        #expect(d.allSatisfy { $0.severity == .error && $0.keyPath == "fileSelectors[0].directory" })
    }

    /// A name that is not valid UTF-8 cannot be a pack path: it is refused by name (its bytes
    /// escaped), not left out in silence, and the files beside it are still selected.
    @Test func refusesNamesThatAreNotUTF8() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("d/ok.txt", "ok")
        try dir.write("d/sub/x.txt", "x")
        for name in [Array("d/bad".utf8) + [0xFF] + Array(".txt".utf8), Array("d/sub/".utf8) + [0xC3, 0x28]] {
            let fd = (Array(dir.path.utf8) + [0x2F] + name + [0]).withUnsafeBufferPointer {
                $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
            }
            #expect(fd >= 0)
            close(fd)
        }
        let (files, d) = FileSelection.resolve(manifest([.directory("d")]), manifestFile: "M.json", baseDirectory: dir.path)
        #expect(d.map(\.message) == ["\"d/bad\\xFF.txt\" cannot be a pack path: its name is not valid UTF-8 (bytes shown as \\xHH); rename it",
                                     "\"d/sub/\\xC3(\" cannot be a pack path: its name is not valid UTF-8 (bytes shown as \\xHH); rename it"])
        #expect(d.allSatisfy { $0.severity == .error && $0.keyPath == "fileSelectors[0].directory" })
        #expect(files.map(\.packPath) == ["d/ok.txt", "d/sub/x.txt"])
    }
}
