import AssetPackFormat
import AssetPackTransport
import Foundation

/// Writes one file of a progressive read: fetched (`ProgressiveFetch`) into a new file in the
/// version's `incoming/` folder, flushed, opened for reading, then — for a whole file — given
/// its mode and renamed into `progressive/<path>`, where the version's download will find it.
/// A file that cannot be placed (the pack was removed, or its version dropped, meanwhile) is
/// still read by the caller through the descriptor opened before: it is complete and
/// verified, only not kept. A range is written into a private copy, removed at once (its
/// descriptor is the only way to it).
struct ProgressiveWrite: @unchecked Sendable {
    let source: AssetPackManager.ProgressiveSource
    let client: RepositoryClient
    let cancellation: CancellationFlag
    let incoming: ConfinedDirectory
    let progressive: ConfinedDirectory

    struct Outcome: Sendable {
        var descriptor: Int32
        var placed: Bool
    }

    /// Fetches the bytes `range` of the file and returns a read-only descriptor of the result
    /// and the network bytes fetched; `place` puts the (whole) file in `progressive/`.
    func run(range: Range<UInt64>, place: Bool) throws -> (Outcome, UInt64) {
        let file = source.index.files[source.file]
        let temporary = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = try StorageLayout.confined { () throws(ConfinementError) in
            try incoming.open(temporary, flags: O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
        }
        defer { close(fd) }
        var kept = false
        defer { if !kept { unlinkat(incoming.fd, temporary, 0) } }
        let display = "\(file.path) of \(source.entry.id) (into \(incoming.path))"
        guard ftruncate(fd, off_t(file.size)) == 0 else { throw Self.storage("cannot size", display) }
        let fetched = try ProgressiveFetch(packPath: source.entry.path, basePaths: source.entry.bases.map(\.path), index: source.index, client: client, cancellation: cancellation)
            .read(file: source.file, range: range) { offset, bytes in
                var done = 0
                while done < bytes.count {
                    let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw Self.storage("cannot write", display) }
                    done += n
                }
            }
        if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
        guard fsync(fd) == 0 else { throw Self.storage("cannot flush", display) }
        let reader: Int32
        do {
            reader = try StorageLayout.confined { () throws(ConfinementError) in try incoming.open(temporary, flags: O_RDONLY) }
        } catch {
            // The staging folder went meanwhile (the pack was installed or updated under this
            // read, which it does not stop): the file, complete and verified, is this read's
            // alone now, under no name, so its own descriptor is handed out.
            let own = dup(fd)
            guard own >= 0 else { throw error }
            return (Outcome(descriptor: own, placed: false), fetched)
        }
        guard place else { return (Outcome(descriptor: reader, placed: false), fetched) }
        _ = fchmod(fd, mode_t(file.mode & 0o777))
        let parent = (file.path as NSString).deletingLastPathComponent
        var placed = true
        do {
            if !parent.isEmpty { _ = try progressive.directory(parent, create: true) }
            try incoming.rename(temporary, to: file.path, in: progressive)
        } catch { placed = false }
        kept = placed
        return (Outcome(descriptor: reader, placed: placed), fetched)
    }

    private static func storage(_ what: String, _ display: String) -> AssetPackManagerError {
        .storage("\(what) \(display): \(String(cString: strerror(errno)))")
    }
}
