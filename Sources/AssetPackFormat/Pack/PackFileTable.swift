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

    static func decodeVersion1(_ r: inout ByteReader, streamLength: UInt64, sharing: [FileEntry] = []) throws(PackError) -> [FileEntry] {
        let fileCountAt = r.offset
        let fileCount = try r.u64()
        guard fileCount <= UInt64(PackLimits.maximumFileCount) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) exceeds the \(PackLimits.maximumFileCount)-file limit")
        }
        guard fileCount <= UInt64(r.remaining / 14) else {
            throw .malformed("index", at: fileCountAt, "file count \(fileCount) does not fit in the index")
        }
        var checker = Checker(region: "file table", count: Int(fileCount), sharing: sharing)
        for _ in 0..<Int(fileCount) {
            let at = r.offset
            let length = Int(try r.u16())
            let path = try r.slice(length)
            try checker.add(path: path, mode: try r.u32(), size: try r.u64(), at: at)
        }
        return try checker.finish(countRegion: "file table", countAt: fileCountAt, streamLength: streamLength)
    }

    // MARK: Version 2

    static func decodeVersion2(_ r: inout ByteReader, streamLength: UInt64, sharing: [FileEntry] = []) throws(PackError) -> [FileEntry] {
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
        // Every path end to end in one buffer, each found by its start and length: not an array
        // a path (a slice of `previous` kept would copy it at its next change).
        var pathBytes: [UInt8] = []
        var paths: [(start: Int, length: Int, at: UInt64)] = []
        paths.reserveCapacity(Int(fileCount))
        var previous: [UInt8] = []
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
            let suffix = try t.slice(Int(suffixLength))
            if shared < UInt64(previous.count), suffix.first == previous[Int(shared)] {
                throw .malformed(region, at: at, "file \(k) shares \(shared) bytes with the previous path but more are equal (the shared length must be the longest)")
            }
            previous.removeSubrange(Int(shared)...)
            previous.append(contentsOf: suffix)
            paths.append((pathBytes.count, previous.count, at))
            pathBytes.append(contentsOf: previous)
        }
        var modes: [(UInt32, UInt64)] = []
        modes.reserveCapacity(Int(fileCount))
        for k in 0..<Int(fileCount) {
            let at = t.offset
            let mode = try t.varint()
            guard mode & ~0o777 == 0 else {
                throw .malformed(region, at: at, "file \(k) has mode \(String(mode, radix: 8)); only permission bits 0777 are allowed")
            }
            modes.append((UInt32(mode), at))
        }
        var checker = Checker(region: region, count: Int(fileCount), sharing: sharing)
        for k in 0..<Int(fileCount) {
            let size = try t.varint()
            let path = paths[k]
            try checker.add(path: pathBytes[path.start..<path.start + path.length], mode: modes[k].0, size: size, at: path.at)
        }
        guard t.remaining == 0 else { throw .malformed(region, at: t.offset, "\(t.remaining) unexpected bytes after the sizes") }
        return try checker.finish(countRegion: "index", countAt: fileCountAt, streamLength: streamLength)
    }

    // MARK: Rules

    /// The rules of every file table: paths valid UTF-8, safe, strictly increasing byte-wise,
    /// none also a folder of another; modes only permission bits; sizes that add up, without
    /// overflow, to exactly the content stream.
    struct Checker {
        let region: String
        private(set) var files: [FileEntry] = []
        /// Where each file's entry starts, in the region's offsets.
        private var offsets: [UInt64] = []
        /// The files whose paths begin the last path added, outermost first. Byte-wise, every
        /// path that begins with a file's path comes right after it or after others that do, so
        /// a file that is also a folder is met when the first path inside it arrives, and a file
        /// leaves the stack at the first path that does not begin with it.
        private var enclosing: [(path: ArraySlice<UInt8>, file: Int)] = []
        private var total: UInt64 = 0
        /// Another index's files, sorted as every file table is: a path with the same bytes as
        /// one of them takes that file's string rather than a new one, so that two versions of a
        /// pack held at once (an update) hold the paths they share once. The rules below are
        /// checked all the same.
        private let sharing: [FileEntry]
        /// The first of `sharing` not known to sort before the paths still to come.
        private var cursor = 0

        init(region: String, count: Int, sharing: [FileEntry] = []) {
            self.region = region
            self.sharing = sharing
            files.reserveCapacity(count)
            offsets.reserveCapacity(count)
        }

        /// The string of the file of `sharing` whose path has exactly `bytes`, if there is one at
        /// or after the cursor (an out-of-order table only finds fewer: its order is refused below).
        private mutating func sharedPath(_ bytes: ArraySlice<UInt8>) -> String? {
            while cursor < sharing.count {
                var candidate = sharing[cursor].path
                let order = candidate.withUTF8 { c in
                    bytes.withUnsafeBufferPointer { b in
                        let common = min(c.count, b.count)
                        let head = common == 0 ? 0 : memcmp(c.baseAddress!, b.baseAddress!, common)
                        return head != 0 ? Int(head) : c.count - b.count
                    }
                }
                if order > 0 { return nil }
                cursor += 1
                if order == 0 { return candidate }
            }
            return nil
        }

        mutating func add(path bytes: ArraySlice<UInt8>, mode: UInt32, size: UInt64, at: UInt64) throws(PackError) {
            guard let path = sharedPath(bytes) ?? String(validating: bytes, as: UTF8.self) else {
                throw .malformed(region, at: at, "path is not valid UTF-8")
            }
            if let problem = PackPath.problemWithStoredPath(path) { throw .malformed(region, at: at, "path \"\(path)\" \(problem)") }
            guard mode & ~0o777 == 0 else {
                throw .malformed(region, at: at, "\"\(path)\" has mode \(String(mode, radix: 8)); only permission bits 0777 are allowed")
            }
            if let last = files.last, !PackPath.precedes(last.path, path) {
                throw .malformed(region, at: at, last.path == path ? "duplicate path \"\(path)\"" : "\"\(path)\" is out of order (paths are sorted byte-wise)")
            }
            // Byte-wise (a slash is one byte and never inside a character), not by characters.
            // Only the innermost enclosing file needs a look: an outer one followed by a slash
            // would have been met at that file, which begins the same way.
            while let top = enclosing.last, !Self.begins(bytes, with: top.path) { enclosing.removeLast() }
            if let top = enclosing.last, bytes[bytes.startIndex + top.path.count] == UInt8(ascii: "/") {
                throw .malformed(region, at: offsets[top.file], "\"\(files[top.file].path)\" is both a file and a directory")
            }
            enclosing.append((bytes, files.count))
            let (sum, overflow) = total.addingReportingOverflow(size)
            guard !overflow else { throw .malformed(region, at: at, "file sizes overflow") }
            total = sum
            files.append(FileEntry(path: path, mode: mode, size: size))
            offsets.append(at)
        }

        /// The checks that need every file; a wrong total is reported at the file count.
        func finish(countRegion: String, countAt: UInt64, streamLength: UInt64) throws(PackError) -> [FileEntry] {
            guard total == streamLength else {
                throw .malformed(countRegion, at: countAt, "files hold \(total) bytes but the chunks hold \(streamLength)")
            }
            return files
        }

        /// Whether `bytes` is longer than `prefix` and begins with it (`prefix` is not empty).
        private static func begins(_ bytes: ArraySlice<UInt8>, with prefix: ArraySlice<UInt8>) -> Bool {
            guard bytes.count > prefix.count else { return false }
            return bytes.withUnsafeBufferPointer { b in
                prefix.withUnsafeBufferPointer { p in memcmp(b.baseAddress!, p.baseAddress!, p.count) == 0 }
            }
        }
    }
}
