#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request, from its request line to the end of its response: the target as received, and
/// what the access log line needs once the response is over. libmicrohttpd keeps a retained
/// pointer to it as the request's context; the completion callback releases it.
final class RequestRecord: @unchecked Sendable {
    /// The target's bytes up to the first NUL, copied before libmicrohttpd cuts the target up.
    let targetPrefix: [UInt8]
    /// Where the target began in libmicrohttpd's buffer, to measure it once the request is in.
    let targetStart: UnsafeRawPointer
    /// Set when the header block is in (libmicrohttpd's first call of the handler).
    var headersSeen = false
    /// Set when a response is queued.
    var answer: AnsweredRequest?

    init(target: UnsafePointer<CChar>) {
        let n = strlen(target)
        targetPrefix = Array(UnsafeRawBufferPointer(start: target, count: n))
        targetStart = UnsafeRawPointer(target)
    }

    /// The whole target as received: `url` is libmicrohttpd's target (the same buffer the
    /// record was made from), `version` its HTTP version, which follows the target and one
    /// space in that buffer. A target longer than its bytes up to the first NUL held a NUL.
    func targetBytes(url: UnsafePointer<CChar>, version: UnsafePointer<CChar>) -> RequestTargetBytes {
        let start = UnsafeRawPointer(url), versionStart = UnsafeRawPointer(version)
        var endsAtNUL = false
        if start == targetStart, versionStart > start, version.pointee != 0 {
            let length = versionStart - start - 1
            endsAtNUL = length > targetPrefix.count && length < 1 << 20
        }
        return RequestTargetBytes(prefix: targetPrefix, endsAtNUL: endsAtNUL)
    }
}

/// What was queued for a request, and how many bytes the socket had taken before it.
struct AnsweredRequest {
    var client: String
    var method: String
    var target: String
    var version: String
    var status: Int
    /// The body length announced in Content-Length (HEAD: the length a GET would send).
    var announcedLength: UInt64
    var note: String?
    /// The response header block's length (status line, fields and the blank line).
    var headerLength: UInt64
    /// Bytes the socket had sent before this response, or nil if the kernel would not say.
    var sentBefore: UInt64?

    /// The body bytes that left the server: all of them when libmicrohttpd finished the
    /// response; otherwise what the socket sent since the response was queued (see
    /// `cmhd_socket_bytes_sent`), less the header block, up to the announced length (nil if
    /// that cannot be known).
    func bodyBytesSent(completed: Bool, sentAfter: UInt64?) -> UInt64? {
        if method == "HEAD" { return 0 }
        if completed { return announcedLength }
        guard let before = sentBefore, let after = sentAfter else { return nil }
        // Less than before: a reset lost even the end of the previous response.
        let onWire = after > before ? after - before : 0
        return min(announcedLength, onWire > headerLength ? onWire - headerLength : 0)
    }
}
