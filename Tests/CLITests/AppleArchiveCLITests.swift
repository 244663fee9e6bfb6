import Foundation
import TestSupport
import Testing

/// `assetpack aar list` and `aar extract` as a user runs them: the Sparkle sample, refusals with
/// exit 1 and nothing left behind, and memory that does not grow with the archive's data or
/// its number of entries beyond the set of paths.
@Suite struct AppleArchiveCLITests {
    static func sample(_ suffix: String) throws -> String { try SharedTestData.path("SparkleTestCodeSignApp.\(suffix)", in: "apple-archive") }

    /// Runs `assetpack ARGUMENTS` under Python and returns its exit status, output line count
    /// and peak resident memory in MiB (the child's `ru_maxrss`).
    static func measured(_ arguments: [String], in directory: String) throws -> (status: Int32, lines: Int, peakMiB: Int, stderr: String) {
        let script = """
            import resource, subprocess, sys
            p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            print(p.returncode, p.stdout.count(b'\\n'), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
            sys.stderr.write(p.stderr.decode(errors='replace'))
            """
        let result = try ChildProcess.runBlocking("/usr/bin/env", ["python3", "-c", script, try Assetpack.executable()] + arguments, in: directory)
        let parts = result.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard parts.count == 3 else { throw TestSupportError("the measuring script failed: \(result.stderr)") }
        return (Int32(parts[0]), parts[1], parts[2], result.stderr)
    }

    @Test func listsTheSampleAsTextAndJSONLines() async throws {
        let json = try await Assetpack.run(["aar", "list", "--json", try Self.sample("raw.aa")])
        #expect(json.status == 0, "\(json.stderr)")
        let rows = json.jsonLines
        #expect(rows.count == 227)
        let link = rows.first { $0["path"] as? String == "SparkleTestCodeSignApp.app/Contents/Frameworks/Sparkle.framework/Modules" }
        #expect(link?["type"] as? String == "symlink" && link?["link"] as? String == "Versions/Current/Modules" && link?["mode"] as? String == "0755")
        let plist = rows.first { $0["path"] as? String == "SparkleTestCodeSignApp.app/Contents/Info.plist" }
        #expect(plist?["type"] as? String == "file" && plist?["size"] as? Int == 1497 && plist?["mode"] as? String == "0644", "\(String(describing: plist))")
        let text = try await Assetpack.run(["aar", "list", try Self.sample("raw.aa")])
        #expect(text.status == 0 && text.stdout.split(separator: "\n").count == 227)
        #expect(text.stdout.contains("L 0755 501/20 0 2015-04-13T21:09:48Z SparkleTestCodeSignApp.app/Contents/Frameworks/Sparkle.framework/Modules -> Versions/Current/Modules"))
    }

    @Test func extractsTheSampleAndRefusesWhatItCannotRead() async throws {
        let s = try TemporaryDirectory("cli-aar"); defer { s.remove() }
        let done = try await Assetpack.run(["aar", "extract", try Self.sample("raw.aa"), "-o", "out"], in: s.path)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("extracted 152 files, 69 folders, 6 symlinks"))
        #expect(s.text("out/SparkleTestCodeSignApp.app/Contents/Frameworks/Sparkle.framework/Versions/Current/Resources/Info.plist")?.contains("CFBundleIdentifier") == true)
        let again = try await Assetpack.run(["aar", "extract", try Self.sample("raw.aa"), "-o", "out"], in: s.path)
        #expect(again.status == 1 && again.stderr.contains("out: already exists and is not an empty directory"), "\(again.stderr)")
        let encrypted = try await Assetpack.run(["aar", "extract", try Self.sample("enc.aar"), "-o", "enc"], in: s.path)
        #expect(encrypted.status == 1 && encrypted.stderr.contains("encrypted Apple Archive (AEA1), not supported"), "\(encrypted.stderr)")
        // An entry that climbs out of the output: exit 1, the entry and offset named, nothing left.
        var escape: [UInt8] = Array("AA01".utf8) + [24, 0] + Array("TYP1D".utf8) + Array("PATP".utf8) + [1, 0, UInt8(ascii: "a")] + Array("MOD2".utf8) + [0xed, 0x01]
        escape += Array("AA01".utf8) + [29, 0] + Array("TYP1F".utf8) + Array("PATP".utf8) + [12, 0] + Array("../pwned.txt".utf8)
        try s.write("escape.aar", escape)
        let refused = try await Assetpack.run(["aar", "extract", "escape.aar", "-o", "esc"], in: s.path)
        #expect(refused.status == 1 && refused.stderr.contains("entry 1 (../pwned.txt) at offset 24"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).sorted() == ["escape.aar", "out"])
        let usage = try await Assetpack.run(["aar", "extract", "escape.aar"], in: s.path)
        #expect(usage.status == 2 && usage.stderr.contains("--output"))
    }

    /// Memory does not follow the data: a 256 MiB file extracts in about the memory of a 1 MiB one.
    @Test func memoryDoesNotGrowWithTheData() throws {
        let s = try TemporaryDirectory("cli-aar-rss"); defer { s.remove() }
        let writer = """
            import struct, sys, zlib
            size, out = int(sys.argv[1]), sys.argv[2]
            data_header = b'DATC' + struct.pack('<Q', size)
            body = b'TYP1F' + b'PATP' + struct.pack('<H', 8) + b'big.data' + data_header
            stream_head = b'AA01' + struct.pack('<H', len(body) + 6) + body
            block = 1 << 20
            pattern = bytes((i * 7919 >> 3) & 0xff for i in range(block))
            with open(out, 'wb') as f:
                f.write(b'pbzz' + struct.pack('>Q', block))
                pending, left = stream_head, size
                while pending or left:
                    take = min(left, block - len(pending)); pending += pattern[:take]; left -= take
                    c = zlib.compress(pending, 1)
                    f.write(struct.pack('>QQ', len(pending), len(c)) + c); pending = b''
            """
        var peaks: [Int] = []
        for (name, size) in [("small", 1 << 20), ("large", 256 << 20)] {
            let made = try ChildProcess.runBlocking("/usr/bin/env", ["python3", "-c", writer, String(size), s.file("\(name).aar")])
            #expect(made.status == 0, "\(made.stderr)")
            let run = try Self.measured(["aar", "extract", "\(name).aar", "-o", name], in: s.path)
            #expect(run.status == 0, "\(run.stderr)")
            var st = stat()
            #expect(stat(s.file("\(name)/big.data"), &st) == 0 && st.st_size == size)
            peaks.append(run.peakMiB)
            try FileManager.default.removeItem(atPath: s.file(name))
        }
        #expect(peaks[1] < peaks[0] + 48, "peak RSS \(peaks[0]) MiB for 1 MiB of data, \(peaks[1]) MiB for 256 MiB")
    }

    /// A million tiny entries list in bounded memory (the paths seen, for duplicates, and little else).
    @Test func aMillionTinyEntriesList() throws {
        let s = try TemporaryDirectory("cli-aar-many"); defer { s.remove() }
        let writer = """
            import struct, sys
            out = bytearray()
            for i in range(1000000):
                path = b'd%d/f%d' % (i // 1000, i)
                body = b'TYP1F' + b'PATP' + struct.pack('<H', len(path)) + path + b'DATA' + struct.pack('<H', 1)
                out += b'AA01' + struct.pack('<H', len(body) + 6) + body + b'x'
            open(sys.argv[1], 'wb').write(out)
            """
        let made = try ChildProcess.runBlocking("/usr/bin/env", ["python3", "-c", writer, s.file("many.aa")])
        #expect(made.status == 0, "\(made.stderr)")
        let run = try Self.measured(["aar", "list", "--json", "many.aa"], in: s.path)
        #expect(run.status == 0 && run.lines == 1_000_000, "\(run.stderr)")
        #expect(run.peakMiB < 256, "peak RSS \(run.peakMiB) MiB")
    }
}
