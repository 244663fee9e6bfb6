import AppleArchive
import AssetPackFormat
import AssetPackPackaging
import Foundation

/// `assetpack publish`: packages manifests into a signed static repository.
///
/// Order of work, so that nothing is written unless everything checks out:
/// 1. read and resolve the manifests; verify the existing catalog with the key's public half;
/// 2. lint what the selected files alone decide (IDs, paths, variants, install sizes);
/// 3. build every pack into a staging folder — or reuse its file in the repository when the
///    publish cache knows its inputs unchanged (`PackBuilder`) — then lint compressed sizes;
/// 4. plan versions and retention; move new pack files into place; write `catalog.json` last;
/// 5. only then record the publish cache and delete pack files the retention rule no longer keeps.
public struct Publisher {
    public var key: SigningKey
    public var options: PublishOptions

    public init(key: SigningKey, options: PublishOptions) {
        self.key = key
        self.options = options
    }

    public func publish(manifests: [String]) throws -> PublishReport {
        if let problem = SettingBounds.problem("keep", options.keep, in: SettingBounds.keptVersions, reason: "the current version counts")
            ?? SettingBounds.problem("threads", options.writer.threads, in: SettingBounds.threads, reason: SettingBounds.threadsReason) {
            throw PublishError.invalidOption(problem)
        }
        guard options.expiresIn > 0 else { throw PublishError.invalidOption("the expiry must be in the future") }
        let channel = ChannelName.normalized(options.channel)
        if let channel, let why = ChannelName.problem(with: channel) { throw PublishError.invalidOption("channel \"\(channel)\" \(why)") }
        if let percent = options.rolloutPercent, !(0...100).contains(percent) {
            throw PublishError.invalidOption("the rollout percentage must be 0 to 100, found \(percent)")
        }
        // Before any manifest is read: one manifest is one pack.
        guard manifests.count <= Catalog.maximumPacks else {
            throw PublishError.invalidOption("\(manifests.count) manifests, more than the \(Catalog.maximumPacks) packs a repository may hold (a catalog lists at most \(Catalog.maximumPacks)); nothing was published")
        }
        let appleBaseURL = try checkedAppleBaseURL()
        var report = PublishReport()
        var resolved = manifests.map { ResolvedManifest(path: $0, baseDirectory: options.baseDirectory) }
        let diagnostics = resolved.flatMap(\.diagnostics)
        guard resolved.allSatisfy(\.isValid) else { throw PublishError.invalidManifests(diagnostics) }
        report.diagnostics = diagnostics
        // Device variants: the rest of the publish (Apple's archives and download manifest
        // included: Apple's tools never see a variant) works on each ID's default; the variants'
        // packs are built beside it and listed in its catalog entry.
        let groups = DeviceVariantGroups(resolved.map { ($0.path, $0.manifest!) })
        report.findings = PublishLinter(options: options.lint).escalated(groups.findings)
        guard !report.findings.hasErrors else { throw PublishError.lintFailed(report.findings) }
        var inputs = groups.defaults.map { resolved[$0] }
        let trust = try RepositoryTrust.load(repository: options.repository)
        try checkKeys(against: trust)
        let catalogs = RepositoryCatalogs(repository: options.repository, keys: trust.map { $0.everyCatalogKey } ?? [key.publicKey])
        var current = try catalogs.catalog(of: channel, reusing: nil)
        var old = current?.catalog
        var rolloutBase = try Self.rolloutBase(old: old, percent: options.rolloutPercent, channel: channel)
        let sealing = try contentKeys(ids: inputs.map { $0.manifest!.assetPackID }, old: old)
        var packs = inputs.map { input in
            LintPack(id: input.manifest!.assetPackID, language: input.manifest!.language,
                     downloadPolicy: input.manifest!.downloadPolicy, files: input.files)
        }
        for i in packs.indices {
            packs[i].variantInstallSize = groups.variants[packs[i].id]?.map { resolved[$0.input].installSize }.max()
        }
        try checkReadOrder(packs)
        var lintOptions = options.lint
        // Apple devices read these packs as Apple's managed packs: Apple's limits apply.
        if appleBaseURL != nil { lintOptions.appleLimits = true }
        let linter = PublishLinter(options: lintOptions)
        report.findings += linter.lintContent(packs)
        guard !report.findings.hasErrors else { throw PublishError.lintFailed(report.findings) }
        if options.checkOnly && !options.lint.needsCompressedSizes { return report }

        let cachePath = try options.resolvedCachePath()
        report.cachePath = cachePath
        let transaction: RepositoryTransaction?
        let staging: String
        if options.checkOnly {
            transaction = nil
            staging = NSTemporaryDirectory() + "/assetpack-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            guard mkdir(staging, 0o700) == 0 else { throw PublishError.io("cannot create \(staging): \(RepositoryTransaction.lastError())") }
        } else {
            transaction = try RepositoryTransaction(repository: options.repository)
            staging = transaction!.staging
            // Read again under the lock: a publish that ran meanwhile has written a newer catalog
            // (the same bytes are not verified twice).
            current = try catalogs.catalog(of: channel, reusing: current)
            old = current?.catalog
            rolloutBase = try Self.rolloutBase(old: old, percent: options.rolloutPercent, channel: channel)
        }
        defer { if options.checkOnly { try? FileManager.default.removeItem(atPath: staging) } }

        // Read once the repository is locked (unless checking only), so that the pack files it
        // names stay as they are. A repository without a catalog holds no pack file to reuse.
        var cache: PublishCache?
        if let cachePath, options.cacheUse == .reuse, old != nil {
            let (loaded, warning) = PublishCache.load(path: cachePath)
            cache = loaded
            report.cacheWarnings += [warning].compactMap { $0 }
        }
        var builder = PackBuilder(repository: options.repository, folder: transaction?.folder ?? (try? ConfinedDirectory(root: options.repository)), writer: options.writer, cache: cache, afterPackaging: options.afterPackaging)
        builder.keys = sealing.all
        var built: [BuiltPack] = []
        for (i, input) in inputs.enumerated() {
            built.append(try builder.build(input, metadata: PackMetadata(input.manifest!), stagedAt: "\(staging)/\(i).pack",
                                           sealing: sealing.current[input.manifest!.assetPackID]))
            packs[i].compressedSize = built[i].info.size
        }
        let variants = try buildVariants(groups, resolved: resolved, defaults: built, builder: &builder, staging: staging, sealing: sealing.current)
        // A device downloads one variant of a group: the download allowances count the largest
        // download (a variant's with the frames it takes from other files of the group).
        for i in packs.indices {
            packs[i].compressedSize = ([built[i].info.size] + variants.filter { $0.id == packs[i].id }.map(\.pack.info.downloadSize)).max()
        }
        report.cacheWarnings += builder.warnings
        report.indexesRead = builder.indexesRead
        report.builds = (built + variants.map(\.pack)).map { PackBuild(id: $0.info.metadata.assetPackID, reused: $0.reused, cached: false) }
        for (i, v) in variants.enumerated() { report.builds[built.count + i].variant = v.conditions.name }
        let version = (old?.version ?? 0) + 1
        var entries = built.map { $0.info.catalogEntry(version: 0, path: PackFileInfo.repositoryPath(id: $0.info.metadata.assetPackID, digest: $0.info.digest)) }
        for i in entries.indices {
            let list = variants.filter { $0.id == entries[i].id }
            let group = Self.group(of: entries[i], variants: list)
            if !list.isEmpty { entries[i].variants = list.map { $0.pack.info.catalogVariant($0.conditions, group: group) } }
        }
        let others = transaction == nil ? [] : try catalogs.others(than: channel).map(\.catalog)
        var versions = PackVersions(others)
        // The history only matters to a pack that needs a version number: new or changed content.
        let oldDigests = Dictionary((old?.packs ?? []).map { ($0.id, $0.digest) }, uniquingKeysWith: { a, _ in a })
        if entries.contains(where: { oldDigests[$0.id] != $0.digest }) { try catalogs.historyVersions(into: &versions) }
        var plan = RepositoryPlan(old: old, built: entries, catalogVersion: version, keep: options.keep, versions: versions)
        var largestHosted: [String: UInt64] = [:]
        for r in plan.retired { largestHosted[r.id] = max(largestHosted[r.id] ?? 0, r.size) }
        report.findings += linter.lintCompressedSizes(packs, largestHosted: largestHosted)
        guard !report.findings.hasErrors else { throw PublishError.lintFailed(report.findings) }
        guard let transaction else { return report }

        try placePackFiles(&plan, built: built, old: old, transaction: transaction, keys: sealing.all)
        try placeVariantFiles(&plan, variants: variants, transaction: transaction, keys: sealing.all)
        try makePatches(&plan, staging: staging, transaction: transaction, report: &report, keys: sealing.all)
        var appleRecords: [AppleArchiveRecord] = []
        if let appleBaseURL {
            let publication = ApplePublication(baseURL: appleBaseURL, channel: channel,
                                               archiver: ApplePackArchiver(compression: options.appleCompression, threads: options.writer.threads),
                                               transaction: transaction, records: cache?.appleArchives ?? [:])
            let byID = Dictionary(inputs.map { ($0.manifest!.assetPackID, $0) }, uniquingKeysWith: { a, _ in a })
            let (summary, records) = try publication.publish(plan.packs, inputs: byID)
            report.apple = summary
            appleRecords = records
            if !summary.changedWhileArchived.isEmpty {
                report.appleWarnings.append("a file of \(summary.changedWhileArchived.joined(separator: ", ")) changed while its Apple Archive was written; the archive holds the bytes read then, and the next publish writes it again")
            }
        } else if transaction.folder?.exists(AppleHostingLayout.manifestPath(channel: channel)) == true {
            report.appleWarnings.append("\(AppleHostingLayout.manifestPath(channel: channel)) was left as it was: pass --apple-base-url to bring Apple devices this publish too")
        }
        // The lists of selected files (a few hundred bytes a file) are of no more use: they go
        // before the update sizes decode two indexes of each changed pack.
        resolved = []
        inputs = []
        packs = []
        for i in plan.packs.indices { plan.packs[i].readOrder = options.readOrder[plan.packs[i].id] }
        var catalog = Catalog(version: version, published: options.now, expires: options.now.addingTimeInterval(options.expiresIn),
                              packs: plan.packs, retired: plan.retired, removed: plan.removed, channel: channel)
        if let percent = options.rolloutPercent, let rolloutBase, percent < 100 {
            catalog.rollout = CatalogRollout(percent: percent, fromVersion: rolloutBase.version, packs: rolloutBase.packs)
        }
        try options.beforeCatalogCommit?()
        // With a root, the timestamp naming the new catalog is made (and checked) before the
        // catalog is written, and written right after it.
        let commit = CatalogCommit(key: key, timestampKey: options.timestampKey, timestampExpiresIn: options.timestampExpiresIn, now: options.now)
        defer { transaction.finish() }
        report.timestamp = try commit.commit(catalog, transaction: transaction, trust: trust).timestamp
        report.catalog = catalog
        report.changes = plan.changes
        if let cachePath {
            recordCache(built + variants.map(\.pack), plan: plan, folder: transaction.folder, apple: appleRecords, channel: channel, previous: cache, at: cachePath, in: &report)
        }
        let changed = Set(plan.changes.filter { $0.kind == .updated || $0.kind == .added }.map(\.id))
        if !changed.isEmpty {
            report.updates = (try? RepositoryUpdates.sizes(repository: options.repository, catalog: catalog, ids: changed, keys: sealing.all)) ?? []
        }
        let deletions = CatalogCommit.deletable(plan.deletions, keeping: catalog, others: others)
        (report.deletedFiles, report.cleanupWarnings) = deleteRetiredFiles(deletions, transaction: transaction)
        return report
    }

    /// Makes, for every pack whose content changed, a patch file from each earlier version whose
    /// default's file the retention rule keeps (docs/FORMAT.md, "Patch file"), places it at its
    /// content-addressed path and lists it in the pack's entry. With `--keep 1` no earlier
    /// version is kept, so there is nothing to patch from, and the report says so.
    private func makePatches(_ plan: inout RepositoryPlan, staging: String, transaction: RepositoryTransaction,
                             report: inout PublishReport, keys: [ContentKey]) throws {
        let changed = Set(plan.changes.filter { $0.kind == .updated || $0.kind == .added }.map(\.id))
        guard !changed.isEmpty else { return }
        if options.keep == 1 {
            report.patchNote = "no patches: --keep 1 keeps no earlier version to patch from"
            return
        }
        var writer = options.patches
        writer.threads = options.writer.threads
        for (i, entry) in plan.packs.enumerated() where changed.contains(entry.id) {
            // From the default's earlier files only: patches lead from one default to the next
            // (a retired variant file is another variant's content, and may take frames from
            // files of its group).
            let sources = plan.retired.filter { $0.id == entry.id && $0.path.hasSuffix(".pack") && $0.variant == nil && $0.version < entry.version }
            guard !sources.isEmpty else { continue }
            let new: PackReader
            do { new = try PackReader(path: "\(options.repository)/\(entry.path)", keys: keys) } catch {
                throw PublishError.io("\(options.repository)/\(entry.path): \(error)")
            }
            var patches: [CatalogPatch] = []
            for (k, source) in sources.sorted(by: { $0.version > $1.version }).enumerated() {
                let oldPath = "\(options.repository)/\(source.path)"
                let old: PackReader
                do { old = try PackReader(path: oldPath, keys: keys) } catch {
                    throw PublishError.io("\(oldPath) (kept version \(source.version) of \(entry.id)): \(error)")
                }
                // Patches only between versions sealed under the same key (or neither sealed): a
                // patch frame is sealed under the new version's key and made from the old
                // version's plaintext, which a client holds only if it could open that version.
                guard old.digest != new.digest, old.index.chunking == new.index.chunking, old.keyID == new.keyID else { continue }
                let staged = "\(staging)/patch-\(i)-\(k)"
                let made: PatchWriter.Result?
                do { made = try writer.write(old: old, new: new, to: staged) } catch {
                    throw PublishError.io("cannot make the patch from \(entry.id) v\(source.version) to v\(entry.version): \(error)")
                }
                guard let made else { continue }
                let path = "packs/\(entry.id)/\(made.sha256.hex).patch"
                if FileManager.default.fileExists(atPath: "\(options.repository)/\(path)") {
                    guard FileDigest.of("\(options.repository)/\(path)") == made.sha256 else {
                        throw PublishError.io("\(options.repository)/\(path) is not the patch its name says; remove it")
                    }
                    unlink(staged)
                } else {
                    try transaction.place(staged, at: path)
                    report.patchFiles.append(path)
                }
                patches.append(CatalogPatch(from: old.digest, fromVersion: source.version, path: path, size: made.size, sha256: made.sha256,
                                            table: CatalogIndexLocation(offset: made.tableOffset, length: made.tableLength, sha256: made.tableDigest)))
            }
            plan.packs[i].patches = patches.isEmpty ? nil : patches
        }
    }

    /// The checked `--apple-base-url`, or nil without one. Apple's manifest has no staged
    /// rollouts (every device reads the same file), so it is refused with a rollout under 100 %.
    private func checkedAppleBaseURL() throws -> String? {
        guard let text = options.appleBaseURL else { return nil }
        let base: String
        switch AppleBaseURL.checked(text) {
        case .success(let b): base = b
        case .failure(let problem): throw PublishError.invalidOption("--apple-base-url: \(problem)")
        }
        if let percent = options.rolloutPercent, percent < 100 {
            throw PublishError.invalidOption("--apple-base-url with --rollout \(percent)%: Apple's download manifest has no staged rollouts (every device reads the same file); publish the Apple manifest once the rollout is at 100 %, or to a channel of its own")
        }
        return base
    }

    /// Refuses a read-order hint for a pack this publish does not have, or with an entry that is
    /// not a file or folder of the pack (or is not a pack path, or is listed twice), naming it.
    private func checkReadOrder(_ packs: [LintPack]) throws {
        for (id, entries) in options.readOrder.sorted(by: { $0.key < $1.key }) {
            guard let pack = packs.first(where: { $0.id == id }) else {
                throw PublishError.invalidOption("read order for \(id): no manifest of this publish has that assetPackID")
            }
            guard entries.count <= Catalog.maximumReadOrderEntries else {
                throw PublishError.invalidOption("read order for \(id): \(entries.count) entries, more than the \(Catalog.maximumReadOrderEntries) allowed")
            }
            var seen = Set<String>()
            for (k, entry) in entries.enumerated() {
                if let why = PackPath.problemWithStoredPath(entry) { throw PublishError.invalidOption("read order for \(id), entry \(k + 1): \"\(entry)\" \(why)") }
                guard seen.insert(entry).inserted else { throw PublishError.invalidOption("read order for \(id), entry \(k + 1): \"\(entry)\" is listed twice") }
                guard pack.files.contains(where: { $0.packPath == entry || $0.packPath.hasPrefix(entry + "/") }) else {
                    throw PublishError.invalidOption("read order for \(id), entry \(k + 1): \"\(entry)\" is neither a file nor a folder of the pack")
                }
            }
        }
    }

    /// Writes the publish cache: an entry for every pack whose inputs were trustworthy and whose
    /// file is in the catalog at its content-addressed path. A failure is a warning.
    /// Each entry holds the stamp of its pack file as it lies in `folder` now.
    private func recordCache(_ built: [BuiltPack], plan: RepositoryPlan, folder: ConfinedDirectory?, apple: [AppleArchiveRecord], channel: String?,
                             previous: PublishCache?, at path: String, in report: inout PublishReport) {
        var entries: [PublishCacheEntry] = []
        let currentPacks = Dictionary(plan.packs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, b) in built.enumerated() {
            guard let key = b.cacheKey else { continue }
            var entry = PublishCacheEntry(key: key, info: b.info)
            guard let current = currentPacks[entry.id], current.variantPaths.contains(entry.path) else { continue }
            if let st = folder?.status(entry.path), (st.st_mode & S_IFMT) == S_IFREG { entry.packFile = FileStamp(st).keyText }
            entries.append(entry)
            report.builds[i].cached = true
        }
        // The other channels' archives stay recorded: this publish did not touch them.
        let appleFolder = AppleHostingLayout.folder(channel: channel) + "/"
        let others = (previous?.appleArchives.values).map { $0.filter { !$0.path.hasPrefix(appleFolder) } } ?? []
        do {
            try PublishCache.save(entries, appleArchives: apple + others, to: path)
        } catch {
            report.cacheWarnings.append("could not write the publish cache \(path): \(error); the next publish packages every pack")
            for i in report.builds.indices { report.builds[i].cached = false }
        }
    }

    /// Moves the new pack files into place, or, where a pack's file is already there, checks
    /// and describes the file that is there.
    private func placePackFiles(_ plan: inout RepositoryPlan, built: [BuiltPack], old: Catalog?,
                                transaction: RepositoryTransaction, keys: [ContentKey]) throws {
        let builtByID = Dictionary(built.map { ($0.info.metadata.assetPackID, $0) }, uniquingKeysWith: { a, _ in a })
        let oldByID = Dictionary((old?.packs ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (i, entry) in plan.packs.enumerated() {
            // A reused pack's file was checked in place, under this publish's lock.
            guard let b = builtByID[entry.id], let staged = b.staged else { continue }
            let target = "\(options.repository)/\(entry.path)"
            guard let folder = transaction.folder else { throw PublishError.io("the publish into \(options.repository) has ended") }
            guard folder.exists(entry.path) else {
                try transaction.place(staged, at: entry.path)
                if entry.sha256 != b.info.sha256 { plan.packs[i] = b.info.catalogEntry(version: entry.version, path: entry.path, variants: entry.variants) }
                continue
            }
            // An unchanged pack whose file is in place: the signed old entry describes it (its
            // index is read to make sure, not its chunks). Both reads open the file beneath the
            // repository folder with no link followed.
            if oldByID[entry.id] == entry, let reader = try? RepositoryPackFile.reader(entry.path, in: folder, keys: keys),
               reader.fileSize == entry.size, reader.digest == entry.digest { continue }
            // Earlier content coming back (its file was retired but kept): check that the file
            // is the pack its name says, and describe it.
            let existing: PackFileInfo
            do { existing = try RepositoryPackFile.info(entry.path, in: folder, keys: keys) } catch {
                throw PublishError.io("\(target) is not the pack its name says (\(error)); remove it")
            }
            guard existing.digest == b.info.digest else {
                throw PublishError.io("\(target) is not the pack its name says (digest \(existing.digest.hex)); remove it")
            }
            plan.packs[i] = existing.catalogEntry(version: entry.version, path: entry.path, variants: entry.variants)
        }
    }

    /// A variant's pack, built for the group of `id`.
    struct BuiltVariant {
        var id: String
        var conditions: VariantConditions
        var pack: BuiltPack
    }

    /// Builds every variant's pack (reusing it through the publish cache as a default's), and
    /// refuses a group in which two packs — variants, or a variant and the default — have the
    /// same content: they would be one file, and the conditions would choose nothing. An
    /// unsealed variant leaves the frames it shares with its default, or with a variant before
    /// it in the catalog's order, to that file (a pack file with bases), so that each frame of
    /// a group is stored once: the variants are built in that order, each offered the default's
    /// file and those of the variants built before it.
    private func buildVariants(_ groups: DeviceVariantGroups, resolved: [ResolvedManifest], defaults: [BuiltPack], builder: inout PackBuilder,
                               staging: String, sealing: [String: ContentKey]) throws -> [BuiltVariant] {
        var out: [BuiltVariant] = []
        for (id, members) in groups.variants.sorted(by: { $0.key < $1.key }) {
            var seen: [SHA256Digest: String] = [:]
            var candidates: [PackRebaser.Candidate] = []
            // The manifest of each candidate, by position, for the same-content check.
            var candidateManifests: [String] = []
            func candidate(_ pack: BuiltPack) -> PackRebaser.Candidate {
                let path = pack.staged ?? "\(options.repository)/\(PackFileInfo.repositoryPath(id: id, digest: pack.info.digest))"
                return PackRebaser.Candidate(path: path, sha256: pack.info.sha256, size: pack.info.size)
            }
            if let i = groups.defaults.firstIndex(where: { resolved[$0].manifest!.assetPackID == id }) {
                seen[defaults[i].info.digest] = resolved[groups.defaults[i]].path
                candidates.append(candidate(defaults[i]))
                candidateManifests.append(resolved[groups.defaults[i]].path)
            }
            for m in members {
                let input = resolved[m.input]
                let pack = try builder.build(input, metadata: PackMetadata(input.manifest!), stagedAt: "\(staging)/variant-\(m.input).pack",
                                             sealing: sealing[id], bases: candidates)
                var same = seen.updateValue(m.path, forKey: pack.info.digest)
                // A variant with the content of a file before it takes every frame from the files
                // before it, so its file has another digest: their indexes tell.
                if same == nil, Self.storesNoFrame(pack.info) {
                    let identity = try PackContentIdentity.of(packAt: candidate(pack).path)
                    for (n, c) in candidates.enumerated() {
                        if try PackContentIdentity.of(packAt: c.path) == identity { same = candidateManifests[n]; break }
                    }
                }
                if let other = same {
                    throw PublishError.lintFailed([LintFinding(.error, .variantConditions, "\(other) and \(m.path) make the same pack of \"\(id)\" (digest \(pack.info.digest.hex.prefix(16))…); a variant must differ from the default and from the other variants")])
                }
                out.append(BuiltVariant(id: id, conditions: m.conditions!, pack: pack))
                candidates.append(candidate(pack))
                candidateManifests.append(m.path)
            }
        }
        return out
    }

    /// Whether a pack file stores no frame of its own (every one lies in its bases): only such
    /// a file can hold the same content as a file it takes frames from.
    private static func storesNoFrame(_ info: PackFileInfo) -> Bool {
        !info.baseSHA256s.isEmpty && info.size == UInt64(PackLayout.headerSize + PackLayout.trailerSize) + info.index.length
    }

    /// The SHA-256 and repository path of every file of the group of `entry` (the default's
    /// first, then its variants', in the catalog's order), from the variants just built: what a
    /// variant's bases are named by.
    private static func group(of entry: CatalogPack, variants: [BuiltVariant]) -> [(sha256: SHA256Digest, path: String)] {
        [(entry.sha256, entry.path)] + variants.filter { $0.id == entry.id }.map {
            ($0.pack.info.sha256, PackFileInfo.repositoryPath(id: entry.id, digest: $0.pack.info.digest))
        }
    }

    /// Moves the variants' new pack files into place; a file already there (an unchanged
    /// variant, or earlier content back) is checked to be the pack its name says and described.
    private func placeVariantFiles(_ plan: inout RepositoryPlan, variants: [BuiltVariant], transaction: RepositoryTransaction,
                                   keys: [ContentKey]) throws {
        guard !variants.isEmpty else { return }
        guard let folder = transaction.folder else { throw PublishError.io("the publish into \(options.repository) has ended") }
        for i in plan.packs.indices {
            guard var list = plan.packs[i].variants else { continue }
            let group = Self.group(of: plan.packs[i], variants: variants)
            for j in list.indices {
                let v = list[j]
                guard let b = variants.first(where: { $0.id == plan.packs[i].id && $0.pack.info.digest == v.digest }), let staged = b.pack.staged else { continue }
                if !folder.exists(v.path) {
                    try transaction.place(staged, at: v.path)
                    list[j] = b.pack.info.catalogVariant(v.conditions, group: group)
                    continue
                }
                let existing: PackFileInfo
                do { existing = try RepositoryPackFile.info(v.path, in: folder, keys: keys) } catch {
                    throw PublishError.io("\(options.repository)/\(v.path) is not the pack its name says (\(error)); remove it")
                }
                guard existing.digest == v.digest else {
                    throw PublishError.io("\(options.repository)/\(v.path) is not the pack its name says (digest \(existing.digest.hex)); remove it")
                }
                list[j] = existing.catalogVariant(v.conditions, group: group)
            }
            plan.packs[i].variants = list
        }
    }

    /// Deletes pack files the retention rule dropped (after the new catalog is in place), and
    /// their folders when empty, never through a link. A failure here is a warning: the
    /// publish has succeeded.
    private func deleteRetiredFiles(_ paths: [String], transaction: RepositoryTransaction) -> (deleted: [String], warnings: [String]) {
        var deleted: [String] = [], warnings: [String] = []
        for path in paths {
            if let problem = transaction.deleteRetired(path) {
                warnings.append("could not delete the retired pack file \(options.repository)/\(path): \(problem)")
            } else {
                deleted.append(path)
            }
        }
        return (deleted, warnings)
    }

    /// The content key of each pack this publish seals, and every key of the key store (to read
    /// the sealed pack files already in the repository). A pack is sealed when `--encrypt` names
    /// it, when the key store has a key for it, or when the current catalog lists it sealed (then
    /// the key store must be given and hold its key, or `--rotate-key` must name it): a paid pack
    /// never becomes free by a publish that forgot a flag. New keys are saved before any pack is
    /// written, so that no published pack has a key that is not in the store.
    private func contentKeys(ids: [String], old: Catalog?) throws -> (current: [String: ContentKey], all: [ContentKey]) {
        let named = options.encrypt.union(options.rotateKey)
        let oldByID = Dictionary((old?.packs ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if let stray = named.subtracting(ids).sorted().first {
            throw PublishError.invalidOption("--encrypt/--rotate-key \(stray): no manifest of this publish has that pack ID")
        }
        guard let path = try options.resolvedKeyStorePath() else {
            if let id = ids.first(where: { oldByID[$0]?.sealed != nil }) {
                throw PublishError.invalidOption("\(id) is sealed (paid) in the current catalog: pass --key-store FILE with its content key, or it would be published unencrypted")
            }
            return ([:], [])
        }
        var store: ContentKeyStore
        do { store = try ContentKeyStore.load(path, missingIsEmpty: true) } catch { throw PublishError.invalidOption("\(error)") }
        var current: [String: ContentKey] = [:]
        var changed = false
        for id in ids {
            let wasSealed = oldByID[id]?.sealed
            guard named.contains(id) || store.currentKey(of: id) != nil || wasSealed != nil else { continue }
            if let wasSealed, store.key(of: id, keyID: wasSealed.keyID) == nil, !options.rotateKey.contains(id) {
                throw PublishError.invalidOption("\(id) is sealed in the current catalog under content key \(wasSealed.keyID.hex.prefix(16))…, which \(path) does not hold: use the key store it was published with, or --rotate-key \(id)")
            }
            if options.rotateKey.contains(id) || store.currentKey(of: id) == nil {
                store.setCurrent(.generate(), of: id)
                changed = true
            }
            current[id] = store.currentKey(of: id)
        }
        if changed && !options.checkOnly {
            do { try store.save(to: path) } catch { throw PublishError.io("\(error)") }
        }
        return (current, store.allKeys)
    }

    /// With a root: the catalog key must be one the newest root names, and a timestamp key that
    /// the root names must be given (a catalog without a matching timestamp is refused by clients).
    private func checkKeys(against trust: RepositoryTrust?) throws {
        guard let trust else {
            if options.timestampKey != nil {
                throw PublishError.trust("\(options.repository) has no root (roots/1.root.json), so no timestamp: run 'assetpack rotate' first, or publish without --timestamp-key")
            }
            return
        }
        guard trust.root.catalogPublicKeys.contains(key.publicKey) else {
            throw PublishError.trust("the key \(key.publicKey.keyID) is not a catalog key of root version \(trust.current.version) (it names \(trust.root.catalogPublicKeys.map(\.keyID).joined(separator: ", "))); clients would refuse the catalog. Rotate it in first: 'assetpack rotate --catalog-key'")
        }
        guard !options.checkOnly else { return }
        guard let timestampKey = options.timestampKey else {
            throw PublishError.trust("\(options.repository) has a root: pass --timestamp-key (a timestamp key of root version \(trust.current.version)) so that timestamp.json names the new catalog")
        }
        guard trust.root.timestampPublicKeys.contains(timestampKey.publicKey) else {
            throw PublishError.trust("the timestamp key \(timestampKey.publicKey.keyID) is not a timestamp key of root version \(trust.current.version); rotate it in first: 'assetpack rotate --timestamp-key'")
        }
    }

    /// What the clients outside a new rollout keep: the previous catalog's packs, or, when a
    /// halted rollout (0 %) is in place, the packs that rollout kept. A rollout still under way
    /// (1…99 %) must be widened to 100 % or halted first; a rollout needs a catalog to start from.
    static func rolloutBase(old: Catalog?, percent: Int?, channel: String?) throws -> (version: Int, packs: [CatalogPack])? {
        guard let percent, percent < 100 else { return nil }
        guard let old else {
            throw PublishError.invalidOption("a rollout needs earlier versions to keep for the other clients: \(ChannelName.describe(channel)) has no catalog yet; publish without --rollout first")
        }
        guard let running = old.rollout else { return (old.version, old.packs) }
        guard running.percent == 0 else {
            throw PublishError.invalidOption("a rollout is under way on \(ChannelName.describe(channel)) (\(running.percent) % of clients on catalog version \(old.version)): widen it to 100 or halt it (0) with 'assetpack rollout' before starting another")
        }
        return (running.fromVersion, running.packs)
    }
}
