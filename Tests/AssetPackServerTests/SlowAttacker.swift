import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A slowloris client for tests: opens `count` connections to 127.0.0.1:`port` and, on a thread
/// of its own, sends each one more byte of a request header that never ends, one round every
/// `interval` seconds, until stopped (bounded by `maximumRounds`). It tells which connections
/// the server has closed.
final class SlowAttacker: @unchecked Sendable {
    private var sockets: [Int32] = []
    private let interval: TimeInterval
    private let maximumRounds: Int
    private let condition = NSCondition()
    private var stopping = false
    private var running = false
    private var rounds = 0
    /// The endless header: a request line, then one header whose value never ends.
    private static let pattern = Array("GET /catalog.json HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)

    init(port: UInt16, count: Int, interval: TimeInterval = 0.25, maximumRounds: Int = 400) throws {
        self.interval = interval
        self.maximumRounds = maximumRounds
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            // A connection refused outright counts as closed by the server, like an evicted one.
            if rc != 0 { close(fd); sockets.append(-1); continue }
            sockets.append(fd)
            sendByte(fd, at: 0)
        }
    }

    deinit {
        stop()
        for fd in sockets where fd >= 0 { close(fd) }
    }

    /// Starts trickling.
    func start() {
        condition.lock()
        running = true
        condition.unlock()
        let thread = Thread { [self] in trickle() }
        thread.start()
    }

    /// Stops trickling and waits for the thread. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func trickle() {
        condition.lock()
        while !stopping && rounds < maximumRounds {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            if stopping { break }
            rounds += 1
            let round = rounds
            condition.unlock()
            for fd in sockets where fd >= 0 { sendByte(fd, at: round) }
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    private func sendByte(_ fd: Int32, at round: Int) {
        var byte = round < Self.pattern.count ? Self.pattern[round] : UInt8(ascii: "a")
        _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }

    /// How many connections the server has closed (end of stream or reset). A server that
    /// answered instead would show up as data: that is counted in `answered`.
    func closedByServer() -> (closed: Int, answered: Int) {
        var closed = 0, answered = 0
        for fd in sockets {
            guard fd >= 0 else { closed += 1; continue }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) == 1 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK))
            if n > 0 { answered += 1 } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { closed += 1 }
        }
        return (closed, answered)
    }

    /// Waits (bounded by `seconds`) until the server has closed at least `count` connections;
    /// returns how many it has.
    func waitUntilClosed(atLeast count: Int, seconds: TimeInterval) -> Int {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var closed = closedByServer().closed
        while closed < count && Date() < deadline {
            condition.lock()
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            condition.unlock()
            closed = closedByServer().closed
        }
        return closed
    }
}
