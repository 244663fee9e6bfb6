import AssetPackFormat
import Foundation

/// The writes of one publish, done so that a failure at any point leaves the repository as it
/// was: new pack files are built in a staging folder inside the repository (same file system,
/// so a rename moves them), renamed into place, and the catalog is written last by
/// write-temporary-then-rename. Until `commitCatalog` succeeds, `rollBack` undoes everything.
/// An exclusive `flock` on the repository folder, held until `finish` (or roll-back), keeps two
/// publishes apart. Every path inside the repository is opened, created, renamed and removed
/// through `folder` (`ConfinedDirectory`): a link planted in it (`packs/ID` pointing elsewhere)
/// is refused, so a publish never writes outside the repository.
final class RepositoryTransaction {
    let repository: String
    let staging: String
    /// The repository folder, open.
    private(set) var folder: ConfinedDirectory?
    private var lockFD: Int32 = -1
    private var createdRepository = false
    private var createdDirectories: [String] = []
    private var placedFiles: [String] = []
    /// Mutable files replaced or removed before the commit (`replace`, `setAside`), in order:
    /// the path, whether a new file was placed there, and where a file moved out of the way
    /// waits in staging (a roll-back undoes them in reverse order).
    private var displaced: [(path: String, placed: Bool, aside: String?)] = []
    private var committed = false

    /// Creates the repository folder if needed, locks it and makes the staging folder.
    init(repository: String) throws {
        self.repository = repository
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: repository, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw PublishError.io("\(repository) exists and is not a directory") }
        } else {
            guard mkdir(repository, 0o755) == 0 else { throw PublishError.io("cannot create the repository \(repository): \(Self.lastError())") }
            createdRepository = true
        }
        staging = "\(repository)/\(Self.stagingPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let folder = try Self.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
            self.folder = folder
            lockFD = dup(folder.fd)
            guard lockFD >= 0 else { throw PublishError.io("cannot open \(repository): \(Self.lastError())") }
            try Self.lock(lockFD, repository)
            // Staging folders left by a publish that was killed: ours to remove, under the lock
            // (a link among them is removed itself, not followed).
            for name in (try? folder.entries()) ?? [] where name.hasPrefix(Self.stagingPrefix) {
                try? folder.removeTree(name)
            }
            guard mkdir(staging, 0o755) == 0 else { throw PublishError.io("cannot write into \(repository): \(Self.lastError())") }
        } catch {
            rollBack()
            throw error
        }
    }

    deinit { if committed { finish() } else { rollBack() } }

    static func lastError() -> String { String(cString: strerror(errno)) }

    /// Moves a staged file to `relativePath` in the repository; refuses to replace a file.
    /// The folders on the way are created and opened without following a link: a link planted
    /// in their place is refused, and the error names it.
    func place(_ stagedFile: String, at relativePath: String) throws {
        let target = "\(repository)/\(relativePath)"
        let (parent, name) = try parentFolder(of: relativePath)
        guard !parent.exists(name) else { throw PublishError.io("\(target) already exists; pack files are never replaced") }
        guard renameat(AT_FDCWD, stagedFile, parent.fd, name) == 0 else { throw PublishError.io("cannot move a pack file to \(target): \(Self.lastError())") }
        placedFiles.append(relativePath)
        fsync(parent.fd)
    }

    /// Moves a staged file to `relativePath` in the repository, replacing the file there (a
    /// mutable file: Apple's `assets/<id>` archives and download manifests). The replaced file
    /// waits in staging until the commit, so a roll-back puts it back; the folders on the way are
    /// created and opened without following a link, and whatever lies at `relativePath` (a link
    /// planted there included) is moved aside, never written through.
    func replace(_ stagedFile: String, at relativePath: String) throws {
        try setAside(relativePath)
        let (parent, name) = try parentFolder(of: relativePath)
        guard renameat(AT_FDCWD, stagedFile, parent.fd, name) == 0 else {
            throw PublishError.io("cannot move a file to \(repository)/\(relativePath): \(Self.lastError())")
        }
        displaced.append((relativePath, true, nil))
        fsync(parent.fd)
    }

    /// Removes the file `relativePath` (a pack's archive that left the manifest) by moving it
    /// into staging, so that a roll-back can put it back; nothing there is no error.
    func setAside(_ relativePath: String) throws {
        guard let folder else { throw PublishError.io("the publish into \(repository) has ended") }
        guard folder.exists(relativePath) else { return }
        let aside = (staging as NSString).lastPathComponent + "/displaced-\(displaced.count)-\((relativePath as NSString).lastPathComponent)"
        try Self.confined { () throws(ConfinementError) in try folder.rename(relativePath, to: aside) }
        displaced.append((relativePath, false, aside))
    }

    /// The folder that holds `relativePath` (created with its parents, each recorded for the
    /// roll-back, none reached through a link) and the last component.
    private func parentFolder(of relativePath: String) throws -> (ConfinedDirectory, String) {
        guard let folder else { throw PublishError.io("the publish into \(repository) has ended") }
        let parts = relativePath.split(separator: "/").map(String.init)
        guard let name = parts.last else { throw PublishError.io("an empty path in \(repository)") }
        let parent = try Self.confined { () throws(ConfinementError) -> ConfinedDirectory in
            var dir = ""
            for part in parts.dropLast() {
                dir = dir.isEmpty ? part : dir + "/" + part
                if !folder.exists(dir) { createdDirectories.append(dir) }
                _ = try folder.directory(dir, create: true)
            }
            return try folder.directory(dir)
        }
        return (parent, name)
    }

    /// Runs `body`, reporting a path refused inside the repository as an I/O error naming it.
    static func confined<T>(_ body: () throws(ConfinementError) -> T) throws -> T {
        do { return try body() } catch { throw PublishError.io(error.description) }
    }

    /// Writes `catalog.json` durably and atomically. After this the publish is done; the lock
    /// stays held for the work that follows (the publish cache, deletions) until `finish`.
    func commitCatalog(_ bytes: [UInt8], channel: String? = nil) throws {
        guard ChannelName.normalized(channel) == nil else {
            let path = ChannelName.catalogPath(channel)
            let before = folder?.status(path)
            try writeFile(path, bytes)
            committed = true
            // Written by rename beneath the repository folder: its time is moved once in place.
            if let before, let fd = try? folder?.open(path, flags: O_RDONLY) {
                Self.advanceModificationTime(of: fd, pastSecond: before.st_mtim.tv_sec)
                close(fd)
            }
            return
        }
        let path = "\(repository)/\(CatalogFormat.fileName)"
        let file = try AtomicFile(destination: path)
        try file.write(bytes)
        var old = stat()
        if stat(path, &old) == 0 { Self.advanceModificationTime(of: file.fd, pastSecond: old.st_mtim.tv_sec) }
        try file.commit()
        Self.syncDirectory(repository)
        committed = true
    }

    /// Gives the new file (`fd`) a modification time in a later whole second than `pastSecond`,
    /// the modification time of the file it replaces. nginx's `ETag` and every server's `Last-Modified` are made of the
    /// mtime in whole seconds (and the size): two publishes within one second could otherwise
    /// leave both unchanged, and a client or a cache asking conditionally would be told that
    /// nothing changed. Only publishes that follow each other within a second move the time
    /// ahead of the clock, by a second each.
    static func advanceModificationTime(of fd: Int32, pastSecond old: Int) {
        var new = stat()
        guard fstat(fd, &new) == 0, new.st_mtim.tv_sec <= old else { return }
        var times = [new.st_atim, timespec(tv_sec: old + 1, tv_nsec: 0)]
        _ = futimens(fd, &times)
    }

    /// Writes `relativePath` durably and atomically (write-temporary-then-rename), creating the
    /// folders on the way, never through a link in the repository.
    func writeFile(_ relativePath: String, _ bytes: [UInt8]) throws {
        guard let folder else { throw PublishError.io("the publish into \(repository) has ended") }
        let parent = (relativePath as NSString).deletingLastPathComponent
        try Self.confined { () throws(ConfinementError) in
            if !parent.isEmpty { _ = try folder.directory(parent, create: true) }
            try folder.write(bytes, to: relativePath)
        }
    }

    /// Writes the top-level file `name` (`timestamp.json`, `root.json`) durably and atomically,
    /// never through a link in its place. Like the catalog, it replaces the old one in one rename.
    func commitFile(_ name: String, _ bytes: [UInt8]) throws {
        guard let folder else { throw PublishError.io("the publish into \(repository) has ended") }
        try Self.confined { () throws(ConfinementError) in try folder.write(bytes, to: name) }
        committed = true
    }

    /// Places a new immutable file (`roots/N.root.json`): staged, then renamed into place;
    /// refuses to replace one.
    func placeNew(_ bytes: [UInt8], at relativePath: String) throws {
        let staged = "\(staging)/\(placedFiles.count).new"
        let file = try AtomicFile(destination: staged)
        try file.write(bytes)
        try file.commit()
        try place(staged, at: relativePath)
    }

    /// After the commit: removes the staging folder and releases the lock.
    func finish() {
        removeStaging()
        unlock()
    }

    /// Undoes every write: placed files, folders made for them, staging, and the repository
    /// folder itself if this publish created it.
    func rollBack() {
        for f in placedFiles.reversed() { try? folder?.removeTree(f) }
        placedFiles = []
        for d in displaced.reversed() {
            if d.placed { try? folder?.removeTree(d.path) }
            if let aside = d.aside { try? folder?.rename(aside, to: d.path) }
        }
        displaced = []
        for d in createdDirectories.reversed() { folder?.removeEmptyFolder(d) }
        createdDirectories = []
        removeStaging()
        unlock()
        folder = nil
        if createdRepository { rmdir(repository); createdRepository = false }
    }

    private func removeStaging() { try? FileManager.default.removeItem(atPath: staging) }

    /// Deletes the pack file `relativePath` (retired by retention), and its folder when empty,
    /// without following a link on the way; nil when done (or already gone), or why not.
    func deleteRetired(_ relativePath: String) -> String? {
        guard let folder else { return "the publish into \(repository) has ended" }
        do { try folder.removeTree(relativePath) } catch { return error.description }
        folder.removeEmptyFolder((relativePath as NSString).deletingLastPathComponent)
        return nil
    }

    /// Takes the exclusive lock, waiting up to `lockWait` seconds for another publish to end.
    private static func lock(_ fd: Int32, _ repository: String) throws {
        let deadline = Date().addingTimeInterval(lockWait)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                throw PublishError.io("another publish into \(repository) is running (the folder stayed locked for \(Int(lockWait)) s)")
            }
            usleep(50_000)
        }
    }

    static let lockWait: TimeInterval = 30
    static let stagingPrefix = ".assetpack-staging-"

    /// Releases the lock explicitly before closing: a child process forked meanwhile (and not
    /// yet exec'd) shares the open file description, and `close` alone would leave it locked.
    private func unlock() {
        if lockFD >= 0 { flock(lockFD, LOCK_UN); close(lockFD); lockFD = -1 }
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
