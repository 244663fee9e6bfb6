import AssetPackPackaging
import Foundation

/// Takes the `FileStamp` of selected files, following symlinks as the packager reads through
/// them. A file listed in a folder is stat'd by its name through a descriptor of that folder,
/// held open while the next files come from the same folder: the files of one folder cost one
/// lookup of their name each instead of a walk of their whole path, and no string is built for
/// the path (at a few hundred thousand files, those walks and strings were most of a publish's
/// own work besides packaging).
final class SourceStamper {
    private var folder: SourceFolder?
    private var fd: Int32 = -1

    init() {}

    deinit { if fd >= 0 { close(fd) } }

    /// The stamp of `file`; nil if it cannot be stat'd.
    func stamp(_ file: SelectedFile) -> FileStamp? {
        var st = stat()
        if let listed = file.sourceFolder {
            if listed !== folder {
                if fd >= 0 { close(fd) }
                folder = listed
                fd = open(listed.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
            if fd >= 0 { return file.withSourceName { fstatat(fd, $0, &st, 0) } == 0 ? FileStamp(st) : nil }
        }
        // A file selected by a path of its own, or a folder that cannot be opened: by the whole
        // path, which says the same or succeeds.
        return stat(file.sourcePath, &st) == 0 ? FileStamp(st) : nil
    }
}
