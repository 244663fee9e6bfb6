import AssetPackTransport

/// The S3 operations an upload needs (multipart ones in S3Client+Multipart.swift), on any S3-compatible endpoint, with path-style URLs
/// (`ENDPOINT/BUCKET/KEY`: what MinIO, moto, Ceph and most self-hosted stores expect, and what
/// AWS still accepts), signed with SigV4. Transient failures (connection errors, timeouts, 5xx,
/// 429) are retried with `retryPolicy`.
public struct S3Client: Sendable {
    public let endpoint: String
    public let bucket: String
    public let signing: AWSSigning
    public let transport: any HTTPTransport
    public let retryPolicy: RetryPolicy

    /// `endpoint` is `http(s)://host[:port][/path]`.
    public init(endpoint: String, bucket: String, credentials: AWSCredentials, region: String,
                transport: any HTTPTransport, retryPolicy: RetryPolicy = .standard) throws(UploadError) {
        let lower = endpoint.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
              endpoint.split(separator: "/", omittingEmptySubsequences: true).count >= 2,
              !endpoint.contains("?"), !endpoint.contains("#") else {
            throw .invalidDestination("endpoint '\(endpoint)' is not an http:// or https:// URL (e.g. http://127.0.0.1:9000)")
        }
        guard S3Location.isValidBucketName(bucket) else { throw .invalidDestination("'\(bucket)' is not a valid bucket name") }
        var trimmed = endpoint
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.endpoint = trimmed
        self.bucket = bucket
        self.signing = AWSSigning(credentials: credentials, region: region)
        self.transport = transport
        self.retryPolicy = retryPolicy
    }

    /// The path-style URL of `key`, each byte outside RFC 3986's unreserved set (and `/`) percent-encoded.
    public func url(for key: String) -> String {
        "\(endpoint)/\(bucket)/\(Self.percentEncoded(key))"
    }

    /// Size, Content-Type and Cache-Control of an object, or nil when it does not exist.
    public func headObject(_ key: String, cancellation: CancellationFlag? = nil) throws(UploadError) -> S3ObjectInfo? {
        let response = try send(HTTPRequest(.head, url: url(for: key), signing: signing), operation: "HEAD", key: key, accepting: [404],
                                cancellation: cancellation)
        guard response.status != 404 else { return nil }
        return S3ObjectInfo(size: response.headers["Content-Length"].flatMap { UInt64($0) },
                            contentType: response.headers["Content-Type"], cacheControl: response.headers["Cache-Control"],
                            eTag: response.headers["ETag"])
    }

    /// PUTs the file at `path` as `key` (at most 5 GiB: larger files need a multipart upload).
    public func putObject(_ key: String, file path: String, contentType: String, cacheControl: String,
                          cancellation: CancellationFlag? = nil) throws(UploadError) {
        let headers = HTTPHeaders([("Content-Type", contentType), ("Cache-Control", cacheControl)])
        let request = HTTPRequest(.put, url: url(for: key), headers: headers, body: .file(path: path), signing: signing)
        try send(request, operation: "PUT", key: key, cancellation: cancellation)
    }

    /// GETs an object (or a range of it); used to check an upload.
    public func getObject(_ key: String, range: ByteRange? = nil) throws(UploadError) -> HTTPResponse {
        try send(HTTPRequest(url: url(for: key), range: range, signing: signing), operation: "GET", key: key)
    }

    /// Creates the bucket; succeeds when it exists already and is ours.
    public func createBucket() throws(UploadError) {
        var body: [UInt8] = []
        if signing.region != "us-east-1" {
            body = Array("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(signing.region)</LocationConstraint></CreateBucketConfiguration>".utf8)
        }
        let request = HTTPRequest(.put, url: "\(endpoint)/\(bucket)", body: .bytes(body), signing: signing)
        let response = try send(request, operation: "CreateBucket", key: bucket, accepting: [409])
        if response.status == 409, S3ErrorBody(response.body).code != "BucketAlreadyOwnedByYou" {
            throw Self.rejection(url: response.url, status: response.status, body: response.body, operation: "CreateBucket", key: bucket)
        }
    }

    /// Sends with retries; a status outside 2xx and `accepting` becomes `UploadError.rejected`.
    /// With `checkingForEmbeddedError`, a 2xx whose body is an S3 `<Error>` document is a
    /// failure too (retried when its code says "try again").
    @discardableResult
    func send(_ request: HTTPRequest, operation: String, key: String, accepting: Set<Int> = [],
              cancellation: CancellationFlag? = nil, checkingForEmbeddedError: Bool = false) throws(UploadError) -> HTTPResponse {
        do {
            return try retryPolicy.run(cancellation: cancellation, shouldRetry: Self.shouldRetry) { _ throws(TransportError) in
                let response = try transport.send(request, to: .memory(limit: 64 << 20), cancellation: cancellation)
                if response.isSuccess, checkingForEmbeddedError, S3XML.isErrorDocument(response.body) {
                    throw TransportError.httpStatus(url: response.url, status: response.status, body: response.body)
                }
                if response.isSuccess || accepting.contains(response.status) { return response }
                throw TransportError.httpStatus(url: response.url, status: response.status, body: response.body)
            }
        } catch {
            if case .httpStatus(let url, let status, let body) = error {
                throw Self.rejection(url: url, status: status, body: body, operation: operation, key: key)
            }
            throw .transport(operation: operation, key: key, error)
        }
    }

    /// Transient transport failures, and the error codes S3 puts in a 200 answer when it could
    /// not finish the request but it may succeed later.
    private static func shouldRetry(_ error: TransportError) -> Bool {
        if error.isTransient { return true }
        guard case .httpStatus(_, let status, let body) = error, (200..<300).contains(status) else { return false }
        return ["InternalError", "SlowDown", "ServiceUnavailable"].contains(S3ErrorBody(body).code ?? "")
    }

    static func rejection(url: String, status: Int, body: [UInt8], operation: String, key: String) -> UploadError {
        let s3 = S3ErrorBody(body)
        return .rejected(operation: operation, key: key, url: url, status: status, code: s3.code, message: s3.message)
    }

    /// `key` with each byte outside RFC 3986's unreserved set percent-encoded, `/` kept.
    static func percentEncoded(_ key: String) -> String { percentEncoded(key, keepingSlashes: true) }

    /// A query parameter's value as SigV4 canonicalizes it: every byte outside the unreserved
    /// set percent-encoded (uppercase hex), `/` included.
    static func queryEncoded(_ value: String) -> String { percentEncoded(value, keepingSlashes: false) }

    private static func percentEncoded(_ text: String, keepingSlashes: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

/// What a HEAD tells about an object.
public struct S3ObjectInfo: Sendable, Equatable {
    public var size: UInt64?
    public var contentType: String?
    public var cacheControl: String?
    /// As sent, quotes included; `"<hex>-N"` for an object made by a multipart upload of N parts.
    public var eTag: String?
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
