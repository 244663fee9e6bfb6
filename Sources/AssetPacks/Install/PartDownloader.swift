import AssetPackFormat
import AssetPackTransport
import Foundation

/// Drives one part of an install over the network: asks for the part's bytes with Range
/// requests and hands them to its assembler as they arrive, goes on from the first byte not
/// received after a dropped connection (retrying with backoff while the server fails
/// transiently), and fetches alone any chunk that did not verify. A server that ignores Range
/// and sends the whole file (200) is handled by skipping to the wanted bytes.
struct PartDownloader: @unchecked Sendable {
    let assembler: PartAssembler
    let packPath: String
    let client: RepositoryClient
    let cancellation: CancellationFlag
    let counters: TransferCounters
    /// Fetches a damaged chunk's frame alone, verified.
    let refetch: (_ chunk: Int) throws -> [UInt8]
    /// Names the staged files in errors about writing them.
    let destination: String

    func run() throws {
        defer { assembler.abandon() }
        try storing(destination) { try assembler.resume() }
        var generator = SystemRandomNumberGenerator()
        var attempt = 1
        while !assembler.isComplete {
            if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
            if let s = assembler.damaged {
                let bytes = try refetch(Int(assembler.index.sequence[s]))
                try storing(destination) { try assembler.repair(with: bytes) }
                continue
            }
            guard let request = assembler.beginRequest() else { break }
            let before = assembler.downloadPosition
            do {
                try fetch(request, mirror: attempt - 1)
            } catch let error as AssetPackManagerError {
                guard case .transport(let t) = error, t.isTransient, attempt < client.retry.maxAttempts else { throw error }
                // Progress resets the attempt count: a server that drops connections now and
                // then still lets a long download finish.
                attempt = assembler.downloadPosition > before ? 1 : attempt + 1
                Thread.sleep(forTimeInterval: client.retry.delay(beforeRetry: attempt, using: &generator).seconds)
            }
        }
        try storing(destination) { try assembler.finish() }
    }

    /// What one request has seen so far (shared with the stream's callbacks).
    private final class RequestState: @unchecked Sendable {
        var skip: UInt64 = 0
        var wanted: UInt64
        init(wanted: UInt64) { self.wanted = wanted }
    }

    /// One request for `request`'s bytes, fed to the assembler until they are all in, the part
    /// is complete, or a frame did not verify.
    private func fetch(_ request: InstallPlan.Range, mirror: Int) throws {
        guard let range = ByteRange(offset: request.packOffset, length: request.length) else {
            // Never asked for: a part with nothing left to fetch is complete. Fail rather than spin.
            throw AssetPackManagerError.storage("\(packPath): the install asked for no bytes at download offset \(request.downloadOffset)")
        }
        let state = RequestState(wanted: request.length)
        let (assembler, counters, packPath, destination) = (self.assembler, self.counters, self.packPath, self.destination)
        let stream = HTTPBodyStream(onResponse: { status, headers in
            state.skip = try RangeResponse.bytesToSkip(status: status, headers: headers, range: range, path: packPath)
        }, onBytes: { buffer in
            let b = RangeResponse.dropSkipped(buffer, skip: &state.skip)
            let take = Int(min(UInt64(b.count), state.wanted))
            guard take > 0 else { if state.wanted == 0 { throw RangeResponse.Enough() }; return }
            state.wanted -= UInt64(take)
            counters.received(UInt64(take))
            let more = try storing(destination) { try assembler.receive(UnsafeRawBufferPointer(rebasing: b[..<take])) }
            if !more || (state.wanted == 0 && b.count > take) { throw RangeResponse.Enough() }
        })
        do {
            _ = try client.get(packPath, range: range, to: .stream(stream), cancellation: cancellation, attempts: .never, onlyMirror: mirror)
        } catch {
            guard RangeResponse.isEnough(error) else { throw error }
            return
        }
        if state.wanted > 0 {
            throw AssetPackManagerError.transport(.transfer(url: packPath, code: 18, message: "the response ended \(state.wanted) bytes early"))
        }
    }
}

/// Runs `work`, reporting a failure to write the staged files as a storage error.
func storing<T>(_ destination: String, _ work: () throws -> T) throws -> T {
    do { return try work() } catch let error as AssetPackManagerError { throw error } catch {
        throw AssetPackManagerError.storage("cannot write \(destination): \(error)")
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
