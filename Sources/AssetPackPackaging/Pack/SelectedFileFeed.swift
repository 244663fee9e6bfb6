import AssetPackFormat
import Foundation

/// The selected files, handed from the selection to `PackWriter` while the selection is still
/// walking the source tree: packing a hundred thousand small files then starts with the first
/// folder listed instead of after the last. The feed holds the files in the order they came;
/// the writer asks for file `i` and waits until it is there. A file that does not come after the
/// one before it in pack order (`PackPath.precedes`: only several selectors, or a name that
/// sorts between a folder and its contents, can do that) spoils the feed: the writer stops, and
/// the caller packs the sorted list instead. The selection ends the feed when it is done, or
/// abandons it when it found an error: the writer stops and writes nothing.
public final class SelectedFileFeed: @unchecked Sendable {
    private let condition = NSCondition()
    private var files: [SelectedFile] = []
    private var state = State.open

    private enum State { case open, ended, abandoned, outOfOrder }

    /// Why a writer stopped reading the feed.
    public enum Stop: Error, Equatable {
        /// The selection found errors: its diagnostics say which.
        case abandoned
        /// The files did not come in pack order: pack the sorted selection instead.
        case outOfOrder
    }

    public init() {}

    /// A feed that holds `files` and has ended.
    public convenience init(ended files: [SelectedFile]) {
        self.init()
        append(files[...])
        end()
    }

    func append(_ more: ArraySlice<SelectedFile>) {
        guard !more.isEmpty else { return }
        condition.withLock {
            guard state == .open else { return }
            let follows = files.last.map { PackPath.precedes($0.packPath, more.first!.packPath) } ?? true
            if !follows || !Self.inPackOrder(more) { state = .outOfOrder }
            files += more
            condition.broadcast()
        }
    }

    /// Whether each file's pack path comes after the one before it (`PackPath.precedes`),
    /// looked at in place, without copying a file out.
    static func inPackOrder(_ files: ArraySlice<SelectedFile>) -> Bool {
        files.withUnsafeBufferPointer { files in
            files.count < 2 || (1..<files.count).allSatisfy { PackPath.precedes(files[$0 - 1].packPath, files[$0].packPath) }
        }
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
    func file(_ i: Int) throws(Stop) -> SelectedFile? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch state {
            case .abandoned: throw .abandoned
            case .outOfOrder: throw .outOfOrder
            case .open where i >= files.count: condition.wait()
            default: return i < files.count ? files[i] : nil
            }
        }
    }

    /// Every file, when the feed has ended with its files in pack order; nil otherwise.
    func filesInPackOrder() -> [SelectedFile]? {
        condition.withLock { state == .ended ? files : nil }
    }

    /// Every file, once the feed has ended.
    func all() throws(Stop) -> [SelectedFile] {
        _ = try file(Int.max)
        return condition.withLock { files }
    }
}
