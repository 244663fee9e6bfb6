import AssetPackFormat
import AssetPacks
import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `assetpack agent --share`: the chunks of the root's installed packs, served to LAN peers over
/// HTTP by SHA-256 (`GET /chunks/<64 hex digits>`, docs/FORMAT.md "Peer chunk protocol").
///
/// Read-only and narrow: only GET and HEAD (405 otherwise), only that one route (a path under
/// `/chunks/` that is not a well-formed digest is 400, anything else 404: nothing is listed),
/// only chunks of installed packs the current signed catalog lists (`InstalledChunks`), each
/// read from disk and hashed again before it is sent unless every file it comes from is
/// unchanged since the install verified it (change time before the commit's), so bytes changed
/// in the store since the install are never passed on (404). Each client address gets `requestsPerSecond` (429 with
/// Retry-After beyond); connections are bounded all together and per address, idle ones closed
/// after 10 s, and each has a thread of its own with a small stack, so a flood costs a fixed
/// amount of memory and threads. A thread per connection, not a pool: a request's read and hash
/// of its chunk would hold up every other connection its pool thread serves (libmicrohttpd put
/// a client's eight connections on three of eight pool threads), where each connection now
/// goes on sending while another hashes. A chunk that lies within one file unchanged since its
/// verified install is sent from the file with sendfile, as nginx sends a pack (nothing read
/// into memory, nothing hashed). Any other is read into memory that is sent as it is: the bytes
/// verified are the bytes sent, with no copy in between; chunks verified in the last few seconds
/// are sent again from memory (`RecentChunks`), so clients fetching the same pack at once cost
/// one read and one hash per chunk.
final class ChunkShareServer: @unchecked Sendable {
    let configuration: ShareConfiguration
    /// The port bound (the free one picked when `configuration.port` is 0).
    let port: UInt16
    private let source: SharedChunkSource
    private let limiter: ClientRateLimiter
    private var daemon: OpaquePointer?
    private let lock = NSLock()

    init(configuration: ShareConfiguration, manager: AssetPackManager) throws(AgentServiceError) {
        self.configuration = configuration
        source = SharedChunkSource(manager: manager)
        limiter = ClientRateLimiter(requestsPerSecond: configuration.requestsPerSecond)
        let socket: (fd: Int32, port: UInt16)
        do { socket = try makeListeningSocket(host: configuration.bindAddress, port: configuration.port) } catch {
            throw .share(address: error.address, reason: error.reason)
        }
        port = socket.port
        signal(SIGPIPE, SIG_IGN)
        var c = cmhd_config()
        c.flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_POLL.rawValue) | UInt32(MHD_USE_ITC.rawValue)
        c.listen_socket = socket.fd
        c.thread_stack_size = 512 << 10
        c.connection_limit = UInt32(max(4, configuration.maxConnections))
        c.per_ip_connection_limit = UInt32(max(1, configuration.maxConnections / 4))
        c.connection_timeout_seconds = 10
        c.handler = shareAccessHandler
        c.handler_cls = Unmanaged.passUnretained(self).toOpaque()
        guard let d = cmhd_start(&c) else {
            Glibc.close(socket.fd)
            throw .share(address: "\(configuration.bindAddress):\(port)", reason: "libmicrohttpd refused to start")
        }
        daemon = d
        // The first snapshot is taken now, not by the first peer's request.
        let source = self.source
        Thread { source.warm() }.start()
    }

    deinit { stop() }

    /// Closes every connection and the listening socket. Idempotent.
    func stop() {
        let d: OpaquePointer? = lock.withLock {
            defer { daemon = nil }
            return daemon
        }
        if let d { MHD_stop_daemon(d) }
        source.recent.removeAll()
    }

    /// What one request is answered with: a line of text, a chunk's verified bytes, or a range of
    /// an installed file unchanged since its verified install (sent with sendfile; the
    /// response closes the descriptor).
    fileprivate enum Answer {
        case text(status: UInt32, body: [UInt8], headers: [(String, String)])
        case chunk(RecentChunks.Buffer)
        case file(fd: Int32, offset: UInt64, length: Int)
    }

    /// The answer to one request.
    fileprivate func answer(method: String, path: String, client: String) -> Answer {
        func text(_ status: UInt32, _ message: String, _ headers: [(String, String)] = []) -> Answer {
            .text(status: status, body: Array((message + "\n").utf8), headers: [("Content-Type", "text/plain; charset=utf-8")] + headers)
        }
        guard method == "GET" || method == "HEAD" else { return text(405, "the share is read-only: GET /chunks/<sha256-hex>", [("Allow", "GET, HEAD")]) }
        let prefix = "/chunks/"
        guard path.hasPrefix(prefix) else { return text(404, "not found: the share serves only /chunks/<sha256-hex>") }
        let hex = path.dropFirst(prefix.count)
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }),
              let digest = SHA256Digest(hex: hex.lowercased()) else {
            return text(400, "not a chunk hash: the share serves /chunks/ followed by 64 hexadecimal digits (a SHA-256), and nothing else")
        }
        guard limiter.admit(client) else { return text(429, "too many requests from \(client)", [("Retry-After", "1")]) }
        guard let answer = source.verifiedChunk(digest) else { return text(404, "no chunk \(digest.hex) in the packs shared here") }
        return answer
    }
}

/// The current `InstalledChunks` of the agent's manager: taken again every 30 s, and on a
/// miss when the one held is more than a second old (a pack installed or updated meanwhile).
/// One refresh at a time; requests that come meanwhile wait for it (up to 10 s).
private final class SharedChunkSource: @unchecked Sendable {
    let manager: AssetPackManager
    /// Chunks verified in the last few seconds.
    let recent = RecentChunks()
    private let condition = NSCondition()
    private var snapshot: InstalledChunks?
    private var takenAt: ContinuousClock.Instant?
    private var refreshing = false

    init(manager: AssetPackManager) { self.manager = manager }

    /// The chunk as it is sent: a range of an unchanged installed file, or its verified bytes
    /// (kept from a read in the last few seconds, or read and verified now); nil when no listed
    /// pack holds it as it should be.
    func verifiedChunk(_ digest: SHA256Digest) -> ChunkShareServer.Answer? {
        let (held, age) = condition.withLock { (snapshot, takenAt.map { ContinuousClock.now - $0 }) }
        if let held, let age, age < .seconds(30) {
            if let bytes = chunk(digest, listedIn: held) { return bytes }
            if age < .seconds(1) { return nil }
        }
        return refresh().flatMap { chunk(digest, listedIn: $0) }
    }

    /// The chunk if `chunks` lists it: a range of an unchanged file (nothing read or kept), or
    /// from `recent`, or read, verified and kept there.
    private func chunk(_ digest: SHA256Digest, listedIn chunks: InstalledChunks) -> ChunkShareServer.Answer? {
        guard chunks.contains(digest) else { return nil }
        if let file = chunks.unchangedChunkFile(digest) { return .file(fd: file.fd, offset: file.offset, length: file.length) }
        if let kept = recent.buffer(for: digest) { return .chunk(kept) }
        guard let size = chunks.size(of: digest), let memory = malloc(max(1, size)) else { return nil }
        let buffer = RecentChunks.Buffer(taking: UnsafeMutableRawBufferPointer(start: memory, count: size))
        guard chunks.readVerifiedChunk(digest, into: buffer.bytes) else { return nil }
        recent.keep(buffer, for: digest)
        return .chunk(buffer)
    }

    /// Takes the first snapshot (requests that come meanwhile wait for it).
    func warm() { _ = refresh() }

    /// A new snapshot, or the one another request is taking now.
    private func refresh() -> InstalledChunks? {
        condition.lock()
        if refreshing {
            let deadline = Date().addingTimeInterval(10)
            while refreshing, condition.wait(until: deadline) {}
            defer { condition.unlock() }
            return snapshot
        }
        refreshing = true
        condition.unlock()
        let done = DispatchSemaphore(value: 0)
        let box = SnapshotBox()
        let manager = self.manager
        Task {
            box.value = try? await manager.installedChunks()
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(10))
        return condition.withLock {
            refreshing = false
            if let fresh = box.value {
                snapshot = fresh
                takenAt = .now
            }
            condition.broadcast()
            return snapshot
        }
    }
}

private final class SnapshotBox: @unchecked Sendable {
    private let lock = NSLock()
    private var held: InstalledChunks?
    var value: InstalledChunks? {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }
}

/// MHD's request callback: the first call (headers in) only marks the request; the second
/// (no body: GET and HEAD have none, any other is refused) answers.
private let shareAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, requestState in
    guard let cls, let connection, let url, let method, let requestState else { return cmhd_no }
    if requestState.pointee == nil {
        requestState.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return cmhd_yes
    }
    if let uploadSize, uploadSize.pointee != 0 {
        uploadSize.pointee = 0  // a body is read and dropped; the method is refused below
        return cmhd_yes
    }
    let server = Unmanaged<ChunkShareServer>.fromOpaque(cls).takeUnretainedValue()
    let client = numericHost(cmhd_client_address(connection))
    let response: OpaquePointer?
    let status: UInt32
    let headers: [(String, String)]
    switch server.answer(method: String(cString: method), path: String(cString: url), client: client) {
    case .text(let code, var body, let extra):
        status = code
        headers = extra
        response = body.withUnsafeMutableBytes { MHD_create_response_from_buffer($0.count, $0.baseAddress, cmhd_respmem_must_copy) }
    case .chunk(let buffer):
        status = 200
        headers = [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")]
        // The response holds the buffer until libmicrohttpd has sent it.
        let held = Unmanaged.passRetained(buffer).toOpaque()
        response = MHD_create_response_from_buffer_with_free_callback_cls(buffer.bytes.count, buffer.bytes.baseAddress, releaseChunk, held)
        if response == nil { Unmanaged<RecentChunks.Buffer>.fromOpaque(held).release() }
    case .file(let fd, let offset, let length):
        status = 200
        headers = [("Content-Type", "application/octet-stream"), ("Cache-Control", "no-store")]
        // The response owns the descriptor from here (closed when it is destroyed).
        response = MHD_create_response_from_fd_at_offset64(UInt64(length), fd, offset)
        if response == nil { Glibc.close(fd) }
    }
    guard let response else { return cmhd_no }
    defer { MHD_destroy_response(response) }
    for (name, value) in headers { _ = MHD_add_response_header(response, name, value) }
    return MHD_queue_response(connection, status, response)
}

private let releaseChunk: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<RecentChunks.Buffer>.fromOpaque(cls).release()
}
