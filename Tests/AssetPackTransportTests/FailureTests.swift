import AssetPackTransport
import Foundation
import TestSupport
import Testing

/// Timeouts, cancellation and connection failures, against servers that misbehave.
@Suite struct FailureTests {
    @Test func serverThatNeverAnswersTimesOut() throws {
        let silent = try SilentServer()
        let transport = try CurlTransport()
        let request = HTTPRequest(url: silent.url, lowSpeedLimit: .init(bytesPerSecond: 1, duration: .seconds(1)))
        #expect {
            try transport.send(request)
        } throws: { error in
            guard case TransportError.timedOut(let url, _) = error else { return false }
            return url == silent.url && (error as? TransportError)?.isTransient == true
        }
    }

    @Test func wholeTransferTimeout() throws {
        let silent = try SilentServer()
        let transport = try CurlTransport()
        #expect {
            try transport.send(HTTPRequest(url: silent.url, lowSpeedLimit: nil, timeout: .milliseconds(300)))
        } throws: { error in
            if case TransportError.timedOut = error { return true }
            return false
        }
    }

    @Test func cancellationFlagStopsAWaitingTransfer() throws {
        let silent = try SilentServer()
        let transport = try CurlTransport()
        let flag = CancellationFlag()
        // Cancel once the request waits on the silent server (connected, never answered). A
        // thread of its own watches: the shared pools may be busy with other tests.
        Thread {
            try? blockingWaitUntil("the request has connected") { silent.hasWaitingConnection }
            flag.cancel()
        }.start()
        #expect {
            try transport.send(HTTPRequest(url: silent.url, lowSpeedLimit: nil), to: .memory, cancellation: flag)
        } throws: { error in
            guard case TransportError.cancelled(let url) = error else { return false }
            return url == silent.url
        }
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let silent = try SilentServer()
        let transport = try CurlTransport()
        let task = Task { try await transport.response(for: HTTPRequest(url: silent.url, lowSpeedLimit: nil)) }
        try await waitUntil("the request has connected") { silent.hasWaitingConnection }
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, case TransportError.cancelled = error else {
            Issue.record("expected cancellation, got \(result)")
            return
        }
    }

    @Test func closedPortIsAConnectionError() throws {
        let port = try freeLoopbackPort()
        let url = "http://127.0.0.1:\(port)/x"
        #expect {
            try CurlTransport().send(HTTPRequest(url: url))
        } throws: { error in
            guard case TransportError.connection(let failedURL, _) = error else { return false }
            return failedURL == url && (error as? TransportError)?.isTransient == true
        }
    }

    @Test func unknownHostIsANameResolutionError() throws {
        #expect {
            try CurlTransport().send(HTTPRequest(url: "http://no-such-host.invalid/x"))
        } throws: { error in
            if case TransportError.nameResolution = error { return true }
            return false
        }
    }
}
