import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads `file://` URLs — a repository copied to a folder, a USB stick or a network share — with
/// HTTP's answers, so that the client treats a folder as one more mirror: `GET` (or `HEAD`) is
/// `200` with the file, or `206` with `Content-Range` for a range; a missing file is `404`, a
/// range that starts past the end `416`, anything that is not a regular file `403`. Bytes are
/// read in place with `pread`, a block at a time: a pack is never copied whole first.
///
/// The folder is as untrusted as a server: what is read is verified above (the catalog's
/// signature, the index's hash, each chunk's hash). A FIFO or device planted in the folder is
/// refused without blocking on it (opened non-blocking, then checked to be a regular file).
public struct FileTransport: HTTPTransport {
    /// Bytes read per `pread`, and handed to a stream at a time.
    static let blockSize = 1 << 20

    public init() {}

    /// The path a `file://` URL names (`file:///abs/path` or `file://localhost/abs/path`,
    /// percent-decoded), or nil when `url` is not one.
    public static func path(of url: String) -> String? {
        guard url.lowercased().hasPrefix("file://") else { return nil }
        var rest = Substring(url.dropFirst("file://".count))
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
        guard rest.hasPrefix("/"), let decoded = String(rest).removingPercentEncoding,
              !decoded.contains("\0"), !decoded.contains("?"), !decoded.contains("#") else { return nil }
        return decoded
    }

    /// The `file://` URL of an absolute `path` (percent-encoded where a URL needs it).
    public static func url(forPath path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%;")
        return "file://" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
    }

    public func send(_ request: HTTPRequest, to destination: HTTPBodyDestination,
                     cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        guard let path = Self.path(of: request.url) else {
            throw .invalidRequest("\(request.url): not a file:// URL with an absolute path")
        }
        guard request.method == .get || request.method == .head, request.body == nil else {
            throw .invalidRequest("\(request.url): a repository folder is only read (GET or HEAD)")
        }
        if cancellation?.isCancelled == true { throw .cancelled(url: request.url) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            let status = (e == ENOENT || e == ENOTDIR) ? 404 : 403
            return answer(status, request.url, message: "\(path): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            return answer(403, request.url, message: "\(path) is not a regular file")
        }
        let size = UInt64(st.st_size)
        var first: UInt64 = 0, last = size == 0 ? 0 : size - 1, status = 200
        var headers = HTTPHeaders([("Accept-Ranges", "bytes")])
        if let range = request.range {
            guard range.first < size else {
                headers.append("Content-Range", "bytes */\(size)")
                return answer(416, request.url, message: "range \(range) starts past the end of \(path) (\(size) bytes)", headers: headers)
            }
            first = range.first
            last = min(range.last ?? size - 1, size - 1)
            status = 206
            headers.append("Content-Range", "bytes \(first)-\(last)/\(size)")
        }
        let length = size == 0 ? 0 : last - first + 1
        headers.append("Content-Length", String(length))
        var response = HTTPResponse(status: status, headers: headers, body: [], bodyByteCount: 0, url: request.url)
        if case .stream(let stream) = destination {
            do { try stream.onResponse(status, headers) } catch { throw .aborted(url: request.url, underlying: error) }
        }
        guard request.method == .get else { return response }
        if case .memory(let limit) = destination, length > UInt64(limit) {
            throw .aborted(url: request.url, underlying: FileBodyTooLarge(limit: limit))
        }
        var block = [UInt8](repeating: 0, count: Int(min(UInt64(Self.blockSize), max(length, 1))))
        var offset = first
        let end = first + length
        while offset < end {
            if cancellation?.isCancelled == true { throw .cancelled(url: request.url) }
            let want = Int(min(UInt64(block.count), end - offset))
            let n = block.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, want, off_t(offset)) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .file(path: path, message: "read failed at byte \(offset): \(String(cString: strerror(errno)))")
            }
            // The file shrank under us: the answer ends short, as a cut connection would.
            if n == 0 { throw .transfer(url: request.url, code: 0, message: "\(path) ended at byte \(offset), before the \(end) announced") }
            do {
                try block.withUnsafeBytes { all in
                    try deliver(UnsafeRawBufferPointer(rebasing: all[0..<n]), to: destination, url: request.url, into: &response)
                }
            } catch let error as TransportError { throw error } catch { throw .aborted(url: request.url, underlying: error) }
            offset += UInt64(n)
            response.bodyByteCount += UInt64(n)
        }
        return response
    }

    /// Hands one block of the body to `destination`.
    private func deliver(_ bytes: UnsafeRawBufferPointer, to destination: HTTPBodyDestination, url: String,
                         into response: inout HTTPResponse) throws(TransportError) {
        switch destination {
        case .memory: response.body.append(contentsOf: bytes)
        case .fileDescriptor(let out): try HTTPBodyDestination.writeAll(bytes, to: out)
        case .stream(let stream):
            do { try stream.onBytes(bytes) } catch { throw .aborted(url: url, underlying: error) }
        }
    }

    /// A non-2xx answer, its message as the body (as a server's error page would be).
    private func answer(_ status: Int, _ url: String, message: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        let body = Array(message.utf8)
        return HTTPResponse(status: status, headers: headers, body: body, bodyByteCount: UInt64(body.count), url: url)
    }
}

/// The error a `.memory` destination stops with when the file is larger than its limit.
struct FileBodyTooLarge: Error, CustomStringConvertible {
    var limit: Int
    var description: String { "file larger than \(limit) bytes" }
}
