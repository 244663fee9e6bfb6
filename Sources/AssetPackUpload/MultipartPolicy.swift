/// When a file goes up as an S3 multipart upload and how it is cut into parts.
///
/// S3's limits: a part is 5 MiB to 5 GiB (only the last may be smaller), an upload has at most
/// 10,000 parts, an object is at most 5 TiB, and a single PUT at most 5 GiB. A file of
/// `threshold` bytes or more is uploaded in parts of `partSize(forFileSize:)`: `minimumPartSize`,
/// grown to a whole MiB for files too large for 10,000 such parts.
public struct MultipartPolicy: Sendable, Equatable {
    public static let minimumAllowedPartSize: UInt64 = 5 << 20
    public static let maximumPartSize: UInt64 = 5 << 30
    public static let maximumPartCount: UInt64 = 10_000
    public static let maximumObjectSize: UInt64 = 5 << 40
    public static let maximumSinglePutSize: UInt64 = 5 << 30

    /// Files of this size or more use multipart.
    public var threshold: UInt64
    /// The size of every part but the last, unless the file needs larger ones.
    public var minimumPartSize: UInt64

    /// 64 MiB threshold, 16 MiB parts.
    public static let standard = MultipartPolicy(uncheckedThreshold: 64 << 20, minimumPartSize: 16 << 20)

    /// Throws `.invalidOption` when `minimumPartSize` is outside 5 MiB…5 GiB or `threshold`
    /// outside 1 byte…5 GiB (the largest single PUT).
    public init(threshold: UInt64, minimumPartSize: UInt64) throws(UploadError) {
        guard (Self.minimumAllowedPartSize...Self.maximumPartSize).contains(minimumPartSize) else {
            throw .invalidOption("a part size of \(minimumPartSize) bytes is outside S3's limits (5 MiB to 5 GiB)")
        }
        guard (1...Self.maximumSinglePutSize).contains(threshold) else {
            throw .invalidOption("a multipart threshold of \(threshold) bytes is outside 1 byte to 5 GiB (S3's largest single PUT)")
        }
        self.init(uncheckedThreshold: threshold, minimumPartSize: minimumPartSize)
    }

    private init(uncheckedThreshold threshold: UInt64, minimumPartSize: UInt64) {
        self.threshold = threshold
        self.minimumPartSize = minimumPartSize
    }

    public func usesMultipart(forFileSize size: UInt64) -> Bool { size >= threshold }

    /// The size of each part but the last: `minimumPartSize`, or the smallest whole number of
    /// MiB that keeps the file within 10,000 parts.
    public func partSize(forFileSize size: UInt64) -> UInt64 {
        let needed = (size + Self.maximumPartCount - 1) / Self.maximumPartCount
        let roundedToMiB = ((needed + (1 << 20) - 1) >> 20) << 20
        return max(minimumPartSize, roundedToMiB)
    }

    /// The byte ranges of the parts of a file of `size` bytes, in order (part n is element n−1).
    /// One empty part for an empty file.
    public func parts(forFileSize size: UInt64) -> [Range<UInt64>] {
        let partSize = partSize(forFileSize: size)
        guard size > 0 else { return [0..<0] }
        return stride(from: UInt64(0), to: size, by: Int(partSize)).map { $0..<min($0 + partSize, size) }
    }
}
