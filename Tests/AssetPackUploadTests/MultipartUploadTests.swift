import AssetPackTransport
import AssetPackUpload
import Foundation
import TestSupport
import Testing

/// Multipart and parallel uploads to moto_server on loopback. The first test runs against a
/// moto that checks SigV4 signatures, so that the POSTs, part PUTs (with their SHA-256 payload
/// hash), DELETE and listing are shown to be signed as S3 expects; the others use a moto that
/// accepts any credentials (it starts in 1 s instead of 4). Parts are 5 MiB, S3's (and moto's)
/// smallest, and files of 6 MiB or more go up in parts.
@Suite struct MultipartUploadTests {
    let curl: CurlTransport
    let quickRetries = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(20), maxDelay: .milliseconds(40))
    let policy = try! MultipartPolicy(threshold: 6 << 20, minimumPartSize: 5 << 20)
    static let bigSize = 12 << 20
    /// Made once: generating 12 MiB of pattern bytes takes a while in a debug build.
    static let bigContent = patternBytes(bigSize, seed: 11)

    init() throws {
        curl = try CurlTransport()
    }

    /// A client of `moto` for `bucket` (created through the plain transport first), with the
    /// credentials moto checks if it does, sending through `transport`.
    func client(_ moto: MotoServer, _ bucket: String, transport: (any HTTPTransport)? = nil) throws -> S3Client {
        let user = moto.credentials ?? (accessKeyID: "testing", secretAccessKey: "testing")
        func make(_ transport: any HTTPTransport) throws -> S3Client {
            try S3Client(endpoint: moto.endpoint, bucket: bucket, credentials: AWSCredentials(accessKeyID: user.accessKeyID, secretAccessKey: user.secretAccessKey),
                         region: "us-east-1", transport: transport, retryPolicy: quickRetries)
        }
        try make(curl).createBucket()
        return try make(transport ?? curl)
    }

    /// packs/big.pack (12 MiB: parts of 5, 5 and 2 MiB), packs/small.pack, catalog.json.
    func repository() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("multipart")
        try dir.write("packs/big.pack", Self.bigContent)
        try dir.write("packs/small.pack", patternBytes(50_000, seed: 12))
        try dir.write("catalog.json", Array(#"{"version": 1}"#.utf8))
        return dir
    }

    @Test func aLargeFileGoesUpInPartsAndArrivesByteIdentical() throws {
        let moto = try MotoServer(checkingSignatures: true)
        let s3 = try client(moto, "parts")
        let repo = try repository()
        let plan = try UploadPlan(directory: repo.path, location: S3Location(bucket: "parts"))
        let uploader = RepositoryUploader(client: s3, options: try UploadOptions(jobs: 3, multipart: policy))
        let report = try uploader.upload(plan)
        #expect(report.uploaded == ["packs/big.pack", "packs/small.pack", "catalog.json"])
        #expect(report.multipartCount == 1)

        #expect(try s3.getObject("packs/big.pack").body == Self.bigContent)
        let info = try #require(try s3.headObject("packs/big.pack"))
        #expect(info.size == UInt64(Self.bigSize))
        #expect(info.eTag?.hasSuffix("-3\"") == true, "an object assembled from 3 parts: \(info.eTag ?? "no ETag")")
        #expect(info.contentType == "application/octet-stream")
        #expect(info.cacheControl == "public, max-age=31536000, immutable")
        #expect(try s3.listMultipartUploads().isEmpty)

        let again = try uploader.upload(plan)
        #expect(again.skipped == ["packs/big.pack", "packs/small.pack"])
        #expect(again.uploaded == ["catalog.json"])

        let started = try s3.createMultipartUpload("packs/later.pack", contentType: "application/octet-stream", cacheControl: "no-cache")
        // (A prefix without "/": moto's signature check decodes %2F in a query before it compares
        // signatures, and so refuses what S3 accepts — boto3's own requests included.)
        #expect(try s3.listMultipartUploads(prefix: "packs") == [S3MultipartUpload(key: "packs/later.pack", uploadID: started)])
        try s3.abortMultipartUpload("packs/later.pack", uploadID: started)
        #expect(try s3.listMultipartUploads().isEmpty)
    }

    @Test func aFailingPartAbortsTheUploadLeavingNoPartsAndNoCatalog() throws {
        let moto = try MotoServer()
        let setup = try client(moto, "failing")
        // Part 2 never gets through: a connection error on every attempt (a transient error, so it is retried first).
        let faulty = FaultInjectingTransport(wrapping: curl) { request in
            request.url.contains("partNumber=2&") ? .failure(.connection(url: request.url, message: "injected: connection refused")) : nil
        }
        let s3 = try client(moto, "failing", transport: faulty)
        let repo = try repository()
        let aborted = LockedList<String>()
        do {
            try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 2, multipart: policy))
                .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "failing"))) { event in
                    if case .aborted(let key, _) = event { aborted.append(key) }
                }
            Issue.record("the upload succeeded although part 2 failed")
        } catch {
            guard case .transport(let operation, let key, let underlying) = error, case .connection = underlying else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(key == "packs/big.pack")
            #expect(operation.hasPrefix("UploadPart 2 of 3"))
            #expect("\(error)".contains("injected: connection refused"))
        }
        #expect(faulty.injectedRequests.count == 2, "part 2 was tried twice (the retry policy's attempts)")
        #expect(aborted.items == ["packs/big.pack"])
        #expect(try setup.listMultipartUploads().isEmpty, "no upload (and so no part) left behind")
        #expect(try setup.headObject("packs/big.pack") == nil)
        #expect(try setup.headObject("catalog.json") == nil, "the catalog is never uploaded after a failure")
    }

    @Test func cancellingMidwayAbortsTheMultipartUpload() throws {
        let moto = try MotoServer()
        let setup = try client(moto, "cancelled")
        let flag = CancellationFlag()
        // The caller cancels (as the CLI does on SIGINT) when part 2 is about to be sent.
        let watcher = FaultInjectingTransport(wrapping: curl) { request in
            if request.url.contains("partNumber=2&") { flag.cancel() }
            return nil
        }
        let s3 = try client(moto, "cancelled", transport: watcher)
        let repo = try repository()
        let aborted = LockedList<String>()
        #expect {
            try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 1, multipart: policy))
                .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "cancelled")), cancellation: flag) { event in
                    if case .aborted(let key, _) = event { aborted.append(key) }
                }
        } throws: { error in
            guard case UploadError.transport(let operation, _, .cancelled) = error else { return false }
            return operation.hasPrefix("UploadPart 2 of 3")
        }
        #expect(aborted.items == ["packs/big.pack"])
        #expect(try setup.listMultipartUploads().isEmpty)
        #expect(try setup.headObject("catalog.json") == nil)
    }

    @Test func aCompleteAnsweredWith200AndAnErrorDocumentIsAFailure() throws {
        let moto = try MotoServer()
        let setup = try client(moto, "complete")
        let errorDocument = Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            \n  <Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>
            """.utf8)
        let faulty = FaultInjectingTransport(wrapping: curl) { request in
            guard request.method == .post, request.url.contains("?uploadId=") else { return nil }
            return .success(HTTPResponse(status: 200, headers: HTTPHeaders(), body: errorDocument, bodyByteCount: UInt64(errorDocument.count),
                                         url: request.url, redirectURL: nil, httpVersion: "1.1", newConnectionCount: 0))
        }
        let s3 = try client(moto, "complete", transport: faulty)
        let repo = try repository()
        #expect {
            try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 4, multipart: policy))
                .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "complete")))
        } throws: { error in
            guard case UploadError.rejected(let operation, let key, _, let status, let code, _) = error else { return false }
            return operation == "CompleteMultipartUpload" && key == "packs/big.pack" && status == 200 && code == "InternalError"
        }
        #expect(faulty.injectedRequests.count == 2, "InternalError means 'try again': retried")
        #expect(try setup.listMultipartUploads().isEmpty)
        #expect(try setup.headObject("packs/big.pack") == nil)
        #expect(try setup.headObject("catalog.json") == nil)
    }

    @Test func aCompleteWhoseAnswerWasLostIsRecognisedByTheObjectItCreated() throws {
        let moto = try MotoServer()
        let isComplete: @Sendable (HTTPRequest) -> Bool = { $0.method == .post && $0.url.contains("?uploadId=") }
        // The first Complete is served but its answer lost; the retry is answered as S3 may
        // answer it, the upload being gone: 404 NoSuchUpload (moto itself would answer 200).
        let losing = AnswerLosingTransport(wrapping: curl, losingTheFirstAnswerTo: isComplete)
        let completes = LockedList<String>()
        let noSuchUpload = Array("<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>".utf8)
        let faulty = FaultInjectingTransport(wrapping: losing) { request in
            guard isComplete(request) else { return nil }
            completes.append(request.url)
            guard completes.items.count > 1 else { return nil }
            return .success(HTTPResponse(status: 404, headers: HTTPHeaders(), body: noSuchUpload, bodyByteCount: UInt64(noSuchUpload.count),
                                         url: request.url))
        }
        let s3 = try client(moto, "lost", transport: faulty)
        let repo = try repository()
        let report = try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 2, multipart: policy))
            .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "lost")))
        #expect(faulty.injectedRequests.count == 1, "the retried Complete got NoSuchUpload")
        #expect(report.uploaded == ["packs/big.pack", "packs/small.pack", "catalog.json"])
        #expect(try s3.getObject("packs/big.pack").body == Self.bigContent)

        // A NoSuchUpload with no object of the file's size behind it stays a failure.
        try repo.write("packs/other.pack", patternBytes(7 << 20, seed: 13))
        let alwaysGone = FaultInjectingTransport(wrapping: curl) { request in
            isComplete(request) ? .success(HTTPResponse(status: 404, headers: HTTPHeaders(), body: noSuchUpload,
                                                        bodyByteCount: UInt64(noSuchUpload.count), url: request.url)) : nil
        }
        #expect {
            try RepositoryUploader(client: try client(moto, "lost", transport: alwaysGone), options: try UploadOptions(jobs: 2, multipart: policy))
                .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "lost")))
        } throws: { error in
            guard case UploadError.rejected(let operation, let key, _, 404, "NoSuchUpload", _) = error else { return false }
            return operation == "CompleteMultipartUpload" && key == "packs/other.pack"
        }
    }

    @Test func manyFilesGoUpInParallelAndTheCatalogOnlyAfterAllOfThem() throws {
        let recorder = RecordingTransport(wrapping: curl, holdFirstRequest: true)
        let moto = try MotoServer()
        let s3 = try client(moto, "parallel", transport: recorder)
        let repo = try TemporaryDirectory("parallel")
        for i in 0..<24 { try repo.write("packs/p\(i / 8)/\(i).pack", patternBytes(20_000 + i, seed: UInt64(i))) }
        try repo.write("packs/big.pack", Self.bigContent)
        try repo.write("catalog.json.sig", [1, 2, 3])
        try repo.write("catalog.json", Array("{}".utf8))
        let report = try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 4, multipart: policy))
            .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "parallel")))
        #expect(report.uploaded.count == 27)
        #expect(recorder.mostInFlight >= 2, "requests overlapped")

        let log = recorder.log
        func position(_ event: RecordingTransport.Event) throws -> Int { try #require(log.firstIndex(of: event)) }
        let catalogStart = try position(.started("PUT \(s3.url(for: "catalog.json"))"))
        let signatureStart = try position(.started("PUT \(s3.url(for: "catalog.json.sig"))"))
        let signatureEnd = try position(.ended("PUT \(s3.url(for: "catalog.json.sig"))"))
        #expect(catalogStart == log.count - 2, "catalog.json is the last request")
        #expect(signatureEnd < catalogStart)
        for (index, event) in log.enumerated() {
            guard case .ended(let request) = event, request.contains("/packs/") else { continue }
            #expect(index < signatureStart, "\(request) ended before the top-level files started")
        }
        for i in [0, 9, 23] {
            #expect(try s3.getObject("packs/p\(i / 8)/\(i).pack").body == patternBytes(20_000 + i, seed: UInt64(i)))
        }
        #expect(try s3.getObject("packs/big.pack").body == Self.bigContent)
    }

    @Test func oneJobSendsOneRequestAtATime() throws {
        let recorder = RecordingTransport(wrapping: curl)
        let moto = try MotoServer()
        let s3 = try client(moto, "serial", transport: recorder)
        let repo = try repository()
        try RepositoryUploader(client: s3, options: try UploadOptions(jobs: 1, multipart: policy))
            .upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "serial")))
        #expect(recorder.mostInFlight == 1)
        #expect(try s3.getObject("packs/big.pack").body == Self.bigContent)
    }
}

/// A list appended to from several threads.
final class LockedList<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [T] = []
    func append(_ item: T) { lock.withLock { storage.append(item) } }
    var items: [T] { lock.withLock { storage } }
}
