#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every open connection and whether it is waiting for a request or being answered; decides
/// which connections to close so that slow clients cannot starve the others.
///
/// A connection is *waiting* from the moment it opens, and again from the moment each
/// response ends, until its next request is complete; then it is *answering*. The server
/// closes a connection (shutdown(2) on its socket, which libmicrohttpd notices and cleans up
/// after) when
/// - it has waited longer than the request timeout (`closeExpired`), however many bytes it
///   trickled meanwhile (libmicrohttpd's own timeout restarts with every byte);
/// - a newcomer needs its place: past the per-address limit, the address's connection that has
///   waited longest goes (or the newcomer, if none of them is waiting); when fewer than a
///   sixteenth of the global limit is free, the longest-waiting connection of any address goes
///   (or the newcomer, past the limit itself, if every connection is being answered).
///
/// Closed connections leave libmicrohttpd's count only once their threads have finished, so
/// libmicrohttpd's own limit is set at twice this one: it is a backstop, and a burst of
/// evictions never makes it turn newcomers away.
///
/// Sockets are shut down with the lock held and only after checking that the descriptor still
/// belongs to the same peer, so a descriptor closed and reused in the meantime is never touched.
final class ConnectionRegistry: @unchecked Sendable {
    struct Limits {
        var total: Int
        var perAddress: Int
        var requestTimeoutNanoseconds: UInt64
    }

    private struct Entry {
        let fd: Int32
        let address: String
        let peer: String?
        /// Monotonic nanoseconds since it has been waiting for a request; nil while answering.
        var waitingSince: UInt64?
        /// Shut down by the registry, not yet closed by libmicrohttpd.
        var closing = false
    }

    let limits: Limits
    private var entries: [OpaquePointer: Entry] = [:]
    /// What was learned of a connection before libmicrohttpd announced it (whether it waits,
    /// since when), should a connection's thread get ahead of that announcement.
    private var early: [OpaquePointer: UInt64?] = [:]
    private var perAddress: [String: Int] = [:]
    private var counted = 0  // open and not closing
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Connections closed for waiting too long, and to make room; for the curious and tests.
    private(set) var timedOut = 0
    private(set) var evicted = 0

    init(limits: Limits) {
        self.limits = limits
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Free places kept for newcomers: a sixteenth of the limit, at least one.
    var reserve: Int { max(1, limits.total / 16) }

    func opened(_ connection: OpaquePointer, fd: Int32, address: String) {
        locked {
            let waitingSince = early.removeValue(forKey: connection) ?? Self.now()
            entries[connection] = Entry(fd: fd, address: address, peer: peerName(fd), waitingSince: waitingSince)
            counted += 1
            perAddress[address, default: 0] += 1
            if perAddress[address, default: 0] > limits.perAddress {
                closeLocked(longestWaiting(excluding: connection) { $0.address == address } ?? connection, evicting: true)
            }
            if entries[connection]?.closing == false && counted > limits.total - reserve {
                if let victim = longestWaiting(excluding: connection, where: { _ in true }) {
                    closeLocked(victim, evicting: true)
                } else if counted > limits.total {
                    closeLocked(connection, evicting: true)
                }
            }
        }
    }

    /// The connection's request is complete and is being answered.
    func answering(_ connection: OpaquePointer) {
        locked { if entries[connection] != nil { entries[connection]!.waitingSince = nil } else { early[connection] = .some(nil) } }
    }

    /// The connection's response ended; it waits for the next request.
    func waiting(_ connection: OpaquePointer) {
        locked { if entries[connection] != nil { entries[connection]!.waitingSince = Self.now() } else { early[connection] = Self.now() } }
    }

    func closed(_ connection: OpaquePointer) {
        locked {
            early[connection] = nil
            guard let entry = entries.removeValue(forKey: connection), !entry.closing else { return }
            uncount(entry)
        }
    }

    /// Closes every connection that has waited longer than the request timeout.
    func closeExpired() {
        let now = Self.now()
        locked {
            for (connection, entry) in entries where !entry.closing {
                if let since = entry.waitingSince, now &- since > limits.requestTimeoutNanoseconds {
                    closeLocked(connection, evicting: false)
                }
            }
        }
    }

    /// Connections open and not being closed.
    var openCount: Int { locked { counted } }
    /// Whether the registry has closed `connection` (libmicrohttpd may not have noticed yet).
    func isClosing(_ connection: OpaquePointer) -> Bool { locked { entries[connection]?.closing ?? false } }
    /// Connections libmicrohttpd has not yet reported closed, including those being closed.
    var trackedCount: Int { locked { entries.count } }

    private func longestWaiting(excluding newcomer: OpaquePointer, where include: (Entry) -> Bool) -> OpaquePointer? {
        var best: (OpaquePointer, UInt64)?
        for (connection, entry) in entries where connection != newcomer && !entry.closing && include(entry) {
            guard let since = entry.waitingSince else { continue }
            if best == nil || since < best!.1 { best = (connection, since) }
        }
        return best?.0
    }

    private func closeLocked(_ connection: OpaquePointer, evicting: Bool) {
        guard var entry = entries[connection], !entry.closing else { return }
        entry.closing = true
        entries[connection] = entry
        uncount(entry)
        if evicting { evicted += 1 } else { timedOut += 1 }
        // The descriptor is still this connection's unless libmicrohttpd closed it and another
        // socket took its number; then the peer differs and it is left alone.
        if entry.peer != nil && peerName(entry.fd) == entry.peer { shutdown(entry.fd, Int32(SHUT_RDWR)) }
    }

    private func uncount(_ entry: Entry) {
        counted -= 1
        let n = perAddress[entry.address, default: 1] - 1
        perAddress[entry.address] = n > 0 ? n : nil
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}

/// "host port" of a socket's peer, or nil.
private func peerName(_ fd: Int32) -> String? {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let ok = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) } }
    guard ok == 0 else { return nil }
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), port = [CChar](repeating: 0, count: 32)
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            getnameinfo($0, length, &host, socklen_t(host.count), &port, socklen_t(port.count), NI_NUMERICHOST | NI_NUMERICSERV)
        }
    }
    guard rc == 0 else { return nil }
    func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return text(host) + " " + text(port)
}
