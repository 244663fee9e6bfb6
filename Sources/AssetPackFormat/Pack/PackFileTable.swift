import Foundation
import CZstd

/// The file table of a pack index in both of its encodings (docs/FORMAT.md, "Index"), and the
/// rules every file table is held to whatever its encoding.
///
/// Version 1 lists each file as a 2-byte path length, the path, a 4-byte mode and an 8-byte size:
/// about 54 bytes a file for typical paths, more than the compressed content of a small file.
/// Version 2 stores the same entries front-coded (each path as the length it shares with the
/// previous one and the rest), as varints, in three columns (paths, modes, sizes), compressed as
/// one zstd frame: a few bytes a file, so that the index grows no faster than the content.
/// `PackFileTableEncoder` writes both, a file at a time; this type reads them.
enum PackFileTable {
    /// The zstd level of the version-2 file table frame. Readers do not depend on it; it only
    /// makes the writer's output deterministic.
    static let compressionLevel = PackFileTableEncoder.packCompressionLevel
    /// The fewest bytes one version-2 entry takes once decompressed: a shared length, a suffix
    /// length, one suffix byte, a mode and a size.
    static let minimumEntrySize = 5

    // MARK: Version 1

    static func decodeVersion1(_ r: inout ByteReader, streamLength: UInt64) throws(PackError) -> PackFiles {
        let fileCountAt = r.offset
        let fileCount = try r.u64()
        guard fileCount <= UInt64(PackLimits.maximumFileCount) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) exceeds the \(PackLimits.maximumFileCount)-file limit")
        }
        guard fileCount <= UInt64(r.remaining / 14) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) does not fit in the index")
        }
        var checker = Checker(region: "file table")
        var files = PackFiles()
        files.reserveCapacity(files: Int(fileCount), pathBytes: r.remaining)
        for _ in 0..<Int(fileCount) {
            let at = r.offset
            let length = Int(try r.u16())
            let path = try r.slice(length)
            let mode = try r.u32(), size = try r.u64()
            let text = try path.withUnsafeBufferPointer { bytes throws(PackError) in try checker.checkPath(bytes, at: at) }
            guard mode & ~0o777 == 0 else {
                throw .malformed("file table", at: at, "\"\(text)\" has mode \(String(mode, radix: 8)); only permission bits 0777 are allowed")
            }
            try path.withUnsafeBufferPointer { bytes throws(PackError) in
                try checker.add(path: bytes, at: at, pathChecked: true)
                files.append(path: bytes, mode: mode, size: size)
            }
            try checker.add(size: size, at: at)
        }
        try checker.finish(countRegion: "file table", countAt: fileCountAt, streamLength: streamLength)
        return files
    }

    // MARK: Version 2

    /// `maximumPathBytes` bounds the paths once expanded (`PackLimits.maximumPathBytes`); it is a
    /// parameter so that tests reach its edge without a gigabyte of paths.
    static func decodeVersion2(_ r: inout ByteReader, streamLength: UInt64,
                               maximumPathBytes: Int = PackLimits.maximumPathBytes) throws(PackError) -> PackFiles {
        let fileCountAt = r.offset
        let fileCount = try r.u64()
        let tableLengthAt = r.offset
        let tableLength = try r.u64()
        let frameLengthAt = r.offset
        let frameLength = try r.u64()
        guard tableLength <= UInt64(PackLayout.maximumIndexSize) else {
            throw .malformed("index", at: tableLengthAt, "file table length \(tableLength) exceeds the \(PackLayout.maximumIndexSize)-byte limit")
        }
        guard fileCount <= UInt64(PackLimits.maximumFileCount) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) exceeds the \(PackLimits.maximumFileCount)-file limit")
        }
        guard fileCount <= tableLength / UInt64(minimumEntrySize) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) does not fit in a file table of \(tableLength) bytes")
        }
        guard frameLength == UInt64(r.remaining) else {
            throw .malformed("index", at: frameLengthAt, "file table frame of \(frameLength) bytes does not end the index (\(r.remaining) bytes remain)")
        }
        let frameAt = r.offset
        let frame = try r.bytes(Int(frameLength))
        let declared = frame.withUnsafeBytes { czstd_frame_content_size($0.baseAddress, $0.count) }
        guard declared == Int64(tableLength) else {
            let what = declared == -2 ? "is not a zstd frame" : declared == -1 ? "does not declare its content size" : "declares \(declared) bytes"
            throw .malformed("file table", at: frameAt, "the frame \(what); the index says \(tableLength)")
        }
        let table: [UInt8]
        do { table = try frame.withUnsafeBytes { buffer throws(ZstdError) in try ZstdDecompressor().decompress(buffer, expectedSize: Int(tableLength)) } } catch {
            throw .malformed("file table", at: frameAt, "the frame does not decompress: \(error)")
        }

        let region = "file table (decompressed from the frame at byte \(frameAt))"
        var t = ByteReader(table, context: region, base: 0)
        // The paths go into the list front-coded as they are read, each checked against the
        // rules and the paths before it; the modes and sizes follow from their columns.
        var checker = Checker(region: region)
        var files = PackFiles()
        files.reserveCapacity(files: Int(fileCount), pathBytes: table.count)
        var previous: [UInt8] = []
        var pathBytes: UInt64 = 0
        for k in 0..<Int(fileCount) {
            let at = t.offset
            let shared = try t.varint()
            let suffixLength = try t.varint()
            guard shared <= UInt64(previous.count) else {
                throw .malformed(region, at: at, "file \(k) shares \(shared) bytes with a previous path of \(previous.count)")
            }
            if suffixLength == 0, shared == UInt64(previous.count), let path = String(validating: previous, as: UTF8.self) {
                throw .malformed(region, at: at, "file \(k) has a duplicate path \"\(path)\"")
            }
            guard suffixLength >= 1, shared + suffixLength <= UInt64(PackPath.maximumLength) else {
                throw .malformed(region, at: at, "file \(k) has a path of \(shared) + \(suffixLength) bytes; paths hold 1 to \(PackPath.maximumLength) and differ from the previous one")
            }
            // Counted before the path is stored: front-coding lets a few bytes stand for 4,096.
            pathBytes += shared + suffixLength
            guard pathBytes <= UInt64(maximumPathBytes) else {
                throw .malformed(region, at: at, "the paths of files 0…\(k) take \(pathBytes) bytes together, more than the \(maximumPathBytes) bytes a pack's paths may take (the path-bytes limit)")
            }
            let suffix = try t.slice(Int(suffixLength))
            if shared < UInt64(previous.count), suffix.first == previous[Int(shared)] {
                throw .malformed(region, at: at, "file \(k) shares \(shared) bytes with the previous path but more are equal (the shared length must be the longest)")
            }
            previous.removeSubrange(Int(shared)...)
            previous.append(contentsOf: suffix)
            try previous.withUnsafeBufferPointer { bytes throws(PackError) in
                try checker.add(path: bytes, at: at)
                files.appendPath(bytes)
            }
        }
        var modes: [UInt16] = []
        modes.reserveCapacity(Int(fileCount))
        for k in 0..<Int(fileCount) {
            let at = t.offset
            let mode = try t.varint()
            guard mode & ~0o777 == 0 else {
                throw .malformed(region, at: at, "file \(k) has mode \(String(mode, radix: 8)); only permission bits 0777 are allowed")
            }
            modes.append(UInt16(mode))
        }
        for k in 0..<Int(fileCount) {
            let at = t.offset
            let size = try t.varint()
            try checker.add(size: size, at: at)
            files.appendColumns(mode: UInt32(modes[k]), size: size)
        }
        guard t.remaining == 0 else { throw .malformed(region, at: t.offset, "\(t.remaining) unexpected bytes after the sizes") }
        try checker.finish(countRegion: "index", countAt: fileCountAt, streamLength: streamLength)
        return files
    }

    // MARK: Rules

    /// The rules of every file table: paths valid UTF-8, safe, strictly increasing byte-wise,
    /// none also a folder of another; modes only permission bits; sizes that add up, without
    /// overflow, to exactly the content stream. The paths are checked one at a time, in order,
    /// and so are the sizes.
    struct Checker {
        let region: String
        /// The last path added.
        private var last: [UInt8] = []
        private var hasLast = false
        /// The files whose paths begin the last path added, outermost first: each one's path
        /// length (its path is that much of `last`) and where its entry starts. Byte-wise, every
        /// path that begins with a file's path comes right after it or after others that do, so
        /// a file that is also a folder is met when the first path inside it arrives, and a file
        /// leaves the stack at the first path that does not begin with it.
        private var enclosing: [(length: Int, at: UInt64)] = []
        private var total: UInt64 = 0

        init(region: String) { self.region = region }

        /// The path's problem, if it has one: not UTF-8, or not a safe stored path. Returns the
        /// path as a string otherwise.
        @discardableResult
        func checkPath(_ bytes: UnsafeBufferPointer<UInt8>, at: UInt64) throws(PackError) -> String {
            guard let path = String(validating: bytes, as: UTF8.self) else { throw .malformed(region, at: at, "path is not valid UTF-8") }
            if let problem = PackPath.problemWithStoredPath(bytes) { throw .malformed(region, at: at, "path \"\(path)\" \(problem)") }
            return path
        }

        /// Checks the next path: the path itself (unless `pathChecked`), its order after the
        /// last one, and that no earlier file is its folder.
        mutating func add(path bytes: UnsafeBufferPointer<UInt8>, at: UInt64, pathChecked: Bool = false) throws(PackError) {
            let text = { String(decoding: bytes, as: UTF8.self) }
            if !pathChecked {
                // ASCII is UTF-8 as it is; only other bytes need a string to be checked.
                if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) == nil {
                    throw .malformed(region, at: at, "path is not valid UTF-8")
                }
                if let problem = PackPath.problemWithStoredPath(bytes) { throw .malformed(region, at: at, "path \"\(text())\" \(problem)") }
            }
            if hasLast {
                let order = last.withUnsafeBufferPointer { PackPath.compare($0, bytes) }
                if order >= 0 {
                    throw .malformed(region, at: at, order == 0 ? "duplicate path \"\(text())\"" : "\"\(text())\" is out of order (paths are sorted byte-wise)")
                }
            }
            // Byte-wise (a slash is one byte and never inside a character), not by characters.
            // Only the innermost enclosing file needs a look: an outer one followed by a slash
            // would have been met at that file, which begins the same way.
            while let top = enclosing.last, byte(after: top.length, in: bytes) == nil { enclosing.removeLast() }
            if let top = enclosing.last, byte(after: top.length, in: bytes) == UInt8(ascii: "/") {
                throw .malformed(region, at: top.at, "\"\(String(decoding: last[..<top.length], as: UTF8.self))\" is both a file and a directory")
            }
            enclosing.append((bytes.count, at))
            last.replaceSubrange(0..., with: bytes)
            hasLast = true
        }

        /// Adds the next file's size to the running total, which must not overflow.
        mutating func add(size: UInt64, at: UInt64) throws(PackError) {
            let (sum, overflow) = total.addingReportingOverflow(size)
            guard !overflow else { throw .malformed(region, at: at, "file sizes overflow") }
            total = sum
        }

        /// The checks that need every file; a wrong total is reported at the file count.
        func finish(countRegion: String, countAt: UInt64, streamLength: UInt64) throws(PackError) {
            guard total == streamLength else {
                throw .malformed(countRegion, at: countAt, "files hold \(total) bytes but the chunks hold \(streamLength)")
            }
        }

        /// The byte of `path` that follows the first `length` bytes of the last path, when
        /// `path` is longer and begins with them; nil otherwise.
        private func byte(after length: Int, in path: UnsafeBufferPointer<UInt8>) -> UInt8? {
            guard path.count > length else { return nil }
            return last.withUnsafeBufferPointer { p in
                length == 0 || memcmp(path.baseAddress!, p.baseAddress!, length) == 0 ? path[length] : nil
            }
        }
    }
}
