import AssetPackTransport

/// Why an upload failed; every case names what it was about.
public enum UploadError: Error, CustomStringConvertible {
    /// The `s3://BUCKET/PREFIX` destination or the endpoint is malformed.
    case invalidDestination(String)
    /// A setting (jobs, part size, threshold) is out of range.
    case invalidOption(String)
    case missingCredentials
    /// A file in the repository folder cannot be uploaded as it is (symlink, special file…).
    case invalidRepository(path: String, reason: String)
    /// The store answered `status`, with the S3 error code and message from its XML body when it sent one.
    case rejected(operation: String, key: String, url: String, status: Int, code: String?, message: String?)
    /// No answer (or a broken one) after the retries.
    case transport(operation: String, key: String, TransportError)
    /// An upload failed with `cause`; its multipart upload `uploadID` of `key` could not be
    /// aborted either (`abortError`), so its parts stay stored (and billed) until it is.
    indirect case multipartLeftOpen(cause: UploadError, key: String, uploadID: String, abortError: UploadError)

    public var description: String {
        switch self {
        case .invalidDestination(let m), .invalidOption(let m): return m
        case .missingCredentials:
            return "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)"
        case .invalidRepository(let path, let reason): return "\(path): \(reason)"
        case .rejected(let operation, let key, let url, let status, let code, let message):
            let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
            return "\(operation) \(key) failed: HTTP \(status) \(detail.isEmpty ? Self.hint(status) : detail) (\(url))"
        case .transport(let operation, let key, let error): return "\(operation) \(key) failed: \(error)"
        case .multipartLeftOpen(let cause, let key, let uploadID, let abortError):
            return "\(cause); then aborting multipart upload \(uploadID) of \(key) failed too (\(abortError)): "
                + "its parts stay in the bucket until it is aborted (aws s3api abort-multipart-upload) or a lifecycle rule removes it"
        }
    }

    /// What a status means when the store sent no error body (HEAD responses never carry one).
    static func hint(_ status: Int) -> String {
        switch status {
        case 301, 307: return "(redirected: the bucket is in another region, or the endpoint is wrong)"
        case 400: return "(bad request: check the region)"
        case 403: return "(forbidden: check the credentials, the region and the system clock)"
        case 404: return "(not found: check the bucket name)"
        default: return ""
        }
    }
}
