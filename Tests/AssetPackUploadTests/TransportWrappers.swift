import AssetPackTransport
import Foundation

/// Sends every request through the real transport, and keeps a log of when each started and
/// ended (one shared sequence of events), plus the most requests seen in flight at once.
/// With `holdFirstRequest`, the first request waits (up to 10 s) until a second one has
/// started, so that a parallel upload shows two requests in flight whatever the scheduling.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    enum Event: Equatable { case started(String), ended(String) }

    let wrapped: any HTTPTransport
    let holdFirstRequest: Bool
    private let condition = NSCondition()
    private(set) var events: [Event] = []
    private var inFlight = 0
    private(set) var maxInFlight = 0
    private var started = 0

    init(wrapping wrapped: any HTTPTransport, holdFirstRequest: Bool = false) {
        self.wrapped = wrapped
        self.holdFirstRequest = holdFirstRequest
    }

    func send(_ request: HTTPRequest, to destination: HTTPBodyDestination, cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        let name = "\(request.method.rawValue) \(request.url)"
        condition.withLock {
            started += 1
            inFlight += 1
            maxInFlight = max(maxInFlight, inFlight)
            events.append(.started(name))
            condition.broadcast()
            if holdFirstRequest, started == 1 {
                let deadline = Date().addingTimeInterval(10)
                while started < 2, condition.wait(until: deadline) {}
            }
        }
        defer {
            condition.withLock {
                inFlight -= 1
                events.append(.ended(name))
            }
        }
        return try wrapped.send(request, to: destination, cancellation: cancellation)
    }

    var log: [Event] { condition.withLock { events } }
    var mostInFlight: Int { condition.withLock { maxInFlight } }
}

/// Sends requests through the real transport, except those `fault` answers for: it returns
/// the response or error to give instead (the request then never reaches the server).
final class FaultInjectingTransport: HTTPTransport, @unchecked Sendable {
    let wrapped: any HTTPTransport
    let fault: @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>?
    private let lock = NSLock()
    private var injected: [String] = []

    init(wrapping wrapped: any HTTPTransport, fault: @escaping @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>?) {
        self.wrapped = wrapped
        self.fault = fault
    }

    func send(_ request: HTTPRequest, to destination: HTTPBodyDestination, cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        if let outcome = fault(request) {
            lock.withLock { injected.append("\(request.method.rawValue) \(request.url)") }
            return try outcome.get()
        }
        return try wrapped.send(request, to: destination, cancellation: cancellation)
    }

    /// The requests answered by `fault`, in order.
    var injectedRequests: [String] { lock.withLock { injected } }
}

/// Sends every request through the real transport, but loses the answer of the first one
/// `matches` accepts: the server did the work, the caller sees a dropped connection.
final class AnswerLosingTransport: HTTPTransport, @unchecked Sendable {
    let wrapped: any HTTPTransport
    let matches: @Sendable (HTTPRequest) -> Bool
    private let lock = NSLock()
    private var lost = false

    init(wrapping wrapped: any HTTPTransport, losingTheFirstAnswerTo matches: @escaping @Sendable (HTTPRequest) -> Bool) {
        self.wrapped = wrapped
        self.matches = matches
    }

    func send(_ request: HTTPRequest, to destination: HTTPBodyDestination, cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        let response = try wrapped.send(request, to: destination, cancellation: cancellation)
        let loses = matches(request) && lock.withLock { () -> Bool in
            defer { lost = true }
            return !lost
        }
        if loses { throw .transfer(url: request.url, code: 56, message: "injected: connection reset after the request was served") }
        return response
    }
}
