import AssetPackFormat

/// How an upload runs: how many transfers at once, and when and how files are cut into parts.
public struct UploadOptions: Sendable, Equatable {
    public static let maximumJobs = SettingBounds.uploadJobs.upperBound

    /// Files (and parts of large files) in flight at once.
    public var jobs: Int
    public var multipart: MultipartPolicy

    /// Throws `.invalidOption` when `jobs` is outside 1…64.
    public init(jobs: Int = 4, multipart: MultipartPolicy = .standard) throws(UploadError) {
        if let problem = SettingBounds.problem("jobs", jobs, in: SettingBounds.uploadJobs) {
            throw .invalidOption(problem)
        }
        self.init(checkedJobs: jobs, multipart: multipart)
    }

    private init(checkedJobs jobs: Int, multipart: MultipartPolicy) {
        self.jobs = jobs
        self.multipart = multipart
    }

    /// 4 jobs, multipart from 64 MiB in 16 MiB parts.
    public static let standard = UploadOptions(checkedJobs: 4, multipart: .standard)
}
