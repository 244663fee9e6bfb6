import ArgumentParsing
import AssetPackFormat
import AssetPackTransport
import AssetPackUpload
import Foundation

struct UploadCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "upload",
            abstract: "Upload a repository folder to an S3-compatible store, catalog last.",
            discussion: """
            Uploads every file under DIR as PREFIX/<relative path>, with path-style URLs (ENDPOINT/BUCKET/KEY) \
            signed with AWS SigV4. Pack files (everything in subfolders) go first with \
            'Cache-Control: public, max-age=31536000, immutable' and are skipped when an object of the same \
            size exists; then each channel's catalog (channels/NAME/catalog.json); catalog.json goes last, \
            only once every other file is stored (then timestamp.json); the catalogs with \
            'Cache-Control: public, max-age=60', so readers never see a catalog naming a missing file. \
            --jobs transfers run at once. Files of --multipart-threshold bytes or more go up as multipart \
            uploads in parts of --part-size (larger for files that would need more than 10,000 parts), each \
            part's SHA-256 signed; on failure the upload stops before the catalog and aborts the multipart \
            uploads it began. Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, optional \
            AWS_SESSION_TOKEN. Region: --region, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1.
            """)
    }

    @Argument("DIR")
    var directory: String
    @Argument("s3://BUCKET/PREFIX")
    var destination: String
    @Option("--endpoint", value: "URL", help: "The store's endpoint, e.g. http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com (required).")
    var endpoint: String
    @Option("--region", value: "REGION", help: "The signing region (default: $AWS_REGION, $AWS_DEFAULT_REGION or us-east-1).")
    var region: String?
    @Option("--ca", value: "FILE", help: "Trust the CA certificates in FILE instead of the system's.")
    var caFile: String?
    @Option("--jobs", "-j", value: "N", help: "Transfers (files, parts of large files) in flight at once (default: 4).",
            range: SettingBounds.uploadJobs)
    var jobs: Int?
    @Option("--multipart-threshold", value: "SIZE", help: "Files of SIZE or more use a multipart upload, e.g. 64MiB (default: 64MiB, at most 5GiB).")
    var multipartThreshold: ByteSize?
    @Option("--part-size", value: "SIZE", help: "Size of each part but the last, 5MiB–5GiB (default: 16MiB).")
    var partSize: ByteSize?
    @Flag("--create-bucket", help: "Create the bucket first if it does not exist.")
    var createBucket: Bool
    @Flag("--dry-run", help: "Print the plan (keys, order, headers) without contacting the store.")
    var dryRun: Bool

    init() {}

    func run() throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let region = self.region ?? [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
        let options = try uploadOptions()
        do {
            let location = try S3Location(parsing: destination)
            let plan = try UploadPlan(directory: directory, location: location)
            if dryRun {
                for item in plan.items {
                    let parts = options.multipart.usesMultipart(forFileSize: item.size) ? "  multipart: \(options.multipart.parts(forFileSize: item.size).count) parts" : ""
                    print("\(item.isImmutable ? "put-if-absent" : "put          ") \(item.key)  \(item.size) bytes  \(item.contentType)  \(item.cacheControl)\(parts)")
                }
                return 0
            }
            guard let credentials = AWSCredentials(environment: environment) else { throw UploadError.missingCredentials }
            let transport: CurlTransport
            do { transport = try CurlTransport(caFile: caFile) } catch { throw CLIError.failure("\(error)") }
            let client = try S3Client(endpoint: endpoint, bucket: location.bucket, credentials: credentials, region: region, transport: transport)
            if createBucket { try client.createBucket() }
            let report = try RepositoryUploader(client: client, options: options).upload(plan, cancellation: interruptionFlag()) { event in
                switch event {
                case .uploaded(let item):
                    let parts = options.multipart.usesMultipart(forFileSize: item.size) ? ", \(options.multipart.parts(forFileSize: item.size).count) parts" : ""
                    print("uploaded \(item.key) (\(ByteCount.format(item.size))\(parts))")
                case .skipped(let item): print("skipped  \(item.key) (already there, \(ByteCount.format(item.size)))")
                case .aborted(let key, let uploadID): printError("aborted the multipart upload of \(key) (\(uploadID)): its parts are deleted")
                }
            }
            print("\(report.uploaded.count) uploaded (\(ByteCount.format(report.bytesUploaded))), \(report.skipped.count) skipped, to \(client.url(for: location.key(for: "")))")
            return 0
        } catch let error as UploadError {
            throw CLIError.failure("\(error)")
        }
    }

    /// --jobs, --multipart-threshold and --part-size, checked (a bad value is a usage error).
    private func uploadOptions() throws(CLIError) -> UploadOptions {
        var jobs = UploadOptions.standard.jobs
        if let n = self.jobs { jobs = n }
        let threshold = multipartThreshold?.bytes ?? MultipartPolicy.standard.threshold
        let partSize = self.partSize?.bytes ?? MultipartPolicy.standard.minimumPartSize
        do throws(UploadError) {
            return try UploadOptions(jobs: jobs, multipart: MultipartPolicy(threshold: threshold, minimumPartSize: partSize))
        } catch {
            throw .usage("\(error)")
        }
    }
}

/// A flag set at the first SIGINT or SIGTERM, so that an interrupted upload aborts its multipart
/// uploads before it exits; a second signal exits at once (status 130). The signals are blocked
/// here, before any worker thread exists (threads inherit the mask), and taken by one thread
/// with sigwait.
private func interruptionFlag() -> CancellationFlag {
    let flag = CancellationFlag()
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    let watched = signals
    let watcher = Thread {
        var signals = watched, received: Int32 = 0
        sigwait(&signals, &received)
        printError("interrupted: stopping the upload and aborting its multipart uploads (signal again to exit at once)")
        flag.cancel()
        sigwait(&signals, &received)
        exit(130)
    }
    watcher.start()
    return flag
}
