import AssetPackTransport
import Foundation

/// The state of one `RepositoryUploader.upload`, shared by its workers: the jobs for each file,
/// what was done so far, and the multipart uploads open right now (to abort them on failure).
final class UploadRun: @unchecked Sendable {
    typealias Job = UploadJobQueue.Job

    let client: S3Client
    let policy: MultipartPolicy
    let progress: @Sendable (RepositoryUploader.Event) -> Void
    /// Set at the first failure (or by the caller): transfers in flight stop.
    let cancellation: CancellationFlag
    private let lock = NSLock()
    private var uploaded: [(index: Int, key: String)] = []
    private var skipped: [(index: Int, key: String)] = []
    private var bytesUploaded: UInt64 = 0
    private var multipartCount = 0
    private var open: [String: MultipartFileUpload] = [:]

    init(client: S3Client, policy: MultipartPolicy, cancellation: CancellationFlag,
         progress: @escaping @Sendable (RepositoryUploader.Event) -> Void) {
        self.client = client
        self.policy = policy
        self.cancellation = cancellation
        self.progress = progress
    }

    var report: UploadReport {
        lock.withLock {
            UploadReport(uploaded: uploaded.sorted { $0.index < $1.index }.map(\.key),
                         skipped: skipped.sorted { $0.index < $1.index }.map(\.key),
                         bytesUploaded: bytesUploaded, multipartCount: multipartCount)
        }
    }

    /// Uploads `item` (plan position `index`): skips it when already there, PUTs it, or starts
    /// its multipart upload and hands back one job per part.
    func job(for item: UploadPlan.Item, at index: Int) -> Job {
        Job { [self] () throws(UploadError) in
            if item.isImmutable, let existing = try client.headObject(item.key, cancellation: cancellation), existing.size == item.size {
                lock.withLock {
                    skipped.append((index, item.key))
                    progress(.skipped(item))
                }
                return []
            }
            guard policy.usesMultipart(forFileSize: item.size) else {
                try client.putObject(item.key, file: item.path, contentType: item.contentType, cacheControl: item.cacheControl,
                                     cancellation: cancellation)
                finished(item, at: index, multipart: false)
                return []
            }
            let uploadID = try client.createMultipartUpload(item.key, contentType: item.contentType, cacheControl: item.cacheControl,
                                                            cancellation: cancellation)
            let upload = MultipartFileUpload(item: item, uploadID: uploadID, parts: policy.parts(forFileSize: item.size))
            lock.withLock { open[uploadID] = upload }
            return upload.parts.indices.map { part in partJob(upload, part: part, index: index) }
        }
    }

    /// Sends one part; the job that sends the last one completes the upload.
    private func partJob(_ upload: MultipartFileUpload, part: Int, index: Int) -> Job {
        Job { [self] () throws(UploadError) in
            let item = upload.item
            let eTag = try client.uploadPart(item.key, uploadID: upload.uploadID, partNumber: part + 1, of: upload.parts.count,
                                             file: item.path, range: upload.parts[part], cancellation: cancellation)
            guard let eTags = upload.record(eTag, forPartAt: part) else { return [] }
            try complete(upload, eTags: eTags)
            lock.withLock { open[upload.uploadID] = nil }
            finished(item, at: index, multipart: true)
            return []
        }
    }

    /// CompleteMultipartUpload. When it finds the upload gone (NoSuchUpload: an earlier attempt
    /// did complete it, and only its answer was lost), the object itself is checked: for a
    /// content-addressed file, an object under its key with its size is the file.
    private func complete(_ upload: MultipartFileUpload, eTags: [String]) throws(UploadError) {
        do {
            try client.completeMultipartUpload(upload.item.key, uploadID: upload.uploadID, partETags: eTags, cancellation: cancellation)
        } catch {
            guard case .rejected(_, _, _, 404, "NoSuchUpload", _) = error, upload.item.isImmutable,
                  let object = try? client.headObject(upload.item.key, cancellation: cancellation),
                  object.size == upload.item.size else { throw error }
        }
    }

    private func finished(_ item: UploadPlan.Item, at index: Int, multipart: Bool) {
        lock.withLock {
            uploaded.append((index, item.key))
            bytesUploaded += item.size
            if multipart { multipartCount += 1 }
            progress(.uploaded(item))
        }
    }

    /// Aborts every multipart upload still open after `failure`; returns the error to throw:
    /// `failure`, wrapped in `.multipartLeftOpen` for each upload that could not be aborted.
    func abortOpenUploads(after failure: UploadError) -> UploadError {
        let uploads = lock.withLock { open.values.sorted { $0.item.key < $1.item.key } }
        var result = failure
        for upload in uploads {
            do {
                try client.abortMultipartUpload(upload.item.key, uploadID: upload.uploadID)
                lock.withLock {
                    open[upload.uploadID] = nil
                    progress(.aborted(key: upload.item.key, uploadID: upload.uploadID))
                }
            } catch {
                result = .multipartLeftOpen(cause: result, key: upload.item.key, uploadID: upload.uploadID, abortError: error)
            }
        }
        return result
    }
}
