import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of one transfer, shared with libcurl's C callbacks through an unretained pointer
/// (CURLOPT_WRITEDATA and friends). It lives for the duration of `curl_easy_perform`.
final class CurlTransfer {
    /// Bodies of non-2xx responses kept for the error message.
    static let errorBodyLimit = 64 << 10

    let handle: UnsafeMutableRawPointer
    let url: String
    let destination: HTTPBodyDestination
    let cancellation: CancellationFlag?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    var headers = HTTPHeaders()
    var status = 0
    /// Set at the first body byte: whether the body goes to the destination (2xx) or to `body`
    /// as an error body.
    var deliversBody: Bool?
    var headDelivered = false
    var body: [UInt8] = []
    var bodyByteCount: UInt64 = 0
    /// Set when the destination threw or could not be written; the transfer then fails.
    var consumerError: (any Error)?
    var fileError: TransportError?
    var source: CurlUploadSource?
    /// The request's minimum average rate, and when the transfer started.
    var averageRate: HTTPRequest.AverageRate?
    let startedAt = ContinuousClock.now
    /// Set when the body arrived slower than `averageRate`: why the transfer stopped.
    var slowness: String?

    init(handle: UnsafeMutableRawPointer, url: String, destination: HTTPBodyDestination, cancellation: CancellationFlag?) {
        self.handle = handle
        self.url = url
        self.destination = destination
        self.cancellation = cancellation
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    var errorMessage: String { String(cString: errorBuffer) }

    /// One header line, status lines included. A new status line (after `100 Continue`)
    /// starts a new set of headers.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var line = String(decoding: bytes, as: UTF8.self)
        while line.last?.isNewline == true { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headers = HTTPHeaders()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).trimmingSpaces
        let value = String(line[line.index(after: colon)...]).trimmingSpaces
        if !name.isEmpty { headers.append(name, value) }
    }

    /// Body bytes; returns false to stop the transfer.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if deliversBody == nil {
            var code = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
            status = code
            deliversBody = (200..<300).contains(code)
            if deliversBody == true, !deliverHead() { return false }
        }
        bodyByteCount += UInt64(bytes.count)
        guard deliversBody == true else {
            body.append(contentsOf: bytes.prefix(max(0, Self.errorBodyLimit - body.count)))
            return true
        }
        switch destination {
        case .memory(let limit):
            guard body.count + bytes.count <= limit else {
                consumerError = BodyTooLarge(limit: limit)
                return false
            }
            body.append(contentsOf: bytes)
        case .fileDescriptor(let fd):
            do throws(TransportError) { try HTTPBodyDestination.writeAll(bytes, to: fd) } catch {
                fileError = error
                return false
            }
        case .stream(let stream):
            do { try stream.onBytes(bytes) } catch {
                consumerError = error
                return false
            }
        }
        return true
    }

    /// Calls the stream's `onResponse` once; false when it threw.
    func deliverHead() -> Bool {
        guard !headDelivered else { return true }
        headDelivered = true
        guard case .stream(let stream) = destination else { return true }
        do { try stream.onResponse(status, headers) } catch {
            consumerError = error
            return false
        }
        return true
    }

    var isCancelled: Bool { cancellation?.isCancelled ?? false }

    /// Whether `downloaded` body bytes so far fall below the minimum average rate (once its
    /// grace period has passed); records why.
    func isTooSlow(downloaded: UInt64) -> Bool {
        guard let rate = averageRate, slowness == nil else { return slowness != nil }
        let elapsed = ContinuousClock.now - startedAt
        // A second at least: at the very start no transfer has had time to average anything.
        guard elapsed >= max(rate.after, .seconds(1)) else { return false }
        let (s, atto) = elapsed.components
        let seconds = Double(s) + Double(atto) / 1e18
        guard Double(downloaded) < Double(rate.bytesPerSecond) * seconds else { return false }
        slowness = "\(downloaded) bytes in \(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s, below the minimum average of \(rate.bytesPerSecond) bytes/s"
        return true
    }
}

/// The error a `.memory` destination stops with when the body outgrows its limit.
struct BodyTooLarge: Error, CustomStringConvertible {
    var limit: Int
    var description: String { "response body larger than \(limit) bytes" }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
