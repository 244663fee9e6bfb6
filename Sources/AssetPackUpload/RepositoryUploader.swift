import AssetPackTransport

/// Uploads a repository folder to an S3-compatible store, following an `UploadPlan`: immutable
/// files first (each skipped when an object of the same size already exists — pack files are
/// content-addressed, so same name and size means same bytes), catalog.json last. Stops at the
/// first failure, before the catalog, so that the published catalog never points at a missing file.
public struct RepositoryUploader: Sendable {
    public enum Event: Sendable {
        case uploaded(UploadPlan.Item)
        case skipped(UploadPlan.Item)
    }

    public let client: S3Client

    public init(client: S3Client) { self.client = client }

    /// Runs `plan`; `progress` hears about each file as it is done.
    @discardableResult
    public func upload(_ plan: UploadPlan, progress: (Event) -> Void = { _ in }) throws(UploadError) -> UploadReport {
        var report = UploadReport()
        for item in plan.items {
            if item.isImmutable, let existing = try client.headObject(item.key), existing.size == item.size {
                report.skipped.append(item.key)
                progress(.skipped(item))
                continue
            }
            try client.putObject(item.key, file: item.path, contentType: item.contentType, cacheControl: item.cacheControl)
            report.uploaded.append(item.key)
            report.bytesUploaded += item.size
            progress(.uploaded(item))
        }
        return report
    }
}

/// What an upload did, in the order it did it.
public struct UploadReport: Sendable, Equatable {
    /// Keys PUT, in upload order (catalog.json last).
    public var uploaded: [String] = []
    /// Keys left alone because the same object was already there.
    public var skipped: [String] = []
    public var bytesUploaded: UInt64 = 0
}
