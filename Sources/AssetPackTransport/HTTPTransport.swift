import Foundation

/// Sends HTTP requests. `CurlTransport` is the implementation on libcurl; another (say, on
/// URLSession for Apple platforms) only has to implement `send`.
///
/// `send` returns a response for every status, redirects included (they are never followed:
/// see `HTTPRequest`); it throws only when no response arrived or the transfer was stopped.
/// It blocks the calling thread; `response(for:to:)` is the async form.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest, to destination: HTTPBodyDestination,
              cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request` with the body collected in memory.
    public func send(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try send(request, to: .memory, cancellation: nil)
    }

    /// Sends `request` on a thread of its own (a blocking transfer must not hold one of the few
    /// threads of Swift's cooperative pool); cancelling the task cancels the transfer.
    public func response(for request: HTTPRequest, to destination: HTTPBodyDestination = .memory) async throws(TransportError) -> HTTPResponse {
        let flag = CancellationFlag()
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread {
                    do throws(TransportError) {
                        continuation.resume(returning: .success(try send(request, to: destination, cancellation: flag)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }.start()
            }
        } onCancel: {
            flag.cancel()
        }
        return try result.get()
    }
}
