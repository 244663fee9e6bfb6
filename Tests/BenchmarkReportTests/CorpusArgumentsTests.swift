import Foundation
import Testing
import TestSupport

/// bench/corpus.py's arguments: it writes gigabytes into the folder it is given, so an option or
/// a size it does not know is refused before anything is written.
@Suite struct CorpusArgumentsTests {
    static let generator = DocumentedBlock.packageRoot.appendingPathComponent("bench/corpus.py").path

    @Test func helpPrintsTheUsageAndWritesNothing() async throws {
        let directory = try TemporaryDirectory("corpus-help")
        let result = try await ChildProcess.run("/usr/bin/python3", [Self.generator, "--help"], in: directory.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: corpus.py DIR [SIZE_MIB|small|small300|small1m|packs]"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(arguments: [
        (["-o"], "a folder is named, not an option: '-o'"),
        (["out", "12x"], "not '12x'"),
        (["out", "0"], "not '0'"),
        ([], "usage: corpus.py DIR"),
        (["out", "1", "more"], "usage: corpus.py DIR"),
    ])
    func aBadArgumentIsRefusedBeforeAnythingIsWritten(arguments: [String], why: String) async throws {
        let directory = try TemporaryDirectory("corpus-refused")
        let result = try await ChildProcess.run("/usr/bin/python3", [Self.generator] + arguments, in: directory.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains(why), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
