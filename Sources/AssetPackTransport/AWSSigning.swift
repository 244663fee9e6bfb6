/// AWS credentials, as the AWS command-line tools read them from the environment.
public struct AWSCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Set for temporary credentials; sent as `X-Amz-Security-Token`.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// Reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from `environment`;
    /// nil when either of the first two is missing or empty.
    public init?(environment: [String: String]) {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(accessKeyID: key, secretAccessKey: secret, sessionToken: token)
    }
}

/// Signs a request with AWS Signature Version 4, computed by libcurl (CURLOPT_AWS_SIGV4).
/// The payload is declared `UNSIGNED-PAYLOAD` (header `x-amz-content-sha256`), as S3 allows,
/// so that a file body can be streamed without hashing it first.
public struct AWSSigning: Sendable, Equatable {
    public var credentials: AWSCredentials
    public var region: String
    public var service: String

    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The CURLOPT_AWS_SIGV4 parameter: `aws:amz:REGION:SERVICE`.
    var curlParameter: String { "aws:amz:\(region):\(service)" }
}
