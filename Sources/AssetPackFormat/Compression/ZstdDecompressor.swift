import CZstd

/// Why a zstd frame could not be turned back into the bytes it was declared to hold.
public enum ZstdError: Error, Equatable, CustomStringConvertible {
    case corrupt(String)
    case sizeMismatch(declared: Int, actual: Int)
    case tooLarge(declared: Int, limit: Int)

    public var description: String {
        switch self {
        case .corrupt(let why): return "zstd data is corrupt (\(why))"
        case let .sizeMismatch(d, a): return "decompresses to \(a) bytes, not the \(d) declared"
        case let .tooLarge(d, l): return "frame declares \(d) bytes, more than the \(l) allowed"
        }
    }
}

/// A zstd decompressor with a reusable context; one per thread. It never produces more than the
/// size the caller expects, so a decompression bomb fails instead of filling memory or disk.
public final class ZstdDecompressor: @unchecked Sendable {
    private let ctx: OpaquePointer
    /// Input scratch space that goes with the context (`scratch(capacity:)`).
    private var scratchBuffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    public init() {
        guard let c = ZSTD_createDCtx() else { fatalError("zstd could not allocate a decompression context") }
        ctx = c
    }

    deinit {
        ZSTD_freeDCtx(ctx)
        scratchBuffer.deallocate()
    }

    /// A buffer of at least `capacity` bytes that belongs to this decompressor (so, like it, to
    /// one thread at a time) and is reused from call to call, its contents undefined: where a
    /// sealed frame is opened before it is decompressed, so that a chunk costs no allocation
    /// and no zero-fill of its frame. Valid until the next call.
    public func scratch(capacity: Int) -> UnsafeMutableRawBufferPointer {
        if scratchBuffer.count < capacity {
            scratchBuffer.deallocate()
            scratchBuffer = .allocate(byteCount: max(capacity, 64 << 10), alignment: 16)
        }
        return scratchBuffer
    }

    /// Decompresses one frame that must hold exactly `expectedSize` bytes into `output`
    /// (capacity ≥ expectedSize).
    public func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int, into output: UnsafeMutableRawBufferPointer) throws(ZstdError) {
        let declared = czstd_frame_content_size(input.baseAddress, input.count)
        if declared == -2 { throw .corrupt("not a zstd frame") }
        if declared >= 0 && declared != expectedSize {
            throw declared > expectedSize ? .tooLarge(declared: Int(declared), limit: expectedSize)
                                          : .sizeMismatch(declared: expectedSize, actual: Int(declared))
        }
        let n = ZSTD_decompressDCtx(ctx, output.baseAddress, expectedSize, input.baseAddress, input.count)
        if czstd_is_error(n) != 0 {
            throw .corrupt(String(cString: ZSTD_getErrorName(n)))
        }
        if n != expectedSize { throw .sizeMismatch(declared: expectedSize, actual: n) }
    }

    /// Decompresses one whole frame that declares its content size, which must be at most
    /// `limit` bytes (a frame that does not declare it is refused: no size, no bound), and that
    /// `input` holds exactly: no byte, nor another frame, after it.
    public func decompressFrame(_ input: [UInt8], limit: Int) throws(ZstdError) -> [UInt8] {
        let declared = input.withUnsafeBytes { czstd_frame_content_size($0.baseAddress, $0.count) }
        if declared == -2 { throw .corrupt("not a zstd frame") }
        let length = input.withUnsafeBytes { czstd_frame_compressed_size($0.baseAddress, $0.count) }
        if length < 0 { throw .corrupt("the frame is incomplete") }
        if length != input.count { throw .corrupt("\(input.count - Int(length)) bytes follow the frame") }
        if declared == -1 { throw .corrupt("the frame does not declare its content size") }
        if declared > limit { throw .tooLarge(declared: Int(declared), limit: limit) }
        var result: Result<[UInt8], ZstdError> = .success([])
        input.withUnsafeBytes { buffer in
            do throws(ZstdError) { result = .success(try decompress(buffer, expectedSize: Int(declared))) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    public func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(ZstdError) -> [UInt8] {
        var error: ZstdError?
        let out = [UInt8](unsafeUninitializedCapacity: max(expectedSize, 1)) { buf, count in
            do throws(ZstdError) {
                try decompress(input, expectedSize: expectedSize, into: UnsafeMutableRawBufferPointer(buf))
                count = expectedSize
            } catch let e { error = e; count = 0 }
        }
        if let error { throw error }
        return out
    }

    /// Decompresses one patch frame that refers to `prefix` (zstd's reference prefix) and must
    /// hold exactly `expectedSize` bytes. The frame's declared content size is checked before
    /// any output memory is committed (a frame that declares more is a bomb and is refused), and
    /// its window may be at most 2^`windowLogMax`.
    public func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int, prefix: UnsafeRawBufferPointer,
                           windowLogMax: Int32) throws(ZstdError) -> [UInt8] {
        let declared = czstd_frame_content_size(input.baseAddress, input.count)
        if declared == -2 { throw .corrupt("not a zstd frame") }
        if declared == -1 { throw .corrupt("the frame does not declare its content size") }
        if declared != expectedSize {
            throw declared > expectedSize ? .tooLarge(declared: Int(declared), limit: expectedSize)
                                          : .sizeMismatch(declared: expectedSize, actual: Int(declared))
        }
        var failure: ZstdError?
        let out = [UInt8](unsafeUninitializedCapacity: max(expectedSize, 1)) { buf, count in
            count = 0
            let n = czstd_decompress_with_prefix(ctx, buf.baseAddress, expectedSize, input.baseAddress, input.count,
                                                 prefix.baseAddress, prefix.count, windowLogMax)
            if czstd_is_error(n) != 0 { failure = .corrupt(String(cString: ZSTD_getErrorName(n))); return }
            if n != expectedSize { failure = .sizeMismatch(declared: expectedSize, actual: n); return }
            count = n
        }
        if let failure { throw failure }
        return out
    }
}
