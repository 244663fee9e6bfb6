import AssetPackTransport

/// The two answers a Range request can get: 206 with the bytes asked for (checked by its
/// Content-Range), or 200 with the whole file from a server that ignores Range, whose bytes
/// before the wanted ones are skipped and whose transfer is stopped once the wanted ones are in.
enum RangeResponse {
    /// Thrown by a body stream to stop a 200 response once the wanted bytes are in.
    struct Enough: Error {}

    /// Bytes to skip at the start of the body: the range's start for a 200, none for a 206 that
    /// starts at `range.first`. Throws for a 206 that starts elsewhere.
    static func bytesToSkip(status: Int, headers: HTTPHeaders, range: ByteRange, path: String) throws -> UInt64 {
        switch status {
        case 206:
            guard let contentRange = headers["Content-Range"], contentRange.hasPrefix("bytes \(range.first)-") else {
                throw AssetPackManagerError.verification("\(path): the server answered a Range request for bytes \(range) with Content-Range \(headers["Content-Range"] ?? "missing")")
            }
            return 0
        case 200: return range.first
        default: return 0   // errors are reported by the transport with their status
        }
    }

    /// `buffer` without the bytes still to skip; `skip` goes down by as many.
    static func dropSkipped(_ buffer: UnsafeRawBufferPointer, skip: inout UInt64) -> UnsafeRawBufferPointer {
        guard skip > 0 else { return buffer }
        let n = Int(min(UInt64(buffer.count), skip))
        skip -= UInt64(n)
        return UnsafeRawBufferPointer(rebasing: buffer[n...])
    }

    /// Whether `error` is the stop a stream threw once it had its bytes.
    static func isEnough(_ error: AssetPackManagerError) -> Bool {
        if case .transport(.aborted(_, let underlying)) = error, underlying is Enough { return true }
        return false
    }
}
