import AssetPackFormat
import Foundation

/// The writes of one publish, done so that a failure at any point leaves the repository as it
/// was: new pack files are built in a staging folder inside the repository (same file system,
/// so a rename moves them), renamed into place, and the catalog is written last by
/// write-temporary-then-rename. Until `commitCatalog` succeeds, `rollBack` undoes everything.
/// An exclusive `flock` on the repository folder, held until `finish` (or roll-back), keeps two
/// publishes apart.
final class RepositoryTransaction {
    let repository: String
    let staging: String
    private var lockFD: Int32 = -1
    private var createdRepository = false
    private var createdDirectories: [String] = []
    private var placedFiles: [String] = []
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
            lockFD = open(repository, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard lockFD >= 0 else { throw PublishError.io("cannot open \(repository): \(Self.lastError())") }
            try Self.lock(lockFD, repository)
            // Staging folders left by a publish that was killed: ours to remove, under the lock.
            for name in (try? FileManager.default.contentsOfDirectory(atPath: repository)) ?? [] where name.hasPrefix(Self.stagingPrefix) {
                try? FileManager.default.removeItem(atPath: "\(repository)/\(name)")
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
    func place(_ stagedFile: String, at relativePath: String) throws {
        let target = "\(repository)/\(relativePath)"
        var dir = repository
        for part in relativePath.split(separator: "/").dropLast() {
            dir += "/\(part)"
            if mkdir(dir, 0o755) == 0 { createdDirectories.append(dir) } else if errno != EEXIST {
                throw PublishError.io("cannot create \(dir): \(Self.lastError())")
            }
        }
        guard access(target, F_OK) != 0 else { throw PublishError.io("\(target) already exists; pack files are never replaced") }
        guard rename(stagedFile, target) == 0 else { throw PublishError.io("cannot move a pack file to \(target): \(Self.lastError())") }
        placedFiles.append(target)
        Self.syncDirectory(dir)
    }

    /// Writes `catalog.json` durably and atomically. After this the publish is done; the lock
    /// stays held for the work that follows (the publish cache, deletions) until `finish`.
    func commitCatalog(_ bytes: [UInt8]) throws {
        let file = try AtomicFile(destination: "\(repository)/\(CatalogFormat.fileName)")
        try file.write(bytes)
        try file.commit()
        Self.syncDirectory(repository)
        committed = true
    }

    /// After the commit: removes the staging folder and releases the lock.
    func finish() {
        removeStaging()
        unlock()
    }

    /// Undoes every write: placed files, folders made for them, staging, and the repository
    /// folder itself if this publish created it.
    func rollBack() {
        for f in placedFiles.reversed() { unlink(f) }
        placedFiles = []
        for d in createdDirectories.reversed() { rmdir(d) }
        createdDirectories = []
        removeStaging()
        unlock()
        if createdRepository { rmdir(repository); createdRepository = false }
    }

    private func removeStaging() { try? FileManager.default.removeItem(atPath: staging) }

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
