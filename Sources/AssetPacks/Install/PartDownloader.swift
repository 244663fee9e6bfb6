import AssetPackFormat
import AssetPackTransport
import Foundation

/// The network side of one part of an install: asks for the part's bytes with Range requests
/// (of the pack file, of its bases for a device variant's shared frames, or of the patch file for
/// patch frames),
/// from the first byte its spool does not hold, and appends what arrives to the spool (waiting
/// while it is full); goes on from there after a dropped connection, retrying with backoff while
/// the server fails transiently. Each request goes to the healthiest mirror (`MirrorHealth`);
/// the part's `PartWatchdog` stops a request that places no verified chunk for its limit, or
/// whose mirror served a frame that did not verify, and the next one goes to a better mirror. A
/// server that ignores Range and sends the whole file (200) is handled by skipping to the
/// wanted bytes.
struct PartDownloader: @unchecked Sendable {
    let plan: InstallPlan
    let spool: PartSpool
    let packPath: String
    /// The pack file's bases (files of a device variant's group), by position, for ranges with a `base`.
    var basePaths: [String] = []
    let client: RepositoryClient
    let cancellation: CancellationFlag
    let counters: TransferCounters
    let watchdog: PartWatchdog
    /// Bytes received, by mirror (pack frames and patch frames apart).
    var sources = SourceCounters()

    func run() throws {
        var generator = SystemRandomNumberGenerator()
        var attempt = 1
        while case let from = spool.end, from < spool.downloadEnd {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            let mirror = client.health.order().first ?? 0
            do {
                try fetch(from: from, mirror: mirror)
            } catch let error as AssetPackManagerError {
                guard case .transport(let t) = error, t.isTransient, attempt < client.retry.maxAttempts else { throw error }
                client.health.failed(mirror)
                // Progress resets the attempt count: a server that drops connections now and
                // then still lets a long download finish. Not a server too slow to be of use.
                var timedOut = false
                if case .timedOut = t { timedOut = true }
                attempt = spool.end > from && !timedOut ? 1 : attempt + 1
                let resume = Date().addingTimeInterval(client.retry.delay(beforeRetry: attempt, using: &generator).seconds)
                while Date() < resume, !cancellation.isCancelled { Thread.sleep(forTimeInterval: min(0.05, resume.timeIntervalSinceNow)) }
            }
        }
    }

    /// The plan range holding download offset `from`, from there to its end (within the part's
    /// download as it stands: another part may have taken its end).
    private func request(from: UInt64) -> InstallPlan.Range {
        var lo = 0, hi = plan.ranges.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if plan.ranges[mid].downloadOffset <= from { lo = mid } else { hi = mid - 1 }
        }
        let r = plan.ranges[lo]
        let end = min(r.downloadOffset + r.length, spool.downloadEnd)
        return InstallPlan.Range(packOffset: r.packOffset + (from - r.downloadOffset), length: end - from, downloadOffset: from, fromPatch: r.fromPatch, base: r.base)
    }

    /// What one request has seen so far (shared with the stream's callbacks).
    private final class RequestState: @unchecked Sendable {
        var skip: UInt64 = 0
        var wanted: UInt64
        init(wanted: UInt64) { self.wanted = wanted }
    }

    /// One request for the bytes from download offset `from` to the end of its plan range.
    private func fetch(from: UInt64, mirror: Int) throws {
        let request = request(from: from)
        let packPath = request.fromPatch ? plan.patches?.path ?? self.packPath
            : request.base.flatMap { $0 < basePaths.count ? basePaths[$0] : nil } ?? self.packPath
        guard let range = ByteRange(offset: request.packOffset, length: request.length) else {
            throw AssetPackManagerError.storage("\(packPath): the install asked for no bytes at download offset \(from)")
        }
        let state = RequestState(wanted: request.length)
        let (spool, counters, sources, meter) = (self.spool, self.counters, self.sources, client.originThroughput)
        let source = (kind: request.fromPatch ? AssetPackSources.Kind.patch : .mirror, location: client.mirrors[mirror % client.mirrors.count])
        let stream = HTTPBodyStream(onResponse: { status, headers in
            state.skip = try RangeResponse.bytesToSkip(status: status, headers: headers, range: range, path: packPath)
        }, onBytes: { buffer in
            let b = RangeResponse.dropSkipped(buffer, skip: &state.skip)
            let take = Int(min(UInt64(b.count), state.wanted))
            if take > 0 {
                let took = try spool.append(UnsafeRawBufferPointer(rebasing: b[..<take]))
                state.wanted -= UInt64(took)
                counters.received(UInt64(took))
                meter.add(took)
                sources.add(source.kind, source.location, bytes: UInt64(took))
                // The part's end was given to another part: this request has brought enough.
                if took < take { throw RangeResponse.Enough() }
            }
            if state.wanted == 0 && b.count > take { throw RangeResponse.Enough() }
        })
        let flag = watchdog.begin(mirror: mirror)
        meter.begin()
        defer { meter.end() }
        do {
            _ = try client.get(packPath, range: range, to: .stream(stream), cancellation: flag, attempts: .never, onlyMirror: mirror)
            _ = watchdog.end()
        } catch {
            let reason = watchdog.end()
            if RangeResponse.isEnough(error) { return }
            guard case .cancelled = error, !cancellation.isCancelled, let reason else { throw error }
            let url = client.mirrors[mirror % client.mirrors.count] + packPath
            switch reason {
            case .stalled:
                throw AssetPackManagerError.transport(.timedOut(url: url, message: "no verified chunk for \(watchdog.limit)"))
            case .corruptMirror:
                throw AssetPackManagerError.transport(.transfer(url: url, code: 0, message: "the mirror served a chunk that did not verify; going on from another mirror"))
            }
        }
        if state.wanted > 0 {
            throw AssetPackManagerError.transport(.transfer(url: packPath, code: 18, message: "the response ended \(state.wanted) bytes early"))
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
