import AssetPackTransport
import Foundation

/// Downloads one segment of an install's bytes into its file with Range requests, appending as
/// bytes arrive and resuming from the file's length after any interruption — a dropped
/// connection in this run, or a killed process in an earlier one. A server that ignores Range
/// and sends the whole file (200) is handled by skipping to the wanted bytes.
struct SegmentDownloader {
    let board: DownloadBoard
    let segment: Int
    let packPath: String
    let client: RepositoryClient
    let cancellation: CancellationFlag

    func run() {
        do { try download() } catch { board.fail(error) }
    }

    private func download() throws {
        let s = board.segments[segment]
        let fd = open(s.file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot create \(s.file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var present = board.presentBytes(inSegment: segment)
        guard ftruncate(fd, off_t(present)) == 0, lseek(fd, off_t(present), SEEK_SET) >= 0 else {
            throw AssetPackManagerError.storage("cannot resume \(s.file): \(String(cString: strerror(errno)))")
        }
        var generator = SystemRandomNumberGenerator()
        for range in s.ranges {
            let rangeStart = range.downloadOffset - s.start
            var attempt = 1
            while present < rangeStart + range.length {
                if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
                let have = present - rangeStart
                do {
                    try fetch(range: range, from: have, fd: fd, present: &present, mirror: attempt - 1)
                } catch let error as AssetPackManagerError {
                    guard case .transport(let t) = error, t.isTransient, attempt < client.retry.maxAttempts else { throw error }
                    // Progress resets the attempt count: a server that drops connections now and
                    // then still lets a long download finish.
                    attempt = present - rangeStart > have ? 1 : attempt + 1
                    Thread.sleep(forTimeInterval: client.retry.delay(beforeRetry: attempt, using: &generator).seconds)
                }
            }
        }
    }

    /// What one request has done so far (shared with the stream's callbacks).
    private final class RequestState: @unchecked Sendable {
        var skip: UInt64 = 0
        var wanted: UInt64
        var written: UInt64 = 0
        init(wanted: UInt64) { self.wanted = wanted }
    }

    /// One request for the rest of `range` (from `have` bytes in), appended to `fd`.
    private func fetch(range: InstallPlan.Range, from have: UInt64, fd: Int32, present: inout UInt64, mirror: Int) throws {
        let first = range.packOffset + have
        let last = range.packOffset + range.length - 1
        let state = RequestState(wanted: last - first + 1)
        let k = segment
        let board = self.board
        let packPath = self.packPath
        guard let wanted = ByteRange(first: first, last: last) else { return }
        let stream = HTTPBodyStream(onResponse: { status, headers in
            state.skip = try RangeResponse.bytesToSkip(status: status, headers: headers, range: wanted, path: packPath)
        }, onBytes: { buffer in
            let b = RangeResponse.dropSkipped(buffer, skip: &state.skip)
            let take = Int(min(UInt64(b.count), state.wanted))
            if take > 0 {
                try appendAll(fd, UnsafeRawBufferPointer(rebasing: b[..<take]))
                state.wanted -= UInt64(take)
                state.written += UInt64(take)
                board.added(UInt64(take), toSegment: k)
            }
            if state.wanted == 0 && b.count > take { throw RangeResponse.Enough() }
        })
        var stoppedEarly = false
        do {
            _ = try client.get(packPath, range: wanted, to: .stream(stream),
                               cancellation: cancellation, attempts: .never, onlyMirror: mirror)
        } catch {
            present += state.written
            guard RangeResponse.isEnough(error) else { throw error }
            stoppedEarly = true
        }
        if !stoppedEarly { present += state.written }
        if state.wanted > 0 {
            throw AssetPackManagerError.transport(.transfer(url: packPath, code: 18, message: "the response ended \(state.wanted) bytes early"))
        }
    }
}

/// Writes all of `buffer` at the end of `fd`.
private func appendAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < buffer.count {
        let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            throw AssetPackManagerError.storage("cannot write downloaded bytes: \(String(cString: strerror(errno)))")
        }
        offset += n
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
