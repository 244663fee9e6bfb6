#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder a server publishes, and the only place it reads from.
///
/// A request path is percent-decoded strictly (a bad escape or an encoded NUL is a 400), split
/// into segments, and refused if any segment is `..` (403) or hidden — starting with `.`, as
/// publish's staging folders do — (404). The file is then opened relative to the root and its
/// real path (after every symlink) must still lie inside the root's real path, or it is a 403.
/// Only regular files are served; folders are not listed.
struct RepositoryRoot: Sendable {
    /// The root's real path (symlinks resolved), without a trailing slash.
    let realPath: String

    /// Resolves `directory`, failing with a message if it is missing, not a folder or unreadable.
    init(directory: String) throws(ServerError) {
        var s = stat()
        guard stat(directory, &s) == 0 else { throw .directory(directory, String(cString: strerror(errno))) }
        guard (s.st_mode & S_IFMT) == S_IFDIR else { throw .directory(directory, "not a directory") }
        guard access(directory, R_OK | X_OK) == 0 else { throw .directory(directory, "not readable (\(String(cString: strerror(errno))))") }
        guard let resolved = realpath(directory, nil) else { throw .directory(directory, String(cString: strerror(errno))) }
        defer { free(resolved) }
        let path = String(cString: resolved)
        realPath = path == "/" ? "" : path
    }

    /// Opens the file a request target names, or says which status refuses it.
    func openFile(target: String) -> Result<OpenedFile, RequestRefusal> {
        segments(of: target).flatMap { openFile(relative: $0.joined(separator: "/")) }
    }

    /// The decoded segments of a request target's path, or which status refuses it: a
    /// malformed escape (400), a `..` segment (403), a hidden name (404), no name at all (404).
    func segments(of target: String) -> Result<[Substring], RequestRefusal> {
        guard target.hasPrefix("/") else { return .failure(.init(400, "request target is not an absolute path")) }
        guard let decoded = Self.percentDecoded(target) else { return .failure(.init(400, "bad percent-encoding in path")) }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/") where segment != "." {
            if segment == ".." { return .failure(.init(403, "path leaves the repository")) }
            if segment.hasPrefix(".") { return .failure(.init(404, "hidden path")) }
            segments.append(segment)
        }
        guard !segments.isEmpty else { return .failure(.init(404, "no file named")) }
        return .success(segments)
    }

    /// Opens `relative` (checked segments joined by `/`) below the root: a regular file whose
    /// real path lies inside the root's.
    func openFile(relative: String) -> Result<OpenedFile, RequestRefusal> {
        let full = realPath + "/" + relative
        let fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let e = errno
            return .failure(e == EACCES || e == EPERM ? .init(403, "permission denied") : .init(404, "not found"))
        }
        var s = stat()
        guard fstat(fd, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(.init(404, "not a regular file"))
        }
        guard let real = Self.resolvedPath(of: fd), real.hasPrefix(realPath + "/") else {
            close(fd)
            return .failure(.init(403, "symlink leads out of the repository"))
        }
        return .success(OpenedFile(relativePath: relative, descriptor: fd, status: s))
    }

    /// The real path of an open descriptor, through /proc (what was opened, not what a path
    /// names now, so a symlink swapped after the open cannot fool the check).
    private static func resolvedPath(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; nil for a malformed escape, an encoded NUL or invalid UTF-8.
    static func percentDecoded(_ s: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
            let v = h << 4 | l
            guard v != 0 else { return nil }
            bytes.append(v)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Why a request gets no file: the status and a short reason for the access log.
struct RequestRefusal: Error, Equatable {
    let status: Int
    let reason: String
    init(_ status: Int, _ reason: String) { self.status = status; self.reason = reason }
}
