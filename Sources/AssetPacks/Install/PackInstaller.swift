import AssetPackFormat
import CPOSIX
import AssetPackTransport
import Foundation

/// Assembles one pack version in a staging folder: fetches and checks the index (against the
/// catalog's digest and figures: `PackIndexFetch`), plans where
/// each chunk comes from (earlier in the pack, the installed previous version, a seed folder, a
/// patch applied to it, or the pack's full frame), asks LAN peers for the full frames' chunks
/// first when there are any (`PeerChunkFetch`),
/// and assembles the content stream in parts side by side, each part over a connection of its
/// own: frames are decompressed and verified (SHA-256) as they arrive and written straight into
/// their files. Memory stays at a part's spool (4 MiB) and a frame or two per part.
///
/// Everything lives in `staging` (relative to `root`, and opened through it: a link planted in
/// the staging folder between two runs is refused, never written through) and survives the process being killed: the index file, the
/// parts' spools and the files assembled so far. A new run verifies each part's files chunk by
/// chunk to find where to go on, takes up the bytes its spool holds, and fetches only the rest.
final class PackInstaller: @unchecked Sendable {
    struct Previous {
        var index: PackIndex
        /// The installed folder, relative to the root.
        var directory: String
        /// Its pack digest (a patch file from it is used when the catalog lists one).
        var digest: SHA256Digest? = nil
        /// The change time (ns since the epoch) the installer's commit vouches for
        /// (`InstalledPack.committedChangeTime`), when its files are known to hold what was
        /// verified: a file of the folder with an earlier change time has not been written,
        /// linked or renamed since. 0: every file is read and hashed.
        var verifiedBefore: Int64 = 0
    }

    let pack: CatalogPack
    let root: ConfinedDirectory
    /// The staging folder, relative to `root`.
    let staging: String
    let client: RepositoryClient
    let previous: Previous?
    let cancellation: CancellationFlag
    let progress: @Sendable (_ completed: UInt64, _ total: UInt64) -> Void
    /// Parts assembled side by side, each with its own Range requests.
    var parallel = AssetPackManager.ParallelDownloads.standard
    /// The index's bytes and the index they decode to, when the caller has already fetched and
    /// checked them (`PackIndexFetch`): the bytes are saved in the staging folder instead of
    /// being fetched again, and the index is not decoded a second time.
    var checkedIndex: (bytes: [UInt8], index: PackIndex)?
    /// The patch table the index fetch took on the way (`PackIndexFetch.Loaded.patchTable`): it
    /// is checked again and saved in the staging folder instead of being fetched again.
    var checkedPatchTable: [UInt8]?
    /// The content key of a sealed pack.
    var contentKey: ContentKey?
    /// Attempts at a chunk that keeps arriving corrupt before the install fails.
    var chunkAttempts = 3
    /// Folders whose files may hold chunks of the pack (`Configuration.seedFolders`).
    var seedFolders: [String] = []
    var seedLimits = AssetPackManager.SeedScanLimits.standard
    /// Whether the assembled files are flushed to the disk before `run` returns (false: left
    /// to the kernel's writeback; the commit records the boot, see `Configuration.flushesBeforeCommit`).
    var flushesFiles = true
    /// What the look through the seed folders saw (nil: no seed folders).
    private(set) var seedReport: SeedScanReport?
    /// The bytes of this run by source (chunks placed; the index and patch table aside).
    let sources = SourceCounters()
    private var counters = TransferCounters()
    private var indexBytesFetched: UInt64 = 0
    /// Network bytes this run fetched from the repository (the figure the kill test checks).
    var fetchedBytes: UInt64 { indexBytesFetched + readOrderBytesFetched + counters.fetchedBytes }
    private var readOrderBytesFetched: UInt64 = 0
    /// Chunk bytes this run took from LAN peers (`PeerChunkFetch`), not counted in `fetchedBytes`.
    private(set) var peerBytes: UInt64 = 0
    /// Patches this run applied, and patches it discarded for the chunk's full frame.
    private let updateCounts = UpdateCounts()
    var patchesApplied: Int { updateCounts.applied }
    var patchesDiscarded: Int { updateCounts.discarded }
    /// Files of chunks made from patches that were linked from the previous version, their
    /// bytes unchanged (`PreviousVersionLinks.linkUnchangedFiles`), instead of written.
    var filesLinkedFromPatchedChunks: Int { updateCounts.linkedFiles }
    /// Chunks of the previous version copied inside the kernel, unread (`PartAssembler.copyUnchanged`).
    var chunksCopiedUnread: Int { updateCounts.copiedChunks }
    /// Files of the previous version this run linked without reading them
    /// (`Previous.verifiedBefore`).
    private(set) var filesLinkedUnread = 0

    /// The folder the files are assembled in, relative to `root`.
    var filesDirectory: String { StorageLayout.stagedFiles(staging) }
    /// `filesDirectory`, open (set by `run`).
    private var files: ConfinedDirectory?

    init(pack: CatalogPack, root: ConfinedDirectory, staging: String, client: RepositoryClient, previous: Previous?,
         cancellation: CancellationFlag, progress: @escaping @Sendable (UInt64, UInt64) -> Void) {
        self.pack = pack
        self.root = root
        self.staging = staging
        self.client = client
        self.previous = previous
        self.cancellation = cancellation
        self.progress = progress
    }

    /// Runs (or resumes) the assembly; on success every file is complete, verified and flushed
    /// to disk in `filesDirectory`, and the index is returned.
    func run() throws -> PackIndex {
        let (stagingFolder, files) = try StorageLayout.confined { () throws(ConfinementError) in
            (try root.directory(staging, create: true), try root.directory(filesDirectory, create: true))
        }
        self.files = files
        // What an earlier client version left in the staging folder is of no use.
        for name in (try? stagingFolder.entries()) ?? [] where StorageLayout.isObsoleteStagedEntry(name) {
            try? stagingFolder.removeTree(name)
        }
        let index = try loadIndex()
        if previous == nil, let order = pack.readOrder { try fetchReadOrder(order, index: index) }
        let linked = try linkUnchangedFiles(index: index, files: files)
        let patches = try loadPatches(index: index)
        var plan = InstallPlan(index: index, previous: previous?.index, patches: patches, linkedFiles: linked)
        var fromPeers = Set<Int>()
        let seeds = try planSeeds(index: index, plan: plan, stagingFolder: stagingFolder)
        let seeded = Set(seeds?.locations.keys ?? [:].keys)
        if !seeded.isEmpty {
            plan = InstallPlan(index: index, previous: previous?.index, patches: patches, linkedFiles: linked, seeded: seeded)
        }
        if let peers = client.peers, !peers.active().isEmpty {
            // LAN peers next (for what neither the previous version nor a seed holds): what they
            // place is present, and the repository is asked for the rest.
            let fetched = try PeerChunkFetch(index: index, plan: plan, files: files, transport: client.transport, health: peers,
                                             timeout: client.limits.peerTimeout, cancellation: cancellation).run()
            peerBytes = fetched.peerBytes
            for (peer, counts) in fetched.byPeer { sources.add(.peer, peer, bytes: counts.bytes, saved: counts.saved) }
            fromPeers = fetched.local
            plan = InstallPlan(index: index, previous: previous?.index, patches: patches, linkedFiles: linked, seeded: seeded, local: fetched.local)
            // Spools a run with another plan left hold other download offsets.
            for name in (try? stagingFolder.entries()) ?? [] where StorageLayout.isPartSpool(name) { try? stagingFolder.removeTree(name) }
        }
        for (peer, why) in client.peers?.demotionsByPeer ?? [:] { sources.demoted(.peer, peer, reason: why.description) }
        countLinked(index: index, plan: plan, besides: fromPeers)
        // The parts an earlier run of this download had when it stopped (splits included: each
        // keeps its spool), or those the index gives.
        let saved = try StorageLayout.confined { () throws(ConfinementError) in try root.contents(of: StorageLayout.stagedParts(staging)) }
        let parts = saved.flatMap { InstallPart.decode($0, index: index, plan: plan) }
            ?? InstallPart.split(index: index, plan: plan, count: index.installSize >= parallel.minimumInstallSize ? parallel.parts : 1)
        counters = TransferCounters()
        let assembled = try assembleParts(parts, index: index, plan: plan, seeds: seeds, files: files)
        try fillDeferred(assembled, index: index, plan: plan, files: files)
        progress(plan.downloadBytes, plan.downloadBytes)
        if flushesFiles { try syncFileSystem(files) }
        return index
    }

    /// Runs every part on a thread of its own (finding where it stands on disk, then fetching
    /// and assembling the rest); the first failure stops the others. A thread whose part is
    /// done goes on with half of what the busiest part has left (`RunningParts`). Returns the
    /// parts as they ended, in stream order.
    private func assembleParts(_ initial: [InstallPart], index: PackIndex, plan: InstallPlan, seeds: SeedMatches?, files: ConfinedDirectory) throws -> [InstallPart] {
        let workers = DispatchGroup()
        let stop = CancellationFlag()
        let failures = FirstFailure()
        // The previous version's folder, if it can still be opened (its files are read as they
        // stand, and a missing one is fetched). A chunk copied from files unchanged since their
        // verified install is not hashed again, as such a file is linked without being read.
        let old = previous.map {
            ContentStreamReader(index: $0.index, directory: try? root.directory($0.directory), verifiedBefore: $0.verifiedBefore, dropsBehind: true)
        }
        let destination = "\(pack.id) into \(files.path)"
        let limits = client.limits
        let partsPath = StorageLayout.stagedParts(staging)
        // A resumed run may start with more parts than it may run at once (those of its splits):
        // the rest wait for a thread whose part is done.
        let slotCount = max(1, parallel.parts)
        let slots = DispatchSemaphore(value: slotCount)
        let running = RunningParts(initial, index: index, plan: plan, minimumSplit: parallel.minimumSplit, slots: slotCount,
                                   watchdog: { PartWatchdog(limit: limits.stallTimeout) },
                                   // Saved at each split, for a resumed run (one that cannot be saved costs
                                   // only the split parts' spools: the run takes the index's parts).
                                   split: { [root] parts in try? root.write(InstallPart.encode(parts), to: partsPath) })
        @Sendable func start(_ work: @escaping @Sendable () -> Void) {
            workers.enter()
            let t = Thread { work(); workers.leave() }
            t.stackSize = 1 << 20
            t.start()
        }
        @Sendable func assembler(_ k: Int, _ part: InstallPart, from position: Int, watchdog: PartWatchdog) throws -> PartAssembler {
            let assembler = try PartAssembler(index: index, plan: plan, part: part, directory: files, root: root,
                                              spoolPath: StorageLayout.partSpool(staging, part: k), previous: old,
                                              verifiedBefore: previous?.verifiedBefore ?? 0, start: position)
            assembler.seeds = seeds
            assembler.sources = sources
            assembler.placed = { watchdog.progressed() }
            assembler.corruptFrame = { [client] in
                // The frame came from the mirror the part's request goes to: it goes
                // behind the others, and the part goes on from a better one.
                if let m = watchdog.currentMirror { client.health.failed(m) }
                watchdog.mirrorServedCorruptBytes()
            }
            return assembler
        }
        /// Fetches and places what `assembler` has left; false when the install is stopping.
        @Sendable func run(_ assembler: PartAssembler, watchdog: PartWatchdog) -> Bool {
            let spool = assembler.spool
            do {
                let part = assembler.part
                counters.resumed(assembler.downloadStart - part.download.lowerBound)
                if let spool, assembler.downloadStart < part.download.upperBound {
                    let downloader = PartDownloader(plan: plan, spool: spool, packPath: pack.path, basePaths: pack.bases.map(\.path), client: client,
                                                    cancellation: stop, counters: counters, watchdog: watchdog, sources: sources)
                    start {
                        do { try downloader.run(); spool.finish() } catch {
                            // Once the part is assembled the network side is told to stop.
                            if spool.isClosed { return }
                            failures.record(error)
                            stop.cancel()
                            spool.fail(error)
                        }
                    }
                }
                defer {
                    updateCounts.add(applied: assembler.patchesApplied, discarded: assembler.patchesDiscarded,
                                     linkedFiles: assembler.filesLinkedFromPatchedChunks, copiedChunks: assembler.chunksCopiedUnread)
                }
                try storing(destination) { try assembler.run(refetch: { c in try refetch(c, index: index) }, cancellation: stop) }
                spool?.close()
                return !stop.isCancelled
            } catch {
                failures.record(error)
                stop.cancel()
                spool?.fail(error)
                return false
            }
        }
        for (k, part) in initial.enumerated() {
            start { [self] in
                slots.wait()
                defer { slots.signal() }
                running.willStart()
                defer { running.left() }
                if stop.isCancelled {
                    running.started(k, nil)
                    return
                }
                var current: (Int, PartAssembler)
                do {
                    let first = try assembler(k, part, from: resumePoint(part, index: index, plan: plan, files: files), watchdog: running.watchdog(k))
                    running.started(k, first)
                    current = (k, first)
                } catch {
                    running.started(k, nil)
                    failures.record(error)
                    stop.cancel()
                    return
                }
                while run(current.1, watchdog: running.watchdog(current.0)) {
                    running.finished(current.0)
                    // Half of what the busiest part has left, in a spool of its own that starts empty.
                    guard let next = running.split({ n, rest, watchdog in
                        try? root.removeTree(StorageLayout.partSpool(staging, part: n))
                        return try assembler(n, rest, from: rest.sequences.lowerBound, watchdog: watchdog)
                    }) else { return }
                    current = next
                }
                running.finished(current.0)
            }
        }
        // Until the workers are done: forward the caller's cancellation to them, and report
        // progress as bytes arrive (ten times a second).
        var ticks = 0
        while workers.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if cancellation.isCancelled { stop.cancel() }
            for w in running.allWatchdogs { w.check(stopped: stop.isCancelled) }
            ticks += 1
            if ticks % 2 == 0 { progress(counters.completedBytes, plan.downloadBytes) }
        }
        if let error = failures.first { throw error }
        if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
        return running.parts
    }

    /// Places the chunks whose first use lies in an earlier part (copied from there, now that
    /// it is on disk), and gives files that straddle two parts their mode.
    private func fillDeferred(_ parts: [InstallPart], index: PackIndex, plan: InstallPlan, files: ConfinedDirectory) throws {
        var writer = ContentRangeWriter(root: files, index: index, range: 0..<UInt64.max, includesEnd: false, skipping: plan.linkedFiles)
        defer { writer.abandon() }
        let staged = ContentStreamReader(index: index, directory: files)
        let destination = "\(pack.id) into \(files.path)"
        for part in parts.dropFirst() {
            for s in part.sequences where part.defers(s, in: plan) {
                guard case .earlier(let first) = plan.sources[s] else { continue }
                let bytes = try staged.verifiedChunk(atSequence: first) ?? refetch(Int(index.sequence[s]), index: index)
                try storing(destination) { try bytes.withUnsafeBytes { try writer.write($0, at: index.sequenceOffsets[s]) } }
            }
        }
        try storing(destination) {
            try writer.close()
            for part in parts.dropFirst() { try writer.setModeOfFile(straddling: part.content.lowerBound) }
        }
    }

    // MARK: Seeds

    /// Looks through the seed folders for the chunks the plan would fetch, and keeps the
    /// parts' spools only when the chunks found are those the download planned with before
    /// (their download offsets depend on it): otherwise the spools go — the files placed so far
    /// stay, verified chunk by chunk — and the new set is saved. Nil without seed folders.
    private func planSeeds(index: PackIndex, plan: InstallPlan, stagingFolder: ConfinedDirectory) throws -> SeedMatches? {
        let path = StorageLayout.stagedSeededChunks(staging)
        let saved = try StorageLayout.confined { () throws(ConfinementError) in try root.contents(of: path) }
        var matches: SeedMatches?
        if !seedFolders.isEmpty {
            let found = SeedScan(paths: seedFolders, index: index, limits: seedLimits).run(wanted: plan.networkChunks(in: index), cancellation: cancellation)
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            seedReport = found.report
            matches = found
        }
        let chosen = (matches?.locations.keys).map { Array($0).sorted() } ?? []
        var encoded: [UInt8] = []
        encoded.reserveCapacity(chosen.count * 4)
        for c in chosen { withUnsafeBytes(of: UInt32(c).littleEndian) { encoded.append(contentsOf: $0) } }
        if (saved ?? []) != encoded {
            for name in (try? stagingFolder.entries()) ?? [] where StorageLayout.isPartSpool(name) {
                try StorageLayout.confined { () throws(ConfinementError) in try stagingFolder.removeTree(name) }
            }
            if encoded.isEmpty {
                try StorageLayout.confined { () throws(ConfinementError) in try root.removeTree(path) }
            } else {
                try save(encoded, at: path)
            }
        }
        return matches
    }

    /// Counts the chunks of files linked from the previous version (and chunks a resumed run
    /// found verified on disk) as local bytes; those peers placed (`peerPlaced`) are theirs.
    private func countLinked(index: PackIndex, plan: InstallPlan, besides peerPlaced: Set<Int>) {
        var seen = Set<Int>()
        var bytes: UInt64 = 0, saved: UInt64 = 0
        for (s, source) in plan.sources.enumerated() where source == .present && !peerPlaced.contains(s) {
            let c = Int(index.sequence[s])
            guard seen.insert(c).inserted else { continue }
            bytes += UInt64(index.chunks[c].uncompressedSize)
            saved += UInt64(index.chunks[c].compressedSize)
        }
        sources.add(.local, nil, bytes: bytes, saved: saved)
    }

    // MARK: Index

    private func loadIndex() throws -> PackIndex {
        let path = StorageLayout.stagedIndex(staging)
        var fetch = PackIndexFetch(pack: pack, client: client, attempts: chunkAttempts)
        fetch.contentKey = contentKey
        if let (bytes, index) = checkedIndex, SHA256Digest.hash(bytes) == pack.digest {
            let saved = try StorageLayout.confined { () throws(ConfinementError) in try root.contents(of: path) }
            if saved != bytes { try save(bytes, at: path) }
            return index
        }
        let staged = try StorageLayout.confined { () throws(ConfinementError) in try root.contents(of: path) }
        let loaded = try fetch.load(staged: staged, cancellation: cancellation)
        indexBytesFetched += loaded.fetched
        if loaded.fetched > 0 { try save(loaded.bytes, at: path) }
        return loaded.index
    }

    /// Makes each file of the new version whose bytes and mode are unchanged since the installed
    /// version (`PackIndex.unchangedFiles`) a hard link of the installed file: it is never
    /// written. The installed file is linked as it is when its size is right and its change time
    /// is earlier than the change time its install vouches for (`Previous.verifiedBefore`): no
    /// process has written, linked or renamed it since it was verified. Any other is linked once
    /// its chunks verify on disk. Any other staged file that has a second name (linked by an
    /// earlier run whose checks this run does not repeat) is removed first, so that no write ever
    /// reaches an installed file. Returns the linked files.
    private func linkUnchangedFiles(index: PackIndex, files: ConfinedDirectory) throws -> FileSet {
        var linked = FileSet()
        // A folder that held nothing before this run holds no link an earlier run made.
        let wasEmpty = (try? files.entries())?.isEmpty == true
        if let previous, let old = try? root.directory(previous.directory) {
            let reader = ContentStreamReader(index: previous.index, directory: old, dropsBehind: true)
            // The previous version's sequence positions whose chunk verified on disk: a flag each.
            var verified = [Bool](repeating: false, count: previous.index.sequence.count)
            var links = PreviousVersionLinks(from: old, to: files)
            try index.forEachUnchangedFile(since: previous.index) { f, o in
                if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
                let size = index.files.size(at: f)
                do {
                    let (from, to, name) = try links.place(of: index.files.path(at: f))
                    // Linked afresh, whatever an earlier run left there (a folder that held
                    // nothing before this run has nothing to remove).
                    if !wasEmpty { try to.removeTree(name) }
                    if previous.verifiedBefore > 0, try from.link(name, to: name, in: to, if: { st in
                        UInt64(st.st_size) == size && ContentStreamReader.isUnchanged(st, since: previous.verifiedBefore)
                    }) {
                        linked.insert(f)
                        filesLinkedUnread += 1
                        return
                    }
                    let spans = previous.index.spans(ofFile: o)
                    guard spans.allSatisfy({ verified[$0.sequenceIndex] || reader.verifiedChunk(atSequence: $0.sequenceIndex) != nil }) else { return }
                    for span in spans { verified[span.sequenceIndex] = true }
                    try from.link(name, to: name, in: to)
                    linked.insert(f)
                } catch {
                    // A file that cannot be linked (another file system, a link refused) is written.
                    return
                }
            }
        }
        linked.formUnion(try linkProgressiveFiles(index: index, files: files, except: linked))
        if wasEmpty { return linked }
        for (f, file) in index.files.enumerated() where !linked.contains(f) && (files.linkCount(file.path) ?? 1) > 1 {
            try StorageLayout.confined { () throws(ConfinementError) in try files.removeTree(file.path) }
        }
        return linked
    }

    /// The catalog's read-order hint, on a fresh install: the files it names (a folder: every
    /// file below it, in path order), in its order, fetched one by one as progressive reads
    /// (`ProgressiveWrite`) into the staging folder's `progressive/` before the rest of the
    /// pack, so they are whole and verified after a fraction of the download; the assembly that
    /// follows links them. An entry that names nothing is skipped; a file that cannot be fetched
    /// this way is left to the assembly (which retries and reports it as for any chunk).
    private func fetchReadOrder(_ order: [String], index: PackIndex) throws {
        var chosen: [Int] = []
        var seen = Set<Int>()
        for entry in order {
            let matches = index.fileIndex(of: entry).map { [$0] }
                ?? index.files.enumerated().filter { $0.element.path.hasPrefix(entry + "/") }.map(\.offset)
            for f in matches where seen.insert(f).inserted { chosen.append(f) }
        }
        guard !chosen.isEmpty else { return }
        let (incoming, progressive) = try StorageLayout.confined { () throws(ConfinementError) in
            (try root.directory(StorageLayout.progressiveIncoming(staging), create: true),
             try root.directory(StorageLayout.progressiveFiles(staging), create: true))
        }
        for f in chosen where !progressive.exists(index.files.path(at: f)) {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            let source = AssetPackManager.ProgressiveSource(entry: pack, index: index, indexBytes: [], file: f, staging: staging)
            do {
                let (outcome, fetched) = try ProgressiveWrite(source: source, client: client, cancellation: cancellation, incoming: incoming, progressive: progressive)
                    .run(range: 0..<index.files.size(at: f), place: true)
                close(outcome.descriptor)
                readOrderBytesFetched += fetched
            } catch AssetPackManagerError.cancelled {
                throw AssetPackManagerError.cancelled
            } catch {
                break
            }
        }
    }

    /// Makes each file that a progressive read placed in the staging folder's `progressive/`
    /// (complete, verified chunk by chunk, flushed, then renamed there) a hard link in `files/`,
    /// so it is not fetched again; its size and the chunks that lie wholly in it are checked
    /// again first. Returns the linked files.
    private func linkProgressiveFiles(index: PackIndex, files: ConfinedDirectory, except done: FileSet) throws -> FileSet {
        guard let progressive = try? root.directory(StorageLayout.progressiveFiles(staging)) else { return [] }
        var linked = FileSet()
        let reader = ContentStreamReader(index: index, directory: progressive)
        for (f, file) in index.files.enumerated() where !done.contains(f) && progressive.exists(file.path) {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            guard let fd = try? progressive.open(file.path, flags: O_RDONLY) else { continue }
            var st = stat()
            let sized = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && UInt64(st.st_size) == file.size
            close(fd)
            guard sized, index.spans(ofFile: f).allSatisfy({ span in
                span.offsetInChunk != 0 || span.length != Int(index.chunks[span.chunkIndex].uncompressedSize)
                    || reader.verifiedChunk(atSequence: span.sequenceIndex) != nil
            }) else {
                try? progressive.removeTree(file.path)
                continue
            }
            do {
                try files.removeTree(file.path)
                try progressive.link(file.path, to: file.path, in: files)
                linked.insert(f)
            } catch { continue }
        }
        return linked
    }

    /// The patch file to plan with: the catalog's patch from the installed version's digest,
    /// its table taken from the staging folder when saved there (so that a resumed run makes the
    /// same plan), else the one the index fetch took (`checkedPatchTable`), else fetched with one
    /// Range request; checked against the catalog's SHA-256 and the two digests
    /// (`CatalogPatch.checkedTable`); a sealed pack's table must be sealed and open with the pack's content
    /// key (`PatchTable.decode(_:tableOffset:contentKey:)`). Nil (saved as an empty file) when
    /// there is no usable patch: an unreachable, damaged, tampered or plaintext-for-sealed table
    /// only means full frames.
    private func loadPatches(index: PackIndex) throws -> InstallPlan.Patches? {
        guard let previous, let from = previous.digest, let patch = pack.patch(from: from) else { return nil }
        let path = StorageLayout.stagedPatchTable(staging)
        func decoded(_ bytes: [UInt8]) -> InstallPlan.Patches? {
            patch.checkedTable(bytes, to: pack.digest, contentKey: index.contentKey).map { InstallPlan.Patches(path: patch.path, table: $0) }
        }
        if let saved = try StorageLayout.confined({ () throws(ConfinementError) in try root.contents(of: path) }) {
            return saved.isEmpty ? nil : decoded(saved)
        }
        var found: InstallPlan.Patches?
        var kept: [UInt8] = []
        if let bytes = checkedPatchTable, let table = decoded(bytes) {
            found = table
            kept = bytes
        } else if let range = ByteRange(offset: patch.table.offset, length: patch.table.length),
           let (bytes, _) = try? client.bytes(of: patch.path, range: range, cancellation: cancellation, smallFile: true) {
            indexBytesFetched += UInt64(bytes.count)
            found = decoded(bytes)
            if found != nil { kept = bytes }
        }
        if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
        try save(kept, at: path)
        return found
    }

    private func save(_ bytes: [UInt8], at path: String) throws {
        do { try root.write(bytes, to: path) } catch {
            throw AssetPackManagerError.storage("cannot save the index in \(root.display(staging)): \(error)")
        }
    }

    // MARK: Assembly

    /// The first position of `part` whose bytes are not yet correct on disk (copies deferred to
    /// the end are not looked at: they are placed after every part).
    private func resumePoint(_ part: InstallPart, index: PackIndex, plan: InstallPlan, files: ConfinedDirectory) -> Int {
        let reader = ContentStreamReader(index: index, directory: files)
        var s = part.sequences.lowerBound
        while s < part.sequences.upperBound, plan.sources[s] == .present || part.defers(s, in: plan) || reader.verifiedChunk(atSequence: s) != nil { s += 1 }
        return s
    }

    /// Fetches chunk `c`'s frame on its own, up to `chunkAttempts` times, until it verifies; a
    /// mirror whose frame does not verify goes behind the others, so the next attempt asks
    /// another one.
    private func refetch(_ c: Int, index: PackIndex) throws -> [UInt8] {
        let entry = index.chunks[c]
        let decompressor = ZstdDecompressor()
        var lastError: (any Error)?
        for _ in 0..<chunkAttempts {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            guard let range = ByteRange(offset: entry.offset, length: UInt64(entry.compressedSize)) else { break }
            // The healthiest mirror first: the one whose bytes failed has gone behind the others.
            let (frame, mirror) = try client.bytes(of: pack.framePath(c, in: index), range: range, cancellation: cancellation, smallFile: true)
            counters.refetched(UInt64(frame.count))
            sources.add(.mirror, client.mirrors[mirror % client.mirrors.count], bytes: UInt64(frame.count))
            do { return try ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor, sealedCheck: .digest) } catch {
                lastError = error
                client.health.failed(mirror)
            }
        }
        throw AssetPackManagerError.verification("\(pack.framePath(c, in: index)): \(lastError.map { "\($0)" } ?? "chunk \(c)") (after \(chunkAttempts) attempts)")
    }

    private func syncFileSystem(_ files: ConfinedDirectory) throws {
        guard cposix_syncfs(files.fd) == 0 else { throw AssetPackManagerError.storage("cannot flush \(files.path) to disk: \(String(cString: strerror(errno)))") }
    }
}

/// Runs `work`, reporting a failure to write the staged files as a storage error.
private func storing<T>(_ destination: String, _ work: () throws -> T) throws -> T {
    do { return try work() } catch let error as AssetPackManagerError { throw error } catch {
        throw AssetPackManagerError.storage("cannot write \(destination): \(error)")
    }
}

/// Patches applied and discarded, added up across an install's parts.
private final class UpdateCounts: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (applied: 0, discarded: 0, linkedFiles: 0, copiedChunks: 0)
    func add(applied: Int, discarded: Int, linkedFiles: Int, copiedChunks: Int) {
        lock.withLock {
            counts.applied += applied
            counts.discarded += discarded
            counts.linkedFiles += linkedFiles
            counts.copiedChunks += copiedChunks
        }
    }
    var applied: Int { lock.withLock { counts.applied } }
    var discarded: Int { lock.withLock { counts.discarded } }
    var linkedFiles: Int { lock.withLock { counts.linkedFiles } }
    var copiedChunks: Int { lock.withLock { counts.copiedChunks } }
}

/// The failure that stopped an install's parts: the first one that is not the cancellation the
/// others saw because of it.
private final class FirstFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?

    func record(_ e: any Error) {
        lock.withLock {
            if error == nil || (isCancellation(error!) && !isCancellation(e)) { error = e }
        }
    }

    var first: (any Error)? { lock.withLock { error } }

    private func isCancellation(_ e: any Error) -> Bool {
        if case AssetPackManagerError.cancelled = e { return true }
        return false
    }
}
