import Foundation
import TestSupport
import Testing

/// `assetpack upload` against moto_server on loopback: parallel jobs, multipart options, and
/// their validation.
@Suite struct UploadCLITests {
    let credentials = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"]

    @Test func uploadsInPartsWithJobsAndReadsBackTheSameBytes() async throws {
        let moto = try MotoServer()
        let repo = try TemporaryDirectory("cli-upload")
        let big = patternBytes(11 << 20, seed: 3)
        try repo.write("packs/a/big.pack", big)
        for i in 0..<6 { try repo.write("packs/b/\(i).pack", patternBytes(1000 + i, seed: UInt64(i))) }
        try repo.write("catalog.json", Array("{}".utf8))
        let args = ["upload", repo.path, "s3://cli-bucket/prod", "--endpoint", moto.endpoint, "--create-bucket",
                    "--jobs", "3", "--multipart-threshold", "6MiB", "--part-size", "5MiB"]

        let dryRun = try await Assetpack.run(args + ["--dry-run"], environment: credentials)
        #expect(dryRun.status == 0)
        #expect(dryRun.stdout.contains("prod/packs/a/big.pack  \(11 << 20) bytes") && dryRun.stdout.contains("multipart: 3 parts"))

        let run = try await Assetpack.run(args, environment: credentials)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("uploaded prod/packs/a/big.pack (11.5 MB, 3 parts)"))
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 9 && lines[7] == "uploaded prod/catalog.json (2 B)", "catalog last:\n\(run.stdout)")
        #expect(lines.last?.hasPrefix("8 uploaded (11.5 MB)") == true)

        let fetched = repo.file("fetched.bin")
        let fetch = try await Assetpack.run(["fetch", "\(moto.endpoint)/cli-bucket/prod/packs/a/big.pack", "-o", fetched])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: fetched))) == big)

        let again = try await Assetpack.run(args, environment: credentials)
        #expect(again.stdout.contains("skipped  prod/packs/a/big.pack"))
    }

    @Test func badJobsAndSizesAreUsageErrors() async throws {
        let repo = try TemporaryDirectory("cli-upload-usage")
        try repo.write("catalog.json", Array("{}".utf8))
        let base = ["upload", repo.path, "s3://bucket/x", "--endpoint", "http://127.0.0.1:9", "--dry-run"]
        for (extra, message) in [(["--jobs", "0"], "--jobs must be from 1 to 64, got 0"),
                                 (["--jobs", "many"], "--jobs takes"),
                                 (["--part-size", "4MiB"], "outside S3's limits (5 MiB to 5 GiB)"),
                                 (["--part-size", "16 XB"], "--part-size takes a size"),
                                 (["--multipart-threshold", "6GiB"], "outside 1 byte to 5 GiB")] {
            let result = try await Assetpack.run(base + extra, environment: credentials)
            #expect(result.status == 2, "\(extra)")
            #expect(result.stderr.contains(message), "\(extra): \(result.stderr)")
        }
        #expect(try await Assetpack.run(base + ["-j", "8", "--part-size", "32m", "--multipart-threshold", "1g"], environment: credentials).status == 0)
    }
}
