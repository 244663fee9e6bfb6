@testable import AssetPackServer
import Foundation

/// The server's handling of what a client controls in a request, as ServingContext hands it to
/// FileResponder: the raw request target (control bytes refused first, then RepositoryRoot's
/// strict percent-decoding and confinement) and the Range and If-Range headers. The input is
/// lines: the target's raw bytes (NUL and other control bytes included), the Range value, the
/// If-Range value, the method; a missing line is an absent header.
enum HTTPFuzzTarget {
    /// A small repository folder made once per process: files of several sizes, a hidden file,
    /// a folder, a symlink inside and one leading out of the folder.
    private static let responder: FileResponder = {
        let folder = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/assetpack-fuzz-http-\(getpid())"
        let fm = FileManager.default
        try? fm.removeItem(atPath: folder)
        try! fm.createDirectory(atPath: folder + "/packs/sub", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: folder + "/catalog.json", contents: Data(repeating: 0x7B, count: 300))
        _ = fm.createFile(atPath: folder + "/packs/a.pack", contents: Data(repeating: 0x41, count: 1000))
        _ = fm.createFile(atPath: folder + "/packs/sub/b.idx", contents: Data(repeating: 0x42, count: 1))
        _ = fm.createFile(atPath: folder + "/empty", contents: Data())
        _ = fm.createFile(atPath: folder + "/.hidden", contents: Data(repeating: 0x48, count: 10))
        try? fm.createSymbolicLink(atPath: folder + "/inside", withDestinationPath: "catalog.json")
        try? fm.createSymbolicLink(atPath: folder + "/escape", withDestinationPath: "/etc/hostname")
        return FileResponder(root: try! RepositoryRoot(directory: folder), policy: ContentPolicy(), faults: nil)
    }()

    /// Lengths the Range parser is also checked against on its own.
    private static let lengths: [UInt64] = [0, 1, 2, 300, 1000, 1 << 40, UInt64.max]

    static func run(_ bytes: [UInt8]) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        let raw = Array(lines[0])
        let prefix = Array(raw.prefix { $0 != 0 })
        let targetBytes = RequestTargetBytes(prefix: prefix, endsAtNUL: prefix.count < raw.count)
        let text: (Int) -> String? = { lines.count > $0 ? String(decoding: lines[$0], as: UTF8.self) : nil }
        let range = text(1), ifRange = text(2), method = text(3).map { $0.isEmpty ? "GET" : $0 } ?? "GET"

        for length in lengths { checkRanges(ByteRangeRequest(header: range, length: length), length: length) }

        let request = FileRequest(method: method, target: String(decoding: prefix, as: UTF8.self), targetBytes: targetBytes, version: "HTTP/1.1") { name in
            switch name.lowercased() {
            case "host": return "localhost"
            case "range": return range
            case "if-range": return ifRange
            default: return nil
            }
        }
        let plan = responder.respond(to: request)
        if targetBytes.firstControlByte != nil { precondition(plan.status == 400, "a control byte in the target got \(plan.status)") }
        if case .file(let file, let offset, let length) = plan.body {
            precondition(!file.relativePath.split(separator: "/").contains { $0 == ".." || $0.hasPrefix(".") }, "served \(file.relativePath)")
            precondition(offset + length <= file.size, "a file body past the end of \(file.relativePath)")
        }
        if plan.status == 206, case .stream(let body) = plan.body {
            // Multipart: the parts together never carry more than the file (plus part headers).
            precondition(body.length < 1000 + 16 * 256, "a multipart body of \(body.length) bytes")
        }
    }

    /// What ByteRangeRequest promises: ranges inside the length, sorted, disjoint and not
    /// touching (merged), and never more bytes in all than the representation has.
    private static func checkRanges(_ request: ByteRangeRequest, length: UInt64) {
        guard case .ranges(let ranges) = request else { return }
        precondition(!ranges.isEmpty && ranges.count <= ByteRangeRequest.maximumRangeCount, "\(ranges.count) ranges")
        var total: UInt64 = 0
        for (i, r) in ranges.enumerated() {
            precondition(r.upperBound < length, "range \(r) past a length of \(length)")
            if i > 0 { precondition(ranges[i - 1].upperBound + 1 < r.lowerBound, "ranges \(ranges[i - 1]) and \(r) not merged") }
            total += r.count64
        }
        precondition(total <= length, "\(total) bytes of ranges for a length of \(length)")
    }
}
