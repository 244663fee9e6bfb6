/// Where a repository goes: `s3://BUCKET/PREFIX`. The prefix may be empty; it never starts or
/// ends with `/`, and object keys are `PREFIX/relative/path`.
public struct S3Location: Sendable, Equatable {
    public var bucket: String
    public var prefix: String

    public init(bucket: String, prefix: String = "") throws(UploadError) {
        guard Self.isValidBucketName(bucket) else {
            throw .invalidDestination("'\(bucket)' is not a valid bucket name (3–63 characters: lowercase letters, digits, '.', '-'; starting and ending with a letter or digit)")
        }
        let trimmed = prefix.split(separator: "/", omittingEmptySubsequences: true)
        guard !trimmed.contains(where: { $0 == "." || $0 == ".." }) else {
            throw .invalidDestination("prefix '\(prefix)' may not contain '.' or '..' segments")
        }
        self.bucket = bucket
        self.prefix = trimmed.joined(separator: "/")
    }

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX`.
    public init(parsing text: String) throws(UploadError) {
        guard text.hasPrefix("s3://") else { throw .invalidDestination("'\(text)' is not an s3://BUCKET/PREFIX destination") }
        let rest = text.dropFirst("s3://".count)
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        try self.init(bucket: String(parts.first ?? ""), prefix: parts.count > 1 ? String(parts[1]) : "")
    }

    /// The object key of `relativePath` (a `/`-separated path inside the repository).
    public func key(for relativePath: String) -> String {
        prefix.isEmpty ? relativePath : "\(prefix)/\(relativePath)"
    }

    static func isValidBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func alphanumeric(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) }
        guard alphanumeric(bytes[0]), alphanumeric(bytes[bytes.count - 1]) else { return false }
        return bytes.allSatisfy { alphanumeric($0) || $0 == 0x2e || $0 == 0x2d } && !name.contains("..")
    }
}
