import AppleArchive
import ArgumentParsing
import Foundation

/// `assetpack aar list`.
struct AarListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "list",
            abstract: "List the entries of an Apple Archive.",
            discussion: """
            One line per entry: type letter (F file, D folder, L symlink, ...), mode, uid/gid, size,
            modification time (UTC), path and, for a symlink, its target. With --json, one JSON
            object per line: type, path, mode (octal text), size, link, and unexpectedKeys when the
            entry has fields this reader does not know.
            """)
    }

    @Argument("FILE")
    var archive: String
    @Flag("--json", help: "One JSON object per line and entry: type, path, mode, size, link.")
    var json: Bool

    init() {}

    private struct Row: Encodable {
        let type: String
        let path: String
        let mode: String?
        let size: UInt64
        let link: String?
        let unexpectedKeys: [String]?
    }

    func run() throws -> Int32 {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = ""
        do {
            let reader = try AppleArchiveReader(path: archive)
            while let e = try reader.nextEntry() {
                let mode = e.mode.map { "0" + String($0, radix: 8) }
                if json {
                    let row = Row(type: e.type.description, path: e.path, mode: mode, size: e.size, link: e.linkTarget,
                                  unexpectedKeys: e.unexpectedKeys.isEmpty ? nil : e.unexpectedKeys)
                    out += String(decoding: try encoder.encode(row), as: UTF8.self) + "\n"
                } else {
                    out += Self.line(e, mode: mode) + "\n"
                }
                if out.utf8.count > 1 << 16 { FileHandle.standardOutput.write(Data(out.utf8)); out = "" }
            }
        } catch let error as AppleArchiveError {
            FileHandle.standardOutput.write(Data(out.utf8))
            throw CLIError.failure("\(archive): \(error)")
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        return 0
    }

    private static func line(_ e: AppleArchiveEntry, mode: String?) -> String {
        let owner = "\(e.uid.map(String.init) ?? "-")/\(e.gid.map(String.init) ?? "-")"
        let time = e.modificationTime.map { Self.utc($0.seconds) } ?? "-"
        var text = "\(e.type.letter) \(mode ?? "-") \(owner) \(e.size) \(time) \(e.path.isEmpty ? "." : e.path)"
        if let link = e.linkTarget { text += " -> \(link)" }
        if !e.unexpectedKeys.isEmpty { text += "  [unexpected fields: \(e.unexpectedKeys.joined(separator: " "))]" }
        return text
    }

    private static func utc(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
