import AssetPackFormat
import Foundation

/// The selected files, handed from the selection to `PackWriter` while the selection is still
/// walking the source tree: packing a hundred thousand small files then starts with the first
/// folder listed instead of after the last. The feed holds the files in the order they came;
/// the writer asks for file `i` and waits until it is there. A file that does not come after the
/// one before it in pack order (`PackPath.precedes`: only several selectors, or a folder whose
/// files do not sort together, can do that) spoils the feed: the writer stops, and the caller
/// packs the sorted list instead. The selection ends the feed when it is done, or abandons it
/// when it found an error: the writer stops and writes nothing.
///
/// The feed holds a window of the files, not all of them: the writer lets go of the files it
/// has packed (`release(below:)`), and the selection waits in `append` while `window` files are
/// held that no reader has asked for yet, so that its memory does not grow with the number of
/// files. A reader that asks for a file past the window (the small-file reader looks a few runs
/// ahead) lets the selection go on.
public final class SelectedFileFeed: @unchecked Sendable {
    private let condition = NSCondition()
    /// The files from position `released` on, in the order they came.
    private var files = SelectedFileList()
    private var released = 0
    /// The highest position a reader waits for, or -1.
    private var wanted = -1
    private var last: SelectedFile?
    private var state = State.open
    /// Files held, beyond those asked for, before `append` waits.
    let window: Int

    private enum State { case open, ended, abandoned, outOfOrder }

    /// Why a writer stopped reading the feed.
    public enum Stop: Error, Equatable {
        /// The selection found errors: its diagnostics say which.
        case abandoned
        /// The files did not come in pack order: pack the sorted selection instead.
        case outOfOrder
    }

    public convenience init() { self.init(window: 16_384) }

    init(window: Int) { self.window = window }

    /// A feed that holds `files` and has ended.
    public init(ended files: SelectedFileList) {
        window = .max
        self.files = files
        last = files.last
        if !Self.inPackOrder(files) { state = .outOfOrder } else { state = .ended }
    }

    /// Appends files the selection found, waiting while the window is full and no reader waits
    /// for more.
    func append(_ more: ArraySlice<SelectedFile>) {
        guard !more.isEmpty else { return }
        condition.withLock {
            while state == .open, files.count >= window, wanted < released + files.count { condition.wait() }
            guard state == .open else { return }
            let follows = last.map { SelectedFile.precedes($0, more.first!) } ?? true
            if !follows || !Self.inPackOrder(more) { state = .outOfOrder }
            files.append(contentsOf: more)
            last = more.last!
            condition.broadcast()
        }
    }

    /// Whether each file's pack path comes after the one before it (`SelectedFile.precedes`),
    /// looked at in place, without copying a file out.
    static func inPackOrder(_ files: ArraySlice<SelectedFile>) -> Bool {
        files.withUnsafeBufferPointer { files in
            files.count < 2 || (1..<files.count).allSatisfy { SelectedFile.precedes(files[$0 - 1], files[$0]) }
        }
    }

    /// `inPackOrder` for a whole list, stretch by stretch and across their joins.
    static func inPackOrder(_ files: SelectedFileList) -> Bool {
        var ordered = true
        var last: SelectedFile?
        files.forEachStretch(from: 0) { stretch in
            guard ordered, let first = stretch.first else { return }
            if let last, !SelectedFile.precedes(last, first) { ordered = false }
            ordered = ordered && inPackOrder(stretch)
            last = stretch.last
        }
        return ordered
    }

    func end() { finish(.ended) }

    func abandon() { finish(.abandoned) }

    private func finish(_ outcome: State) {
        condition.withLock {
            if state == .open { state = outcome }
            condition.broadcast()
        }
    }

    /// File `i`, once the selection has found it; nil when the feed ended with fewer files.
    /// `i` is not below a position already released.
    func file(_ i: Int) throws(Stop) -> SelectedFile? {
        condition.lock()
        defer { condition.unlock() }
        precondition(i >= released, "file \(i) of the feed was released")
        while true {
            switch state {
            case .abandoned: throw .abandoned
            case .outOfOrder: throw .outOfOrder
            case .open where i >= released + files.count:
                if i > wanted {
                    wanted = i
                    condition.broadcast()
                }
                condition.wait()
            default: return i < released + files.count ? files[i - released] : nil
            }
        }
    }

    /// The files held now (found and not released).
    var held: Int { condition.withLock { files.count } }

    /// The files found so far.
    var count: Int { condition.withLock { released + files.count } }

    /// Lets go of the files before position `end`: their reader is done with them. A feed made
    /// from a list keeps it (its caller holds the list: dropping files would copy the rest).
    func release(below end: Int) {
        guard window != .max else { return }
        condition.withLock {
            let n = min(end - released, files.count)
            guard n > 0 else { return }
            // Dropped in stretches, not a file at a time: each removal moves the rest.
            guard n >= 1024 || n == files.count else { return }
            files.removeFirst(n)
            released += n
            condition.broadcast()
        }
    }
}
