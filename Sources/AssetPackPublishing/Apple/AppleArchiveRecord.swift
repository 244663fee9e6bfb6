import AssetPackFormat
import Foundation

/// One Apple Archive a publish placed in the repository, as the publish cache records it
/// (docs/FORMAT.md, "Publish cache"): what it was made from — the pack's digest, which pins every
/// file's path, mode and bytes, and the archiver's settings — and what the file was once in
/// place. A later publish reuses the archive only when the pack's digest and the settings are
/// the same and the file still has that size, inode and those times (no ordinary call sets a
/// ctime back, so a file written to or replaced since shows).
struct AppleArchiveRecord: Codable, Equatable {
    /// Repository-relative: `apple/assets/<id>`, or under `channels/NAME/`.
    var path: String
    var packDigest: SHA256Digest
    /// `ApplePublication.settingsText` of the archiver that wrote it.
    var settings: String
    var size: UInt64
    var inode: UInt64
    /// Modification and status-change times, nanoseconds since 1970.
    var modified: Int64
    var changed: Int64

    init(path: String, packDigest: SHA256Digest, settings: String, stamp: FileStamp) {
        self.path = path
        self.packDigest = packDigest
        self.settings = settings
        size = stamp.size
        inode = stamp.inode
        modified = stamp.modified.seconds * 1_000_000_000 + stamp.modified.nanoseconds
        changed = stamp.changed.seconds * 1_000_000_000 + stamp.changed.nanoseconds
    }

    /// Whether the file now at `path` is the one recorded.
    func describes(_ stamp: FileStamp) -> Bool {
        AppleArchiveRecord(path: path, packDigest: packDigest, settings: settings, stamp: stamp) == self
    }
}
