import AssetPackFormat
import Foundation

/// Resolves a manifest's file selectors against the source root on disk: every selected path
/// must exist, stay inside the root (also through symlinks), be selected once, and be a regular
/// file or a directory of them.
public struct FileSelection: Sendable {
    private var diagnostics: [Diagnostic] = []
    private let manifestFile: String
    private let root: String
    private let realRoot: String
    private var chosenBy: [String: Int] = [:]
    /// Whether a file can be selected twice: only by two selectors (one walk lists each file once).
    private var tracksDuplicates = false
    private var files = SelectedFileList()
    /// How many of `files` have a pack path that case folding changes (capitals, non-ASCII):
    /// only those can collide on a case-insensitive file system.
    private var foldingPaths = 0
    /// Where the top of the walk hands its files as it finds them (`resolve(…feed:)`), and how
    /// many of `files` it has handed.
    private var feed: SelectedFileFeed?
    private var fed = 0
    /// Whether the walk streams into the feed (one selector): it walks each folder in pack order
    /// and lets go of the files it has handed on, so that what it holds does not grow with the
    /// number of files. `handed` counts the files it let go of; `foldingFiles` keeps the pack
    /// paths that case folding changes (the case check needs them at the end).
    private var streams = false
    private var handed = 0
    private var foldingFiles: [String] = []

    /// The folder selector paths resolve against: `sourceRoot` (relative to `baseDirectory`) or
    /// `baseDirectory` itself, which defaults to the current directory as with `ba-package`.
    public static func sourceRoot(of manifest: AssetPackManifest, baseDirectory: String) -> String {
        guard let s = manifest.sourceRoot else { return baseDirectory }
        return s.hasPrefix("/") ? s : baseDirectory + "/" + s
    }

    /// Selects the files of `manifest`; files are in pack order (byte-wise by pack path).
    ///
    /// With a `feed`, the files are handed to it as the walk finds them, so that a `PackWriter`
    /// reading the feed packs while the walk goes on; the feed is ended when the selection is
    /// done, or abandoned when it found an error. With one selector the walk streams: each folder
    /// is walked in pack order, waiting while the feed is full, and the files are not kept (the
    /// list returned is empty: the feed had them); with several, the list is whole.
    public static func resolve(_ manifest: AssetPackManifest, manifestFile: String,
                               baseDirectory: String = FileManager.default.currentDirectoryPath,
                               feed: SelectedFileFeed? = nil)
        -> (files: SelectedFileList, diagnostics: [Diagnostic]) {
        let root = sourceRoot(of: manifest, baseDirectory: baseDirectory)
        guard let realRoot = realPath(root), isDirectory(realRoot) else {
            feed?.abandon()
            return ([], [Diagnostic(.error, file: manifestFile, keyPath: manifest.sourceRoot == nil ? "" : "sourceRoot",
                                    "source root \"\(root)\" is not an existing directory")])
        }
        var s = FileSelection(manifestFile: manifestFile, root: root, realRoot: realRoot)
        s.feed = feed
        s.tracksDuplicates = manifest.fileSelectors.count > 1
        s.streams = feed != nil && !s.tracksDuplicates
        for (i, selector) in manifest.fileSelectors.enumerated() { s.select(selector, index: i) }
        if s.files.isEmpty && s.handed == 0 && !s.diagnostics.hasErrors {
            s.diagnostics.append(Diagnostic(.error, file: manifestFile, keyPath: "fileSelectors",
                                            "the selectors select no files; a pack needs at least one"))
        }
        if s.diagnostics.hasErrors { feed?.abandon() } else {
            s.handOn(all: true)
            feed?.end()
        }
        if s.streams { s.warnAboutCaseCollisionsOnDisk(selector: manifest.fileSelectors[0]) } else { s.warnAboutCaseCollisions() }
        // The walk lists each folder in order; only a name that sorts between a folder and its
        // contents ("a.txt" before "a/b") leaves the whole list out of order (and the feed stops).
        if !SelectedFileFeed.inPackOrder(s.files) {
            s.files.sort(by: SelectedFile.precedes)
        }
        s.files.trim()
        return (s.files, s.diagnostics)
    }

    /// Hands the files found since the last call to the feed: in batches, or `all` now.
    private mutating func handOn(all: Bool = false) {
        guard let feed, files.count > fed, all || files.count - fed >= 256 else { return }
        files.forEachStretch(from: fed) { feed.append($0) }
        if streams {
            handed += files.count
            files.removeAll()
            fed = 0
        } else {
            fed = files.count
        }
    }

    private init(manifestFile: String, root: String, realRoot: String) {
        self.manifestFile = manifestFile
        self.root = root
        self.realRoot = realRoot
    }

    private mutating func fail(_ index: Int, _ kind: String, _ message: String) {
        diagnostics.append(Diagnostic(.error, file: manifestFile, keyPath: "fileSelectors[\(index)].\(kind)", message))
    }

    private func inside(_ real: String) -> Bool { real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") }

    private mutating func select(_ selector: FileSelector, index: Int) {
        let kind: String
        if case .file = selector { kind = "file" } else { kind = "directory" }
        let packPath = PackPath.normalizedSelector(selector.path)
        let diskPath = packPath.isEmpty ? root : root + "/" + packPath
        var st = stat()
        guard lstat(diskPath, &st) == 0 else {
            fail(index, kind, "no such \(kind) \"\(selector.path)\" (looked for \(diskPath))")
            return
        }
        guard let real = Self.realPath(diskPath), inside(real) else {
            fail(index, kind, "\"\(selector.path)\" resolves outside the source root \(root) (through a symlink)")
            return
        }
        switch selector {
        case .file:
            if Self.isDirectory(real) {
                fail(index, kind, "\"\(selector.path)\" is a directory; select it with {\"directory\": …}")
            } else {
                addFile(packPath: packPath, real: real, index: index, kind: kind)
            }
        case .directory:
            guard Self.isDirectory(real) else {
                fail(index, kind, "\"\(selector.path)\" is not a directory; select it with {\"file\": …}")
                return
            }
            var visited: Set<String> = [real]
            walk(directory: real, packPrefix: packPath, index: index, visited: &visited, depth: 0)
        }
    }

    /// Lists `directory` through one descriptor and looks at each entry relative to it (one
    /// `fstatat` and one `faccessat` a file, without walking the whole path again): selecting a
    /// hundred thousand small files must cost far less than reading them.
    private mutating func walk(directory: String, packPrefix: String, index: Int, visited: inout Set<String>, depth: Int) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0, let listing = fdopendir(dfd) else {
            let why = String(cString: strerror(errno))
            if dfd >= 0 { close(dfd) }
            fail(index, "directory", "cannot list \(directory): \(why)")
            return
        }
        defer { closedir(listing) }
        let names = FolderListing(listing)
        if names.failure != 0 {
            fail(index, "directory", "cannot list \(directory): \(String(cString: strerror(names.failure)))")
            return
        }
        for raw in names.invalidNames {
            let shown = packPrefix.isEmpty ? FolderListing.escaped(raw) : packPrefix + "/" + FolderListing.escaped(raw)
            fail(index, "directory", "\"\(shown)\" cannot be a pack path: its name is not valid UTF-8 (bytes shown as \\xHH); rename it")
        }
        let looks = Self.look(at: names, in: dfd)
        let folder = SourceFolder(directory, packPrefix: packPrefix, names: names.count, bytes: names.byteCount)
        // What holds of the prefix holds of every path in the folder: a name adds one component
        // (not empty, ".", ".." or with a slash: the listing has none of those).
        let prefixIsValid = packPrefix.isEmpty || PackPath.problemWithStoredPath(packPrefix) == nil
        let prefixFolds = Self.foldsToItself(packPrefix)
        var subtrees = streams ? [:] : walkSubfolders(names: names, looks: looks, directory: directory, packPrefix: packPrefix,
                                                       index: index, visited: visited, depth: depth)
        for position in streams ? Self.packOrder(names, looks, in: dfd) : Array(looks.indices) {
            let look = looks[position]
            defer { if depth == 0 || streams { handOn() } }
            if let subtree = subtrees.removeValue(forKey: position) {
                // The subtree's files are taken over as they are (`SelectedFileList`), its
                // diagnostics whole when there are none yet.
                files.append(contentsOf: subtree.files)
                foldingPaths += subtree.foldingPaths
                if diagnostics.isEmpty { diagnostics = subtree.diagnostics } else { diagnostics += subtree.diagnostics }
                continue
            }
            guard look.found else { continue }
            let packPath = names.path(position, under: packPrefix)
            var st = look.status
            // A plain file is named in the shared folder (`SourceFolder`); a link by where it leads.
            if (st.st_mode & S_IFMT) == S_IFREG {
                let valid = prefixIsValid && !names.hasControl(position) && packPath.utf8.count <= PackPath.maximumLength
                addFile(packPath: packPath, real: "", in: (folder, names.cName(position), names.length(position)), index: index, kind: "directory",
                        status: st, readable: look.readable,
                        pathIsValid: valid, foldsToItself: prefixFolds && names.foldsToItself(position))
                continue
            }
            let entry = names.path(position, under: directory)
            var real = entry
            var readable = look.readable
            if (st.st_mode & S_IFMT) == S_IFLNK {
                guard let r = Self.realPath(entry), inside(r), stat(r, &st) == 0 else {
                    fail(index, "directory", "\"\(packPath)\" is a symlink that leads outside the source root \(root)")
                    continue
                }
                real = r
                readable = nil
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                guard visited.insert(real).inserted else {
                    fail(index, "directory", "\"\(packPath)\" is a symlink loop back to a directory already selected")
                    continue
                }
                walk(directory: real, packPrefix: packPath, index: index, visited: &visited, depth: depth + 1)
                visited.remove(real)
            } else {
                let valid = prefixIsValid && !names.hasControl(position) && packPath.utf8.count <= PackPath.maximumLength
                addFile(packPath: packPath, real: real, index: index, kind: "directory", status: st, readable: readable,
                        pathIsValid: valid, foldsToItself: prefixFolds && names.foldsToItself(position))
            }
        }
    }

    /// Near the top of a single selector's tree, the plain subfolders (not links) of a folder are
    /// walked side by side, each into a selection of its own that the caller splices in at the
    /// folder's place: the result, diagnostics included, is the same as walking them in turn.
    /// With several selectors the walk stays in one thread (it tracks files selected twice).
    private func walkSubfolders(names: FolderListing, looks: [Look], directory: String, packPrefix: String, index: Int,
                                visited: Set<String>, depth: Int) -> [Int: FileSelection] {
        guard !tracksDuplicates, depth < 2 else { return [:] }
        let folders = looks.indices.filter { looks[$0].found && (looks[$0].status.st_mode & S_IFMT) == S_IFDIR }
        guard folders.count >= 2 else { return [:] }
        let empty = FileSelection(manifestFile: manifestFile, root: root, realRoot: realRoot)
        var results = [FileSelection?](repeating: nil, count: folders.count)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer   // each iteration writes its own element
            DispatchQueue.concurrentPerform(iterations: folders.count) { j in
                out[j] = empty.subtree(names.name(folders[j]), in: directory, packPrefix: packPrefix, index: index, visited: visited, depth: depth)
            }
        }
        var out: [Int: FileSelection] = [:]
        for (j, position) in folders.enumerated() { out[position] = results[j] }
        return out
    }

    /// The selection of subfolder `name` of `directory`, walked from this (empty) selection.
    private func subtree(_ name: String, in directory: String, packPrefix: String, index: Int, visited: Set<String>, depth: Int) -> FileSelection {
        let real = directory + "/" + name
        var sub = self
        var seen = visited
        seen.insert(real)
        sub.walk(directory: real, packPrefix: packPrefix.isEmpty ? name : packPrefix + "/" + name, index: index, visited: &seen, depth: depth + 1)
        return sub
    }

    private static let uid = getuid()

    /// Whether the file may be read, where its status alone says so as `access(2)` would (with
    /// the real user ID): root reads every file, the owner by the owner's read bit (an ACL's
    /// owner entry is those bits). For anyone else, nil: ask the kernel (groups, ACLs).
    private static func ownerMayRead(_ st: stat) -> Bool? {
        if uid == 0 { return true }
        if st.st_uid == uid { return st.st_mode & S_IRUSR != 0 }
        return nil
    }

    private struct Look {
        var found = false
        var status = stat()
        var readable: Bool?
    }

    /// What `fstatat` (without following a link) says of each name in the folder `dfd`, and for
    /// regular files whether they are readable; a large folder is looked at on a few threads.
    private static func look(at names: FolderListing, in dfd: Int32) -> [Look] {
        var out = [Look](repeating: Look(), count: names.count)
        let parts = names.count >= 32 ? 4 : 1
        out.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let results = buffer   // each iteration writes its own elements
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var i = part
                while i < names.count {
                    var st = stat()
                    let name = names.cName(i)
                    if fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 {
                        let regular = (st.st_mode & S_IFMT) == S_IFREG
                        results[i] = Look(found: true, status: st,
                                          readable: regular ? ownerMayRead(st) ?? (faccessat(dfd, name, R_OK, 0) == 0) : nil)
                    }
                    i += parts
                }
            }
        }
        return out
    }

    /// Adds the file at `real`; `status` and `readable`, when the caller has them, save looking
    /// again, as do `pathIsValid` (true when the caller knows `packPath` has no problem) and
    /// `foldsToItself`.
    private mutating func addFile(packPath: String, real: String, in listed: (folder: SourceFolder, name: UnsafePointer<CChar>, length: Int)? = nil,
                                  index: Int, kind: String, status: stat? = nil,
                                  readable: Bool? = nil, pathIsValid: Bool = false, foldsToItself: Bool? = nil) {
        var st = stat()
        if let status { st = status } else if stat(real, &st) != 0 { st.st_mode = 0 }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            fail(index, kind, "\"\(packPath)\" is not a regular file (devices, sockets and pipes cannot be packed)")
            return
        }
        guard readable ?? (access(listed.map { $0.folder.path + "/" + String(cString: $0.name) } ?? real, R_OK) == 0) else {
            fail(index, kind, "\"\(packPath)\" is not readable: \(String(cString: strerror(errno)))")
            return
        }
        if !pathIsValid, let problem = PackPath.problemWithStoredPath(packPath) {
            fail(index, kind, "\"\(packPath)\" cannot be a pack path: it \(problem)")
            return
        }
        if tracksDuplicates {
            if let first = chosenBy[packPath] {
                fail(index, kind, "\"\(packPath)\" is already selected by fileSelectors[\(first)]; each file may be selected once")
                return
            }
            chosenBy[packPath] = index
        }
        let size = UInt64(st.st_size), mode = UInt32(st.st_mode) & 0o7777
        files.append(listed.map { SelectedFile(name: $0.folder.add($0.name, length: $0.length), in: $0.folder, size: size, mode: mode) }
                     ?? SelectedFile(packPath: packPath, sourcePath: real, size: size, mode: mode))
        if !(foldsToItself ?? Self.foldsToItself(packPath)) {
            foldingPaths += 1
            if streams { foldingFiles.append(packPath) }
        }
    }

    /// The positions of a folder's names in pack order: a folder sorts as its name and a slash
    /// (its files' paths go on that way), so "a.txt" comes before the folder "a" ("a/…"), as its
    /// paths do. A link is placed as what it leads to.
    private static func packOrder(_ names: FolderListing, _ looks: [Look], in dfd: Int32) -> [Int] {
        var folders = [Bool](repeating: false, count: names.count)
        var any = false
        for i in looks.indices where looks[i].found {
            var kind = looks[i].status.st_mode & S_IFMT
            if kind == S_IFLNK {
                var st = stat()
                kind = fstatat(dfd, names.cName(i), &st, 0) == 0 ? st.st_mode & S_IFMT : 0
            }
            if kind == S_IFDIR { folders[i] = true; any = true }
        }
        let positions = Array(looks.indices)
        guard any else { return positions }
        return positions.sorted { a, b in
            names.precedes(a, asFolder: folders[a], b, asFolder: folders[b])
        }
    }

    /// Apple file systems are case-insensitive by default: paths that differ only in case would
    /// land on the same file there.
    private mutating func warnAboutCaseCollisions() {
        // A path of ASCII without capitals folds to itself, and the paths are unique: only one
        // with a capital or a non-ASCII byte can collide, with a path equal to its folded form
        // or with another such path.
        guard foldingPaths > 0 else { return }
        let all = Set(files.lazy.filter { !Self.foldsToItself($0.packPath) }.map { Self.folded($0.packPath) })
        guard !all.isEmpty else { return }
        var seen: [String: String] = [:]
        for f in files {
            let folded = Self.folded(f.packPath)
            guard all.contains(folded) else { continue }
            if let other = seen[folded] {
                diagnostics.append(Diagnostic(.warning, file: manifestFile, keyPath: "fileSelectors",
                                              "\"\(f.packPath)\" and \"\(other)\" differ only in case and collide on case-insensitive file systems"))
            } else { seen[folded] = f.packPath }
        }
    }

    /// `warnAboutCaseCollisions` for a walk that kept only the paths case folding changes
    /// (`foldingFiles`): the other path of a pair is either one of them or their folded form,
    /// which is selected when the selector's folder holds it (a regular file, another file than
    /// the one folded: on a case-insensitive file system both names are one file).
    private mutating func warnAboutCaseCollisionsOnDisk(selector: FileSelector) {
        guard !foldingFiles.isEmpty, case .directory = selector else { return }
        let prefix = PackPath.normalizedSelector(selector.path)
        var members: [String: [String]] = [:]
        for path in foldingFiles { members[Self.folded(path), default: []].append(path) }
        var pairs: [(later: String, first: String)] = []
        for (folded, paths) in members {
            var group = paths
            if Self.foldsToItself(folded), prefix.isEmpty || folded.hasPrefix(prefix + "/") {
                var st = stat(), original = stat()
                let disk = root + "/" + folded
                if stat(disk, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, let real = Self.realPath(disk), inside(real),
                   stat(root + "/" + paths[0], &original) == 0, original.st_ino != st.st_ino || original.st_dev != st.st_dev {
                    group.append(folded)
                }
            }
            guard group.count > 1 else { continue }
            group.sort { PackPath.precedes($0, $1) }
            for later in group.dropFirst() { pairs.append((later, group[0])) }
        }
        pairs.sort { PackPath.precedes($0.later, $1.later) }
        for (later, first) in pairs {
            diagnostics.append(Diagnostic(.warning, file: manifestFile, keyPath: "fileSelectors",
                                          "\"\(later)\" and \"\(first)\" differ only in case and collide on case-insensitive file systems"))
        }
    }

    private static func foldsToItself(_ path: String) -> Bool {
        let folds = { (byte: UInt8) in byte < 0x80 && !(byte >= 0x41 && byte <= 0x5A) }
        return path.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(folds) } ?? path.utf8.allSatisfy(folds)
    }

    private static func folded(_ path: String) -> String {
        foldsToItself(path) ? path : path.lowercased()
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}
