import AssetPackFormat
import AssetPackTransport

/// S3's multipart upload: CreateMultipartUpload gives an upload ID, UploadPart sends numbered
/// parts (each answered with an ETag), CompleteMultipartUpload assembles them into the object,
/// AbortMultipartUpload throws the parts away. Query strings are written in SigV4's canonical
/// form (sorted, values percent-encoded, `uploads=`), which libcurl signs as given.
extension S3Client {
    /// Starts a multipart upload of `key`; the object gets these headers when it is completed.
    /// Returns the upload ID.
    public func createMultipartUpload(_ key: String, contentType: String, cacheControl: String,
                                      cancellation: CancellationFlag? = nil) throws(UploadError) -> String {
        let headers = HTTPHeaders([("Content-Type", contentType), ("Cache-Control", cacheControl)])
        let request = HTTPRequest(.post, url: url(for: key) + "?uploads=", headers: headers, body: .bytes([]), signing: signing)
        let response = try send(request, operation: "CreateMultipartUpload", key: key, cancellation: cancellation, checkingForEmbeddedError: true)
        guard let uploadID = S3XML.element("UploadId", in: response.body) else {
            throw .rejected(operation: "CreateMultipartUpload", key: key, url: response.url, status: response.status,
                            code: nil, message: "the answer has no <UploadId>")
        }
        return uploadID
    }

    /// Sends bytes `range` of the file at `path` as part `partNumber` (1-based) and returns the
    /// part's ETag. The part's SHA-256 is computed first (a read of the range) and signed as the
    /// payload hash, so that the store refuses a part that arrived altered.
    public func uploadPart(_ key: String, uploadID: String, partNumber: Int, of partCount: Int, file path: String, range: Range<UInt64>,
                           cancellation: CancellationFlag? = nil) throws(UploadError) -> String {
        let bytes = range.isEmpty ? "empty" : "bytes \(range.lowerBound)-\(range.upperBound - 1)"
        let operation = "UploadPart \(partNumber) of \(partCount) (\(bytes))"
        let digest: SHA256Digest
        do { digest = try FileSectionDigest.sha256(path: path, range: range, cancellation: cancellation) } catch {
            throw .transport(operation: operation, key: key, error)
        }
        let headers = HTTPHeaders([("x-amz-content-sha256", digest.hex)])
        let request = HTTPRequest(.put, url: url(for: key) + "?partNumber=\(partNumber)&uploadId=\(Self.queryEncoded(uploadID))",
                                  headers: headers, body: .fileSection(path: path, offset: range.lowerBound, length: UInt64(range.count)),
                                  signing: signing)
        let response = try send(request, operation: operation, key: key, cancellation: cancellation)
        guard let eTag = response.headers["ETag"], !eTag.isEmpty else {
            throw .rejected(operation: operation, key: key, url: response.url, status: response.status, code: nil, message: "the answer has no ETag")
        }
        return eTag
    }

    /// Assembles the parts (their ETags in part order) into the object; returns its ETag.
    /// A 200 answer carrying an `<Error>` document (S3 sends one when assembling fails after
    /// the status went out) is a failure.
    @discardableResult
    public func completeMultipartUpload(_ key: String, uploadID: String, partETags: [String],
                                        cancellation: CancellationFlag? = nil) throws(UploadError) -> String {
        var xml = #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
        for (index, eTag) in partETags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(S3XML.escaped(eTag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = Array(xml.utf8)
        let headers = HTTPHeaders([("Content-Type", "application/xml"), ("x-amz-content-sha256", SHA256Digest.hash(body).hex)])
        let request = HTTPRequest(.post, url: url(for: key) + "?uploadId=\(Self.queryEncoded(uploadID))", headers: headers,
                                  body: .bytes(body), signing: signing)
        let response = try send(request, operation: "CompleteMultipartUpload", key: key, cancellation: cancellation,
                                checkingForEmbeddedError: true)
        guard let eTag = S3XML.element("ETag", in: response.body) else {
            throw .rejected(operation: "CompleteMultipartUpload", key: key, url: response.url, status: response.status,
                            code: nil, message: "the answer has no <ETag>")
        }
        return eTag
    }

    /// Throws away the parts of an upload. An upload that is already gone (404 NoSuchUpload)
    /// counts as aborted.
    public func abortMultipartUpload(_ key: String, uploadID: String) throws(UploadError) {
        let request = HTTPRequest(.delete, url: url(for: key) + "?uploadId=\(Self.queryEncoded(uploadID))", signing: signing)
        let response = try send(request, operation: "AbortMultipartUpload", key: key, accepting: [404])
        if response.status == 404, let code = S3ErrorBody(response.body).code, code != "NoSuchUpload" {
            throw Self.rejection(url: response.url, status: response.status, body: response.body, operation: "AbortMultipartUpload", key: key)
        }
    }

    /// The multipart uploads begun and neither completed nor aborted, for keys starting with
    /// `prefix` (the first 1,000).
    public func listMultipartUploads(prefix: String = "") throws(UploadError) -> [S3MultipartUpload] {
        let query = prefix.isEmpty ? "uploads=" : "prefix=\(Self.queryEncoded(prefix))&uploads="
        let request = HTTPRequest(url: "\(endpoint)/\(bucket)?\(query)", signing: signing)
        let response = try send(request, operation: "ListMultipartUploads", key: prefix)
        let text = Substring(String(decoding: response.body, as: UTF8.self))
        return S3XML.elements("Upload", in: text).compactMap { upload in
            guard let key = S3XML.element("Key", in: upload), let uploadID = S3XML.element("UploadId", in: upload) else { return nil }
            return S3MultipartUpload(key: key, uploadID: uploadID)
        }
    }
}

/// A multipart upload in progress.
public struct S3MultipartUpload: Sendable, Equatable {
    public var key: String
    public var uploadID: String

    public init(key: String, uploadID: String) {
        self.key = key
        self.uploadID = uploadID
    }
}
