import AssetPackCLI
import AssetPackTransport
import AssetPackUpload
import Foundation

let uploadCommand = CommandSpec(
    name: "upload",
    abstract: "Upload a repository folder to an S3-compatible store, catalog last.",
    arguments: "DIR s3://BUCKET/PREFIX",
    discussion: """
    Uploads every file under DIR as PREFIX/<relative path>, with path-style URLs (ENDPOINT/BUCKET/KEY) \
    signed with AWS SigV4. Pack files (everything in subfolders) go first with \
    'Cache-Control: public, max-age=31536000, immutable' and are skipped when an object of the same \
    size exists; catalog.json goes last with 'Cache-Control: public, max-age=60', so readers never see \
    a catalog naming a missing file. Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, optional \
    AWS_SESSION_TOKEN. Region: --region, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1.
    """,
    options: [
        .option("--endpoint", value: "URL", help: "The store's endpoint, e.g. http://127.0.0.1:9000 or https://s3.eu-west-1.amazonaws.com (required)."),
        .option("--region", value: "REGION", help: "The signing region (default: $AWS_REGION, $AWS_DEFAULT_REGION or us-east-1)."),
        .option("--ca", value: "FILE", help: "Trust the CA certificates in FILE instead of the system's."),
        .flag("--create-bucket", help: "Create the bucket first if it does not exist."),
        .flag("--dry-run", help: "Print the plan (keys, order, headers) without contacting the store."),
    ],
    positionalCount: 2...2
) { args in
    let directory = args.positionals[0]
    let environment = ProcessInfo.processInfo.environment
    let region = args.value("--region") ?? [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]]
        .compactMap { $0 }.first { !$0.isEmpty } ?? "us-east-1"
    let endpoint = try args.required("--endpoint")
    do {
        let location = try S3Location(parsing: args.positionals[1])
        let plan = try UploadPlan(directory: directory, location: location)
        if args.flag("--dry-run") {
            for item in plan.items {
                print("\(item.isImmutable ? "put-if-absent" : "put          ") \(item.key)  \(item.size) bytes  \(item.contentType)  \(item.cacheControl)")
            }
            return 0
        }
        guard let credentials = AWSCredentials(environment: environment) else { throw UploadError.missingCredentials }
        let transport: CurlTransport
        do { transport = try CurlTransport(caFile: args.value("--ca")) } catch { throw CLIError.failure("\(error)") }
        let client = try S3Client(endpoint: endpoint, bucket: location.bucket, credentials: credentials, region: region, transport: transport)
        if args.flag("--create-bucket") { try client.createBucket() }
        let report = try RepositoryUploader(client: client).upload(plan) { event in
            switch event {
            case .uploaded(let item): print("uploaded \(item.key) (\(byteCount(item.size)))")
            case .skipped(let item): print("skipped  \(item.key) (already there, \(byteCount(item.size)))")
            }
        }
        print("\(report.uploaded.count) uploaded (\(byteCount(report.bytesUploaded))), \(report.skipped.count) skipped, to \(client.url(for: location.key(for: "")))")
        return 0
    } catch let error as UploadError {
        throw CLIError.failure("\(error)")
    }
}
