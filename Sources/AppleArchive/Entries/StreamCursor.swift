/// A position in the AA01 stream that spans the decoded pieces: headers are read whole (at most
/// 64 KiB), blobs are streamed or skipped piece by piece, never gathered. `offset` counts bytes
/// of the AA01 stream from its start, for messages.
struct StreamCursor {
    private let stream: DecodedStream
    private var piece: [UInt8] = []
    private var position = 0
    private(set) var offset: UInt64 = 0
    private var ended = false

    init(_ stream: DecodedStream) { self.stream = stream }

    /// Whether the stream has no more bytes.
    mutating func atEnd() throws(AppleArchiveError) -> Bool {
        try load()
        return position == piece.count
    }

    /// Loads the next non-empty piece when the current one is used up.
    private mutating func load() throws(AppleArchiveError) {
        while position == piece.count, !ended {
            guard let next = try stream.nextPiece() else { ended = true; return }
            piece = next
            position = 0
        }
    }

    /// The next `count` bytes; `region` names what is read when the stream ends first.
    mutating func read(_ count: Int, region: @autoclosure () -> String) throws(AppleArchiveError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        let start = offset
        try forEachSlice(UInt64(count), region: region(), startedAt: start) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Skips `count` bytes.
    mutating func skip(_ count: UInt64, region: @autoclosure () -> String) throws(AppleArchiveError) {
        try forEachSlice(count, region: region(), startedAt: offset) { _ in }
    }

    /// Hands the next `count` bytes to `body` in the slices the pieces give.
    mutating func forEachSlice(_ count: UInt64, region: @autoclosure () -> String, startedAt start: UInt64,
                               _ body: (UnsafeRawBufferPointer) throws(AppleArchiveError) -> Void) throws(AppleArchiveError) {
        var left = count
        while left > 0 {
            try load()
            guard position < piece.count else {
                throw .malformed(region(), at: start, "needs \(count) bytes but the archive ends after \(count - left) (truncated)")
            }
            let n = Int(min(left, UInt64(piece.count - position)))
            let from = position
            let outcome = piece.withUnsafeBytes { all in
                Result { () throws(AppleArchiveError) in try body(UnsafeRawBufferPointer(rebasing: all[from..<from + n])) }
            }
            try outcome.get()
            position += n
            offset += UInt64(n)
            left -= UInt64(n)
        }
    }
}
