import AssetPackUpload
import Testing

@Suite struct MultipartPolicyTests {
    let mib: UInt64 = 1 << 20

    @Test func partsCoverTheFileInOrderWithOnlyTheLastSmaller() throws {
        let policy = try MultipartPolicy(threshold: 6 * mib, minimumPartSize: 5 * mib)
        #expect(policy.parts(forFileSize: 12 * mib) == [0..<5 * mib, 5 * mib..<10 * mib, 10 * mib..<12 * mib])
        #expect(policy.parts(forFileSize: 10 * mib) == [0..<5 * mib, 5 * mib..<10 * mib])
        #expect(policy.usesMultipart(forFileSize: 6 * mib) && !policy.usesMultipart(forFileSize: 6 * mib - 1))
        #expect(policy.parts(forFileSize: 0) == [0..<0])
    }

    @Test func theStandardPolicyAndHugeFilesStayWithinTenThousandParts() {
        let policy = MultipartPolicy.standard
        #expect(policy.threshold == 64 * mib && policy.minimumPartSize == 16 * mib)
        #expect(policy.partSize(forFileSize: 8 << 30) == 16 * mib)
        for size: UInt64 in [160_000 * mib + 1, 1 << 40, MultipartPolicy.maximumObjectSize] {
            let parts = policy.parts(forFileSize: size)
            #expect(parts.count <= 10_000)
            #expect(parts.first?.count ?? 0 <= Int(MultipartPolicy.maximumPartSize))
            #expect(parts.first?.count ?? 0 > Int(16 * mib))
            #expect(UInt64(parts.first?.count ?? 0) % mib == 0, "a whole number of MiB")
            #expect(parts.last?.upperBound == size)
        }
    }

    @Test func sizesOutsideS3sLimitsAreRefused() {
        #expect(throws: UploadError.self) { try MultipartPolicy(threshold: 64 * mib, minimumPartSize: 5 * mib - 1) }
        #expect(throws: UploadError.self) { try MultipartPolicy(threshold: 64 * mib, minimumPartSize: (5 << 30) + 1) }
        #expect(throws: UploadError.self) { try MultipartPolicy(threshold: 0, minimumPartSize: 16 * mib) }
        #expect(throws: UploadError.self) { try MultipartPolicy(threshold: (5 << 30) + 1, minimumPartSize: 16 * mib) }
        #expect(throws: UploadError.self) { try UploadOptions(jobs: 0) }
        #expect(throws: UploadError.self) { try UploadOptions(jobs: 65) }
        #expect((try? UploadOptions(jobs: 64)) != nil)
    }
}
