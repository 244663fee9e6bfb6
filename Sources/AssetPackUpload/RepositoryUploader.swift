import AssetPackTransport
import Foundation

/// Uploads a repository folder to an S3-compatible store, following an `UploadPlan`, stage by
/// stage: the pack files, then the other top-level files, then catalog.json — each stage only
/// once every file of the one before is stored, so that the published catalog never points at a
/// missing file. Within a stage, `options.jobs` transfers run at once. An immutable file is
/// skipped when an object of the same size already exists (pack files are content-addressed:
/// same name and size means same bytes). A file of `options.multipart.threshold` bytes or more
/// goes up as a multipart upload, its parts streamed from the file and spread over the jobs.
///
/// The first failure stops the upload before the next stage (and so before the catalog): no
/// new transfer starts, those in flight are cancelled, and every multipart upload begun and not
/// completed is aborted, so that no orphaned parts stay behind.
public struct RepositoryUploader: Sendable {
    public enum Event: Sendable {
        case uploaded(UploadPlan.Item)
        case skipped(UploadPlan.Item)
        /// A multipart upload left unfinished by a failure was aborted: its parts are gone.
        case aborted(key: String, uploadID: String)
    }

    public let client: S3Client
    public let options: UploadOptions

    public init(client: S3Client, options: UploadOptions = .standard) {
        self.client = client
        self.options = options
    }

    /// Runs `plan`; `progress` hears about each file as it is done (one call at a time, from
    /// the worker threads). Setting `cancellation` (from any thread, say on SIGINT) stops the
    /// upload as a failure does: transfers stop, open multipart uploads are aborted, and the
    /// error thrown is the cancelled transfer's.
    @discardableResult
    public func upload(_ plan: UploadPlan, cancellation: CancellationFlag = CancellationFlag(),
                       progress: @escaping @Sendable (Event) -> Void = { _ in }) throws(UploadError) -> UploadReport {
        let run = UploadRun(client: client, policy: options.multipart, cancellation: cancellation, progress: progress)
        let queue = UploadJobQueue(workers: options.jobs, cancellation: run.cancellation)
        var index = 0
        for stage in plan.stages {
            let jobs = stage.map { item in
                defer { index += 1 }
                return run.job(for: item, at: index)
            }
            do { try queue.run(jobs) } catch {
                throw run.abortOpenUploads(after: error)
            }
        }
        return run.report
    }
}

/// What an upload did.
public struct UploadReport: Sendable, Equatable {
    /// Keys PUT (or completed as multipart uploads), in plan order (catalog.json last).
    public var uploaded: [String] = []
    /// Keys left alone because the same object was already there, in plan order.
    public var skipped: [String] = []
    public var bytesUploaded: UInt64 = 0
    /// Files that went up as multipart uploads.
    public var multipartCount = 0
}
