import AssetPackFormat
import Foundation

/// The files of a repository folder in the order they must be uploaded, with their object keys
/// and headers. Files in subfolders (the content-addressed pack files) go first, cached forever;
/// then any other file at the top level (`root.json` among them: the kept `roots/N.root.json`
/// went up with the first stage); then each channel's catalog (`channels/NAME/catalog.json`,
/// mutable); `catalog.json` — the file that points at the packs — and then `timestamp.json`,
/// which names the catalogs by hash, go last, so that a reader never sees a catalog naming a file
/// that is not there yet, nor a timestamp naming a catalog not yet there. These are five stages:
/// files of one stage may go up in parallel, but a stage starts only once every file of the one
/// before it is stored.
///
/// Apple's self-hosted files (`apple/…`, `channels/NAME/apple/…`: `AppleHostingLayout`) keep
/// their names when they change, so they are never taken as immutable: always uploaded, sent
/// with `public, no-cache`; the archives go with the first stage, the download manifests that
/// name them with the second.
public struct UploadPlan: Sendable {
    public struct Item: Sendable, Equatable {
        /// `/`-separated path inside the repository folder.
        public var relativePath: String
        public var path: String
        public var key: String
        public var size: UInt64
        public var contentType: String
        public var cacheControl: String
        /// Content-addressed, never rewritten: skipped when an object of the same size exists.
        public var isImmutable: Bool
        /// 0 for the files in subfolders, 1 for the other top-level files, 2 for the channels'
        /// catalogs, 3 for catalog.json, 4 for timestamp.json.
        public var stage: Int
    }

    public static let catalogName = "catalog.json"
    public static let timestampName = "timestamp.json"
    public static let immutableCacheControl = "public, max-age=31536000, immutable"
    public static let mutableCacheControl = "public, max-age=60"
    public static let revalidatedCacheControl = "public, no-cache"
    /// S3's limit for one object (a multipart upload of up to 10,000 parts).
    public static let maxObjectSize: UInt64 = MultipartPolicy.maximumObjectSize

    public var items: [Item]

    /// `items` cut into stages, in order.
    public var stages: [[Item]] {
        var stages: [[Item]] = []
        for item in items {
            if stages.last?.last?.stage == item.stage { stages[stages.count - 1].append(item) } else { stages.append([item]) }
        }
        return stages
    }

    /// Scans `directory`. Refuses symbolic links and special files anywhere inside it (what is
    /// uploaded is exactly what lies in the folder, nothing outside it), a missing catalog.json,
    /// and files above S3's object size limit (5 TiB).
    public init(directory: String, location: S3Location) throws(UploadError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .invalidRepository(path: directory, reason: "not a directory")
        }
        var files: [(relative: String, path: String, size: UInt64)] = []
        try Self.collect(directory, relative: "", into: &files)
        guard files.contains(where: { $0.relative == Self.catalogName }) else {
            throw .invalidRepository(path: directory, reason: "no \(Self.catalogName): not a repository (run 'assetpack publish' first)")
        }
        func rank(_ relative: String) -> Int {
            if let apple = AppleHostingLayout.part(of: relative) { return apple == "assets" ? 0 : 1 }
            return relative == Self.timestampName ? 4 : relative == Self.catalogName ? 3 : Self.isChannelCatalog(relative) ? 2 : relative.contains("/") ? 0 : 1
        }
        items = files
            .sorted { a, b in
                let (rankA, rankB) = (rank(a.relative), rank(b.relative))
                return rankA != rankB ? rankA < rankB : a.relative.utf8.lexicographicallyPrecedes(b.relative.utf8)
            }
            .map { file in
                let apple = AppleHostingLayout.part(of: file.relative) != nil
                let immutable = rank(file.relative) == 0 && !apple
                return Item(relativePath: file.relative, path: file.path, key: location.key(for: file.relative), size: file.size,
                            contentType: file.relative.hasSuffix(".json") ? "application/json" : "application/octet-stream",
                            cacheControl: immutable ? Self.immutableCacheControl : apple ? Self.revalidatedCacheControl : Self.mutableCacheControl,
                            isImmutable: immutable, stage: rank(file.relative))
            }
    }

    /// `channels/NAME/catalog.json`: a channel's catalog, mutable like `catalog.json`.
    static func isChannelCatalog(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "channels" && !parts[1].isEmpty && parts[2] == Substring(catalogName)
    }

    private static func collect(_ directory: String, relative: String, into files: inout [(relative: String, path: String, size: UInt64)]) throws(UploadError) {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw .invalidRepository(path: directory, reason: "cannot list: \(error.localizedDescription)")
        }
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            let childRelative = relative.isEmpty ? name : "\(relative)/\(name)"
            guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" }) else {
                throw .invalidRepository(path: path, reason: "control characters or backslashes in a file name cannot become an object key")
            }
            var info = stat()
            guard lstat(path, &info) == 0 else {
                throw .invalidRepository(path: path, reason: "cannot stat: \(String(cString: strerror(errno)))")
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: try collect(path, relative: childRelative, into: &files)
            case S_IFREG:
                let size = UInt64(info.st_size)
                guard size <= maxObjectSize else {
                    throw .invalidRepository(path: path, reason: "\(size) bytes is above S3's 5 TiB object size limit")
                }
                files.append((childRelative, path, size))
            case S_IFLNK: throw .invalidRepository(path: path, reason: "is a symbolic link; a repository folder holds only regular files")
            default: throw .invalidRepository(path: path, reason: "is not a regular file")
            }
        }
    }
}
