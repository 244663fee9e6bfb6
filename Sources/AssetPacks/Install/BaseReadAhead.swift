import AssetPackFormat
import CPOSIX
import Foundation

/// Asks the kernel for the installed files a part's patches start from before the part gets to
/// them.
///
/// An update reads each patch's base (its chunk of the installed version and some bytes either
/// side) from the installed files, which were written long ago and are cold. A base of small
/// files is hundreds of files, and the part reads them one after the other: an open that waits
/// for the file's inode, then a read that waits for its blocks. Meanwhile a few threads go
/// through the files of the next bases, each opening one and asking for its bytes in the base
/// (`cposix_will_need`, which does not wait), so that many requests are in flight at once and
/// the part's own reads find the pages there. They stay at most `window` bases ahead of the
/// part. Nothing they do changes what the part reads or checks: a file they cannot open is
/// simply not asked for.
final class BaseReadAhead: @unchecked Sendable {
    /// The installed version's index and folder.
    private let index: PackIndex
    private let directory: ConfinedDirectory
    /// The patched positions whose bases are read ahead, in the order the part reaches them.
    private let positions: [Int]
    private let window: Int
    private let condition = NSCondition()
    private var pieces: BasePieces
    /// A piece taken beyond the window, held until the part catches up.
    private var pending: BasePieces.Piece?
    /// The first base the part has not got past.
    private var current = 0
    private var stopped = false
    private let threads = DispatchGroup()

    init(previous: PackIndex, directory: ConfinedDirectory, bases: [(position: Int, range: Range<UInt64>)], window: Int = 8) {
        index = previous
        self.directory = directory
        positions = bases.map(\.position)
        self.window = window
        pieces = BasePieces(index: previous, bases: bases.map(\.range))
    }

    /// Starts `count` threads.
    func start(threads count: Int) {
        guard !positions.isEmpty else { return }
        for _ in 0..<count {
            threads.enter()
            let thread = Thread { [self] in
                while let piece = take() {
                    guard let fd = try? directory.open(index.files.path(at: piece.file), flags: O_RDONLY | O_NONBLOCK) else { continue }
                    let start = index.fileOffsets[piece.file]
                    _ = cposix_will_need(fd, Int64(piece.range.lowerBound - start), Int64(piece.range.count))
                    close(fd)
                }
                threads.leave()
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    /// The part is placing `position`: the bases of earlier positions need nothing more.
    func reached(_ position: Int) {
        condition.withLock {
            while current < positions.count && positions[current] < position { current += 1 }
            condition.broadcast()
        }
    }

    /// Stops the threads and waits for them.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
        threads.wait()
    }

    /// The next piece to ask for, once it is within the window; nil when there is none.
    private func take() -> BasePieces.Piece? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            guard let piece = pending ?? pieces.next() else { return nil }
            if piece.base < current + window {
                pending = nil
                return piece
            }
            pending = piece
            condition.wait()
        }
        return nil
    }
}

/// The pieces of the installed files that a list of bases (stream ranges, in the order they are
/// needed) covers, file by file and each byte once: bases of neighbouring chunks overlap (each
/// reaches some bytes into the next), and a file is split where bases end. Empty files have no
/// piece.
struct BasePieces: IteratorProtocol {
    struct Piece: Equatable {
        /// The base the piece is first needed for, the file, and the piece's stream range.
        var base: Int
        var file: Int
        var range: Range<UInt64>
    }

    let index: PackIndex
    let bases: [Range<UInt64>]
    private var base = 0
    /// The file of the current base to look at next (nil: the base is not begun).
    private var nextFile: Int?
    /// Where the pieces handed out so far end.
    private var coveredUpTo: UInt64 = 0

    init(index: PackIndex, bases: [Range<UInt64>]) {
        self.index = index
        self.bases = bases
    }

    mutating func next() -> Piece? {
        while base < bases.count {
            let range = bases[base]
            let from = max(range.lowerBound, coveredUpTo)
            guard from < range.upperBound, let f = nextFile ?? index.file(containing: from), f < index.files.count,
                  index.fileOffsets[f] < range.upperBound else {
                base += 1
                nextFile = nil
                continue
            }
            nextFile = f + 1
            let start = index.fileOffsets[f]
            let piece = max(start, from)..<min(start + index.files.size(at: f), range.upperBound)
            if piece.isEmpty { continue }
            coveredUpTo = piece.upperBound
            return Piece(base: base, file: f, range: piece)
        }
        return nil
    }
}
