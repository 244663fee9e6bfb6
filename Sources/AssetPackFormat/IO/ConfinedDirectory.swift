import CPOSIX
import Foundation

/// An open directory below which every path is resolved without following a symbolic link at
/// any component and without leaving it: another process that can write into the folder (the
/// same user, a shared folder) cannot redirect a write, a rename or a removal elsewhere by
/// planting a link between two runs.
///
/// Paths are relative and plain (`a/b/c`: no `.`, `..`, empty or absolute components; refused
/// otherwise). Opens go through `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel
/// has it, and otherwise walk the path one component at a time with `O_NOFOLLOW | O_DIRECTORY`;
/// folders are created, renamed and removed relative to their parent's descriptor, and a
/// removal unlinks a link it meets instead of following it. The directory itself (`path`) is
/// opened as given: it is the caller's choice of root.
public final class ConfinedDirectory: @unchecked Sendable {
    /// The directory's path, for messages.
    public let path: String
    /// Its descriptor (closed with the object).
    public let fd: Int32

    /// Whether `openat2` is tried first (false: every path is walked component by component, as
    /// on a kernel without it; tests use this to exercise the walk).
    public let usesOpenat2: Bool

    /// Opens the directory at `path`, creating it (and its parents) when `create` is set.
    public convenience init(root path: String, create: Bool = false, usesOpenat2: Bool = true) throws(ConfinementError) {
        if create {
            do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                throw ConfinementError(.system, path: path, code: EIO, reason: "cannot create the folder: \(error.localizedDescription)")
            }
        }
        let fd = Foundation.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfinementError(.system, path: path, code: errno, reason: "cannot open the folder: \(Self.message(errno))") }
        self.init(fd: fd, path: path, usesOpenat2: usesOpenat2)
    }

    private init(fd: Int32, path: String, usesOpenat2: Bool) {
        self.fd = fd
        self.path = path
        self.usesOpenat2 = usesOpenat2
    }

    deinit { close(fd) }

    /// `relative` under this directory, for messages.
    public func display(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// The components of `relative`, refusing anything but a plain relative path.
    public func components(_ relative: String) throws(ConfinementError) -> [String] {
        if relative.isEmpty { return [] }
        guard !relative.hasPrefix("/") else {
            throw ConfinementError(.malformed, path: relative, reason: "an absolute path where a path inside \(path) is expected (refused)")
        }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts where part.isEmpty || part == "." || part == ".." || part.utf8.contains(0) {
            throw ConfinementError(.malformed, path: display(relative),
                                   reason: "the path has a \(part.isEmpty ? "empty" : "'\(part)'") component; it would not stay inside \(path) (refused)")
        }
        return parts
    }

    /// Whether `relative` is one component that `components` accepts: not empty, `.` or `..`,
    /// without a slash or a NUL.
    private static func isPlainName(_ relative: String) -> Bool {
        guard !relative.isEmpty, relative != ".", relative != ".." else { return false }
        return !relative.utf8.contains { $0 == UInt8(ascii: "/") || $0 == 0 }
    }

    // MARK: Opening

    /// Opens the file `relative` with `flags` (`O_NOFOLLOW` and `O_CLOEXEC` are added), creating
    /// it with `mode` under `O_CREAT`. The caller closes the descriptor.
    public func open(_ relative: String, flags: Int32, mode: mode_t = 0o644) throws(ConfinementError) -> Int32 {
        let parts = try components(relative)
        let flags = flags | O_NOFOLLOW | O_CLOEXEC
        if usesOpenat2 {
            let fd = cposix_openat_beneath(self.fd, parts.isEmpty ? "." : parts.joined(separator: "/"), flags, UInt32(mode))
            if fd >= 0 { return fd }
            let e = errno
            // A path the kernel will not take whole (4096 bytes with its terminator) is walked
            // folder by folder below, as each folder's name is within its own limit.
            if e != ENOSYS && e != ENAMETOOLONG { throw failure(e, parts, doing: "open") }
        }
        let (parent, name) = try walk(to: parts, create: false)
        defer { if parent != self.fd { close(parent) } }
        let fd = openat(parent, name, flags, mode)
        guard fd >= 0 else { throw failure(errno, parts, doing: "open") }
        return fd
    }

    /// Creates the file `name` — one component of this directory, as a C string — with `flags`
    /// and `mode`, exclusively: `O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC` are added, so nothing
    /// already there is opened, a link included. For a caller that creates many files in one
    /// folder: no path is split or walked. Returns the descriptor, or -1 with errno set (EEXIST
    /// when something is there; EINVAL for a name that is empty, `.`, `..` or holds a slash):
    /// the caller then goes through `open(_:flags:mode:)`, which says why.
    public func createFile(_ name: UnsafePointer<CChar>, flags: Int32, mode: mode_t) -> Int32 {
        let slash = Int8(bitPattern: UInt8(ascii: "/")), dot = Int8(bitPattern: UInt8(ascii: "."))
        let plain = name[0] != 0 && strchr(name, Int32(slash)) == nil
            && !(name[0] == dot && (name[1] == 0 || (name[1] == dot && name[2] == 0)))
        guard plain else { errno = EINVAL; return -1 }
        let flags = flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        if usesOpenat2 {
            let fd = cposix_openat_beneath(self.fd, name, flags, UInt32(mode))
            if fd >= 0 || errno != ENOSYS { return fd }
        }
        return openat(self.fd, name, flags, mode)
    }

    /// The folder `relative` (created with its parents when `create` is set), itself confined.
    public func directory(_ relative: String, create: Bool = false) throws(ConfinementError) -> ConfinedDirectory {
        let parts = try components(relative)
        if parts.isEmpty { return ConfinedDirectory(fd: dup(fd), path: path, usesOpenat2: usesOpenat2) }
        if !create { return ConfinedDirectory(fd: try open(relative, flags: O_RDONLY | O_DIRECTORY), path: display(relative), usesOpenat2: usesOpenat2) }
        var current = dup(fd)
        for k in parts.indices {
            if mkdirat(current, parts[k], 0o755) != 0, errno != EEXIST {
                let e = errno
                close(current)
                throw failure(e, Array(parts[...k]), doing: "create")
            }
            let next = openat(current, parts[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let e = errno
            close(current)
            guard next >= 0 else { throw failure(e, Array(parts[...k]), doing: "open") }
            current = next
        }
        return ConfinedDirectory(fd: current, path: display(relative), usesOpenat2: usesOpenat2)
    }

    /// The descriptor of the folder holding the last component, and that component's name.
    private func walk(to parts: [String], create: Bool) throws(ConfinementError) -> (Int32, String) {
        guard let name = parts.last else { return (fd, ".") }
        var current = fd
        for k in parts.indices.dropLast() {
            let next = openat(current, parts[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let e = errno
            if current != fd { close(current) }
            guard next >= 0 else { throw failure(e, Array(parts[...k]), doing: "open") }
            current = next
        }
        return (current, name)
    }

    /// Runs `body` with the parent folder of `relative` (confined) and the last component.
    private func withParent<T>(of relative: String, create: Bool = false,
                               _ body: (ConfinedDirectory, String) throws(ConfinementError) -> T) throws(ConfinementError) -> T {
        // A plain name lies in this folder itself: no folder to open (an update links a million
        // files by name into folders it holds open, and a descriptor duplicated and closed for
        // each, twice, was a tenth of its time).
        if Self.isPlainName(relative) { return try body(self, relative) }
        var parts = try components(relative)
        guard let name = parts.popLast() else {
            throw ConfinementError(.malformed, path: path, reason: "the folder itself cannot be renamed or removed here")
        }
        let parent = try directory(parts.joined(separator: "/"), create: create)
        return try body(parent, name)
    }

    /// The directory's change time (`st_ctim`) in nanoseconds since the epoch, nil when it cannot
    /// be read. A process cannot set a change time: every write, rename or link moves it to now.
    public var changeTime: Int64? { Self.changeTime(of: fd) }

    /// The change time (`st_ctim`, nanoseconds since the epoch) of the open file `fd`.
    public static func changeTime(of fd: Int32) -> Int64? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return changeTime(st)
    }

    /// The change time in `st`, in nanoseconds since the epoch.
    public static func changeTime(_ st: stat) -> Int64 { Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec) }

    // MARK: Whole files and folders

    /// Whether `relative` exists (a link counts as existing; it is not followed).
    public func exists(_ relative: String) -> Bool {
        (try? withParent(of: relative) { parent, name in
            var st = stat()
            return fstatat(parent.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
        }) ?? false
    }

    /// The bytes of the file `relative`, or nil when it does not exist.
    public func contents(of relative: String) throws(ConfinementError) -> [UInt8]? {
        let fd: Int32
        do { fd = try open(relative, flags: O_RDONLY) } catch where error.isMissing { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw failure(errno, [relative], doing: "read") }
            if n == 0 { return bytes }
            bytes += buffer[..<n]
        }
    }

    /// Writes `bytes` to `relative` durably: under a temporary name, flushed, then renamed into
    /// place, so no reader ever sees it half-written.
    public func write(_ bytes: [UInt8], to relative: String, mode: mode_t = 0o644) throws(ConfinementError) {
        try withParent(of: relative) { parent, name throws(ConfinementError) in
            let temporary = ".\(name).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = openat(parent.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard fd >= 0 else { throw failure(errno, [relative], doing: "create") }
            var done = 0
            var failed: Int32 = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + done, $0.count - done) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = errno; break }
                done += n
            }
            if failed == 0, fsync(fd) != 0 { failed = errno }
            close(fd)
            if failed == 0, renameat(parent.fd, temporary, parent.fd, name) != 0 { failed = errno }
            if failed != 0 {
                unlinkat(parent.fd, temporary, 0)
                throw failure(failed, [relative], doing: "write")
            }
        }
    }

    /// The names in the folder `relative` (without `.` and `..`); empty when it does not exist.
    public func entries(_ relative: String = "") throws(ConfinementError) -> [String] {
        let folder: ConfinedDirectory
        do { folder = try directory(relative) } catch where error.isMissing { return [] }
        return Self.names(in: folder.fd)
    }

    /// Gives the file or folder `relative` the permission bits `mode` (a link is refused).
    public func setMode(_ relative: String, _ mode: mode_t) throws(ConfinementError) {
        try withParent(of: relative) { parent, name throws(ConfinementError) in
            var st = stat()
            guard fstatat(parent.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw failure(errno, [relative], doing: "inspect") }
            guard st.st_mode & S_IFMT != S_IFLNK else { throw symbolicLink(display(relative)) }
            guard fchmodat(parent.fd, name, mode, 0) == 0 else { throw failure(errno, [relative], doing: "change the mode of") }
        }
    }

    /// Renames `relative` to `destination` under `target` (this directory by default). Neither
    /// path is followed through a link; an existing empty folder or file at the destination is
    /// replaced as `rename(2)` does.
    public func rename(_ relative: String, to destination: String, in target: ConfinedDirectory? = nil) throws(ConfinementError) {
        let target = target ?? self
        try withParent(of: relative) { from, name throws(ConfinementError) in
            try target.withParent(of: destination) { to, newName throws(ConfinementError) in
                guard renameat(from.fd, name, to.fd, newName) == 0 else {
                    let e = errno
                    throw ConfinementError(.system, path: display(relative), code: e,
                                           reason: "cannot move it to \(target.display(destination)): \(Self.message(e))")
                }
            }
        }
    }

    /// Makes `destination` under `target` a second name (hard link) of the regular file
    /// `relative`, creating the folders on the way to it. Neither path is followed through a
    /// link; anything but a regular file at `relative`, or an existing `destination`, is refused.
    public func link(_ relative: String, to destination: String, in target: ConfinedDirectory) throws(ConfinementError) {
        _ = try link(relative, to: destination, in: target, if: nil)
    }

    /// `link(_:to:in:)` of a file that `accept` approves as `fstatat` describes it just before the
    /// link (its size, its change time). The new name is then checked to be that very file
    /// (device and inode) and removed again otherwise: a file swapped in between is never linked.
    /// False, with nothing linked, when `accept` refuses the file or it was swapped.
    public func link(_ relative: String, to destination: String, in target: ConfinedDirectory,
                     if accept: ((stat) -> Bool)?) throws(ConfinementError) -> Bool {
        try withParent(of: relative) { from, name throws(ConfinementError) -> Bool in
            var st = stat()
            guard fstatat(from.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { throw failure(errno, [relative], doing: "inspect") }
            guard st.st_mode & S_IFMT == S_IFREG else {
                if st.st_mode & S_IFMT == S_IFLNK { throw symbolicLink(display(relative)) }
                throw ConfinementError(.system, path: display(relative), code: EINVAL, reason: "is not a regular file")
            }
            if let accept, !accept(st) { return false }
            return try target.withParent(of: destination, create: true) { to, newName throws(ConfinementError) -> Bool in
                guard linkat(from.fd, name, to.fd, newName, 0) == 0 else {
                    let e = errno
                    throw ConfinementError(.system, path: display(relative), code: e,
                                           reason: "cannot link it as \(target.display(destination)): \(Self.message(e))")
                }
                guard accept != nil else { return true }
                var made = stat()
                if fstatat(to.fd, newName, &made, AT_SYMLINK_NOFOLLOW) == 0 && made.st_ino == st.st_ino && made.st_dev == st.st_dev { return true }
                unlinkat(to.fd, newName, 0)
                return false
            }
        }
    }

    /// Removes every regular file below the folder `relative` that has another name as well (a
    /// link count above 1), leaving its folders and every other entry in place and following no
    /// link: the files a later version shares with this one lose this name, and no block is freed.
    public func removeFilesWithOtherNames(in relative: String) throws(ConfinementError) {
        let folder = try directory(relative)
        try withExtendedLifetime(folder) { () throws(ConfinementError) in
            try Self.removeFilesWithOtherNames(in: folder.fd, display: display(relative))
        }
    }

    private static func removeFilesWithOtherNames(in folder: Int32, display: String) throws(ConfinementError) {
        for name in names(in: folder) {
            var st = stat()
            guard fstatat(folder, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                let sub = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard sub >= 0 else { throw ConfinementError(.system, path: display + "/" + name, code: errno, reason: "cannot open it: \(message(errno))") }
                defer { close(sub) }
                try removeFilesWithOtherNames(in: sub, display: display + "/" + name)
            } else if st.st_mode & S_IFMT == S_IFREG && st.st_nlink > 1 {
                guard unlinkat(folder, name, 0) == 0 || errno == ENOENT else {
                    throw ConfinementError(.system, path: display + "/" + name, code: errno, reason: "cannot remove it: \(message(errno))")
                }
            }
        }
    }

    /// Gives the folder a new change time (a `fchmod` to the permission bits it has, which
    /// changes nothing else) and returns it: a reading of the clock that every file's change
    /// time comes from, no earlier than each change made before the call. Nil when it cannot.
    public func renewChangeTime() -> Int64? {
        var st = stat()
        guard fstat(fd, &st) == 0, fchmod(fd, st.st_mode & 0o7777) == 0 else { return nil }
        return changeTime
    }

    /// `renewChangeTime`, renewed until it is strictly later than its first reading (about a
    /// millisecond apart, for at most about 50 ms): every change made before the call then has
    /// an earlier change time, and so does every change made before anything this folder's
    /// change time moves for next (a rename of it). A file system takes change times from a
    /// clock that advances in ticks of a few milliseconds, so a file written in the tick of a
    /// later reading has that reading's time, which a strict comparison counts as a change made
    /// after it. Nil when it cannot, or the clock did not move.
    public func renewChangeTimePastEarlierChanges() -> Int64? {
        guard let first = renewChangeTime() else { return nil }
        for _ in 0..<50 {
            guard let now = renewChangeTime() else { return nil }
            if now > first { return now }
            usleep(1000)
        }
        return nil
    }

    /// What `fstatat` says of `relative`, not following a link; nil when there is nothing there.
    public func status(_ relative: String) -> stat? {
        try? withParent(of: relative) { parent, name throws(ConfinementError) -> stat? in
            var st = stat()
            return fstatat(parent.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st : nil
        } ?? nil
    }

    /// The number of names (hard links) of the file `relative`, not following a link; nil when
    /// there is nothing there.
    public func linkCount(_ relative: String) -> Int? {
        try? withParent(of: relative) { parent, name throws(ConfinementError) -> Int? in
            var st = stat()
            guard fstatat(parent.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return Int(st.st_nlink)
        } ?? nil
    }

    /// Removes `relative` and everything in it. A link met on the way is removed itself, never
    /// followed; a path that does not exist is no error.
    public func removeTree(_ relative: String) throws(ConfinementError) {
        do {
            try withParent(of: relative) { parent, name throws(ConfinementError) in
                try Self.remove(name, in: parent.fd, display: display(relative))
            }
        } catch where error.isMissing {}
    }

    /// Removes the folder `relative` if it is empty.
    public func removeEmptyFolder(_ relative: String) {
        _ = try? withParent(of: relative) { parent, name in unlinkat(parent.fd, name, AT_REMOVEDIR) }
    }

    private static func remove(_ name: String, in parent: Int32, display: String) throws(ConfinementError) {
        var st = stat()
        guard fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw ConfinementError(.system, path: display, code: errno, reason: "cannot remove it: \(message(errno))")
        }
        if st.st_mode & S_IFMT == S_IFDIR {
            let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { throw ConfinementError(.system, path: display, code: errno, reason: "cannot open it: \(message(errno))") }
            defer { close(folder) }
            for entry in names(in: folder) { try remove(entry, in: folder, display: display + "/" + entry) }
        }
        guard unlinkat(parent, name, st.st_mode & S_IFMT == S_IFDIR ? AT_REMOVEDIR : 0) == 0 || errno == ENOENT else {
            throw ConfinementError(.system, path: display, code: errno, reason: "cannot remove it: \(message(errno))")
        }
    }

    private static func names(in fd: Int32) -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else { if copy >= 0 { close(copy) }; return [] }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: Errors

    /// The error for `code` on the way to `parts`: when a component is a link (ELOOP, or what a
    /// link to a file gives for `O_DIRECTORY`), it names that component.
    private func failure(_ code: Int32, _ parts: [String], doing action: String) -> ConfinementError {
        let whole = display(parts.joined(separator: "/"))
        if code == ELOOP || code == ENOTDIR || code == EXDEV {
            var current = dup(fd)
            defer { close(current) }
            for k in parts.indices {
                var st = stat()
                guard fstatat(current, parts[k], &st, AT_SYMLINK_NOFOLLOW) == 0 else { break }
                if st.st_mode & S_IFMT == S_IFLNK { return symbolicLink(display(parts[...k].joined(separator: "/"))) }
                let next = openat(current, parts[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard next >= 0 else { break }
                close(current)
                current = next
            }
            if code == EXDEV { return ConfinementError(.malformed, path: whole, reason: "the path leads out of \(path) (refused)") }
        }
        return ConfinementError(.system, path: whole, code: code, reason: "cannot \(action) it: \(Self.message(code))")
    }

    private func symbolicLink(_ link: String) -> ConfinementError {
        ConfinementError(.symbolicLink, path: link, code: ELOOP,
                         reason: "is a symbolic link; nothing inside \(path) is reached through a link (refused: it may point outside)")
    }

    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}
