import Foundation

/// Where the body of a 2xx response goes. Bodies of other statuses are always kept in memory,
/// up to 64 KiB, for the error message (so a stream never sees an error page).
public enum HTTPBodyDestination: Sendable {
    /// Collected in `HTTPResponse.body`; a larger body aborts the transfer.
    case memory(limit: Int = 64 << 20)
    /// Written to an open file descriptor at its current offset; the caller owns it.
    case fileDescriptor(Int32)
    /// Handed to a stream as it arrives.
    case stream(HTTPBodyStream)

    public static var memory: HTTPBodyDestination { .memory() }
}

/// Receives a body while it downloads, so that it can be hashed, decompressed or written as it
/// arrives. Both closures run on the thread that performs the transfer, one call at a time.
/// Throwing from either aborts the transfer at once; the transport then throws
/// `TransportError.aborted` carrying the thrown error.
public struct HTTPBodyStream: @unchecked Sendable {
    /// Called once, before the first byte (or at the end for an empty body), with the status
    /// and headers: the place to reject, say, a 200 where a 206 was asked for.
    public var onResponse: (_ status: Int, _ headers: HTTPHeaders) throws -> Void
    public var onBytes: (UnsafeRawBufferPointer) throws -> Void

    public init(onResponse: @escaping (_ status: Int, _ headers: HTTPHeaders) throws -> Void = { _, _ in },
                onBytes: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.onResponse = onResponse
        self.onBytes = onBytes
    }
}

extension HTTPBodyDestination {
    /// Writes all of `bytes` to `fd` (a `.fileDescriptor` destination), resuming after EINTR
    /// and short writes; the error names the descriptor.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws(TransportError) {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw .file(path: "file descriptor \(fd)", message: "write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}
