import AssetPackTransport
import AssetPackUpload
import Foundation
import TestSupport
import Testing

/// Uploads to moto_server (an S3 endpoint) on loopback and reads back what the store holds.
@Suite struct S3UploadTests {
    let moto: MotoServer
    let transport: CurlTransport
    let credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
    let quickRetries = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(20), maxDelay: .milliseconds(40))

    init() throws {
        moto = try MotoServer()
        transport = try CurlTransport()
    }

    func client(bucket: String) throws -> S3Client {
        try S3Client(endpoint: moto.endpoint, bucket: bucket, credentials: credentials, region: "us-east-1",
                     transport: transport, retryPolicy: quickRetries)
    }

    func repository(packA: [UInt8], packB: [UInt8]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("repo")
        try dir.write("packs/aa/\(packA.count)-a.pack", packA)
        try dir.write("packs/bb/\(packB.count)-b.pack", packB)
        try dir.write("catalog.json", Array(#"{"version": 1}"#.utf8))
        return dir
    }

    @Test func uploadsPacksThenCatalogWithHeadersAndServesRanges() throws {
        let s3 = try client(bucket: "assets")
        try s3.createBucket()
        try s3.createBucket() // already ours: fine
        let packA = patternBytes(200_000, seed: 1), packB = patternBytes(70_000, seed: 2)
        let repo = try repository(packA: packA, packB: packB)
        let location = try S3Location(parsing: "s3://assets/prod")
        let plan = try UploadPlan(directory: repo.path, location: location)
        let report = try RepositoryUploader(client: s3).upload(plan)

        let aKey = "prod/packs/aa/200000-a.pack", bKey = "prod/packs/bb/70000-b.pack"
        #expect(report.uploaded == [aKey, bKey, "prod/catalog.json"], "catalog last")
        #expect(report.skipped.isEmpty)
        #expect(report.bytesUploaded == UInt64(200_000 + 70_000 + 14))

        #expect(try s3.getObject(aKey).body == packA)
        #expect(try s3.getObject(bKey).body == packB)
        let packInfo = try #require(try s3.headObject(aKey))
        #expect(packInfo.size == 200_000)
        #expect(packInfo.contentType == "application/octet-stream")
        #expect(packInfo.cacheControl == "public, max-age=31536000, immutable")
        let catalogInfo = try #require(try s3.headObject("prod/catalog.json"))
        #expect(catalogInfo.contentType == "application/json")
        #expect(catalogInfo.cacheControl == "public, max-age=60")
        #expect(try s3.getObject("prod/catalog.json").body == Array(#"{"version": 1}"#.utf8))

        let range = try #require(ByteRange(offset: 123_456, length: 1000))
        let partial = try s3.getObject(aKey, range: range)
        #expect(partial.status == 206)
        #expect(partial.body == Array(packA[123_456..<124_456]))
    }

    /// Channels go up after the packs and before the default catalog, cached briefly like it.
    @Test func channelCatalogsGoUpAfterThePacksAndBeforeTheCatalog() throws {
        let s3 = try client(bucket: "channels")
        try s3.createBucket()
        let repo = try repository(packA: patternBytes(3000, seed: 8), packB: patternBytes(4000, seed: 9))
        try repo.write("channels/beta/catalog.json", Array(#"{"beta": 1}"#.utf8))
        try repo.write("channels/beta/history/1.catalog.json", Array(#"{"beta": 1}"#.utf8))
        let report = try RepositoryUploader(client: s3).upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "channels")))
        #expect(report.uploaded == ["channels/beta/history/1.catalog.json", "packs/aa/3000-a.pack", "packs/bb/4000-b.pack",
                                    "channels/beta/catalog.json", "catalog.json"])
        let beta = try #require(try s3.headObject("channels/beta/catalog.json"))
        #expect(beta.cacheControl == "public, max-age=60" && beta.contentType == "application/json")
        #expect(try s3.headObject("channels/beta/history/1.catalog.json")?.cacheControl == "public, max-age=31536000, immutable")
        #expect(try s3.getObject("channels/beta/catalog.json").body == Array(#"{"beta": 1}"#.utf8))
    }

    @Test func reuploadSkipsPacksAlreadyThereAndReplacesTheCatalog() throws {
        let s3 = try client(bucket: "again")
        try s3.createBucket()
        let repo = try repository(packA: patternBytes(1000, seed: 5), packB: patternBytes(2000, seed: 6))
        let plan = try UploadPlan(directory: repo.path, location: S3Location(bucket: "again"))
        try RepositoryUploader(client: s3).upload(plan)

        try repo.write("catalog.json", Array(#"{"version": 2}"#.utf8))
        try repo.write("packs/cc/3000-c.pack", patternBytes(3000, seed: 7))
        let second = try RepositoryUploader(client: s3).upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "again")))
        #expect(second.skipped == ["packs/aa/1000-a.pack", "packs/bb/2000-b.pack"])
        #expect(second.uploaded == ["packs/cc/3000-c.pack", "catalog.json"])
        #expect(try s3.getObject("catalog.json").body == Array(#"{"version": 2}"#.utf8))
        #expect(try s3.getObject("packs/cc/3000-c.pack").body == patternBytes(3000, seed: 7))
    }

    @Test func missingBucketNamesTheObjectStatusAndS3Code() throws {
        let s3 = try client(bucket: "no-such-bucket")
        let repo = try repository(packA: [1], packB: [2])
        do {
            try RepositoryUploader(client: s3).upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "no-such-bucket")))
            Issue.record("upload into a missing bucket succeeded")
        } catch {
            guard case .rejected(_, let key, _, let status, let code, _) = error else { Issue.record("wrong error: \(error)"); return }
            #expect(["packs/aa/1-a.pack", "packs/bb/1-b.pack"].contains(key), "stops at a pack file, before the catalog")
            #expect(status == 404)
            #expect(code == "NoSuchBucket")
            #expect("\(error)".contains("NoSuchBucket") && "\(error)".contains(key))
        }
    }

    @Test func wrongEndpointIsAClearConnectionError() throws {
        let port = try freeLoopbackPort()
        let s3 = try S3Client(endpoint: "http://127.0.0.1:\(port)", bucket: "assets", credentials: credentials, region: "us-east-1",
                              transport: transport, retryPolicy: quickRetries)
        let repo = try repository(packA: [1], packB: [2])
        do {
            try RepositoryUploader(client: s3).upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "assets")))
            Issue.record("upload to a closed port succeeded")
        } catch {
            guard case .transport(let operation, let key, let underlying) = error, case .connection = underlying else {
                Issue.record("wrong error: \(error)")
                return
            }
            #expect(operation == "HEAD" && ["packs/aa/1-a.pack", "packs/bb/1-b.pack"].contains(key))
            #expect("\(error)".contains("127.0.0.1:\(port)"))
        }
        #expect(throws: UploadError.self) {
            try S3Client(endpoint: "ftp://example.com", bucket: "assets", credentials: credentials, region: "us-east-1", transport: transport)
        }
    }

    @Test func sessionTokenAndOddKeysRoundTrip() throws {
        let temporary = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing", sessionToken: "token-123")
        let s3 = try S3Client(endpoint: moto.endpoint + "/", bucket: "odd", credentials: temporary, region: "us-east-1",
                              transport: transport, retryPolicy: quickRetries)
        try s3.createBucket()
        let dir = try TemporaryDirectory("odd")
        let path = try dir.write("a file+name ü.bin", [4, 5, 6])
        try s3.putObject("packs/a file+name ü.bin", file: path, contentType: "application/octet-stream", cacheControl: "no-cache")
        #expect(s3.url(for: "packs/a file+name ü.bin").hasSuffix("/odd/packs/a%20file%2Bname%20%C3%BC.bin"))
        #expect(try s3.getObject("packs/a file+name ü.bin").body == [4, 5, 6])
    }
}

/// moto checking SigV4 signatures: proves libcurl's signing (with the UNSIGNED-PAYLOAD header
/// and a streamed file body) is what S3 expects, and that a wrong secret is refused.
@Suite struct SignatureTests {
    @Test func signedUploadIsAcceptedAndAWrongSecretIsRefused() throws {
        let moto = try MotoServer(checkingSignatures: true)
        let user = try #require(moto.credentials)
        let transport = try CurlTransport()
        let quick = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(20), maxDelay: .milliseconds(40))
        let good = try S3Client(endpoint: moto.endpoint, bucket: "signed", credentials: AWSCredentials(accessKeyID: user.accessKeyID, secretAccessKey: user.secretAccessKey),
                                region: "us-east-1", transport: transport, retryPolicy: quick)
        try good.createBucket()
        let repo = try TemporaryDirectory("signed")
        try repo.write("packs/p.pack", patternBytes(100_000, seed: 9))
        try repo.write("catalog.json", Array("{}".utf8))
        let report = try RepositoryUploader(client: good).upload(UploadPlan(directory: repo.path, location: S3Location(bucket: "signed")))
        #expect(report.uploaded == ["packs/p.pack", "catalog.json"])
        #expect(try good.getObject("packs/p.pack").body == patternBytes(100_000, seed: 9))

        let bad = try S3Client(endpoint: moto.endpoint, bucket: "signed", credentials: AWSCredentials(accessKeyID: user.accessKeyID, secretAccessKey: "wrong"),
                               region: "us-east-1", transport: transport, retryPolicy: quick)
        #expect { try bad.putObject("x", file: repo.file("catalog.json"), contentType: "application/json", cacheControl: "no-cache") } throws: { error in
            guard case UploadError.rejected(_, _, _, let status, let code, _) = error else { return false }
            return status == 403 && code == "SignatureDoesNotMatch"
        }
    }
}
