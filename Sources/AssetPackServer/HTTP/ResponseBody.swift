#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A response body assembled from pieces — literal bytes (multipart headers) and ranges of an
/// open file — and read sequentially by libmicrohttpd through a callback. Used for
/// multipart/byteranges and for any body with faults; plain files go out via sendfile instead.
final class ResponseBody: @unchecked Sendable {
    enum Piece {
        case bytes([UInt8])
        case file(offset: UInt64, length: UInt64)

        var length: UInt64 {
            switch self {
            case .bytes(let b): return UInt64(b.count)
            case .file(_, let length): return length
            }
        }
    }

    /// What `read` returns besides a byte count.
    enum ReadResult: Equatable {
        case bytes(Int)
        /// Close the connection now (a drop or truncation fault, or a read error).
        case abort
    }

    let pieces: [Piece]
    let length: UInt64
    let fault: BodyFault
    private let file: OpenedFile?
    private var start: UInt64 = 0  // monotonic nanoseconds when the first byte was read

    init(pieces: [Piece], file: OpenedFile?, fault: BodyFault) {
        self.pieces = pieces
        self.file = file
        self.fault = fault
        length = pieces.reduce(0) { $0 + $1.length }
    }

    /// Fills up to `capacity` bytes at `buffer` with the body from `position`.
    func read(at position: UInt64, into buffer: UnsafeMutableRawPointer, capacity: Int) -> ReadResult {
        var limit = min(UInt64(capacity), length - min(position, length))
        if let cut = fault.cutAfter {
            guard position < cut else { return .abort }
            limit = min(limit, cut - position)
        }
        if fault.bytesPerSecond > 0 { limit = pace(position: position, limit: limit) }
        var filled: UInt64 = 0
        var pieceStart: UInt64 = 0
        for piece in pieces where filled < limit {
            let pieceEnd = pieceStart + piece.length
            defer { pieceStart = pieceEnd }
            let at = position + filled
            guard at < pieceEnd else { continue }
            let inPiece = at - pieceStart
            let n = min(limit - filled, piece.length - inPiece)
            let destination = buffer + Int(filled)
            switch piece {
            case .bytes(let b):
                b.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + Int(inPiece), byteCount: Int(n)) }
            case .file(let offset, _):
                guard let fd = file?.descriptor, readFully(fd: fd, into: destination, count: Int(n), at: offset + inPiece) else { return .abort }
            }
            filled += n
        }
        if let c = fault.corruptOffset, c >= position, c < position + filled {
            let p = buffer.assumingMemoryBound(to: UInt8.self) + Int(c - position)
            p.pointee ^= 0xFF
        }
        return .bytes(Int(filled))
    }

    /// Sleeps until the body may have sent `position` bytes at the configured pace, and returns
    /// how many to send now (a twentieth of a second's worth at most, so the pace stays smooth).
    private func pace(position: UInt64, limit: UInt64) -> UInt64 {
        let now = Self.monotonicNanoseconds()
        if position == 0 || start == 0 { start = now }
        let rate = fault.bytesPerSecond
        let chunk = max(1, min(limit, rate / 20))
        let due = start + (position + chunk) * 1_000_000_000 / rate
        if due > now {
            var request = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
            var remaining = timespec()
            while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        }
        return chunk
    }

    private func readFully(fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: UInt64) -> Bool {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}
