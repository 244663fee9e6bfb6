import AssetPackTransport

/// Why an upload failed; every case names what it was about.
public enum UploadError: Error, CustomStringConvertible {
    /// The `s3://BUCKET/PREFIX` destination or the endpoint is malformed.
    case invalidDestination(String)
    case missingCredentials
    /// A file in the repository folder cannot be uploaded as it is (symlink, special file…).
    case invalidRepository(path: String, reason: String)
    /// The store answered `status`, with the S3 error code and message from its XML body when it sent one.
    case rejected(operation: String, key: String, url: String, status: Int, code: String?, message: String?)
    /// No answer (or a broken one) after the retries.
    case transport(operation: String, key: String, TransportError)

    public var description: String {
        switch self {
        case .invalidDestination(let m): return m
        case .missingCredentials:
            return "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)"
        case .invalidRepository(let path, let reason): return "\(path): \(reason)"
        case .rejected(let operation, let key, let url, let status, let code, let message):
            let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
            return "\(operation) \(key) failed: HTTP \(status) \(detail.isEmpty ? Self.hint(status) : detail) (\(url))"
        case .transport(let operation, let key, let error): return "\(operation) \(key) failed: \(error)"
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
