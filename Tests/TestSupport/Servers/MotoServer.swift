import Foundation

/// moto's S3 endpoint (PyPI `moto[server]`) on 127.0.0.1, in a process of its own. Stopped in
/// deinit. By default it accepts any credentials; with `checkingSignatures` it checks SigV4
/// signatures against an IAM user it creates at start (`credentials`).
public final class MotoServer: @unchecked Sendable {
    public let port: UInt16
    private let logs: TemporaryDirectory
    private let process: ServerProcess

    /// The access key and secret of the IAM user made with `checkingSignatures`.
    public private(set) var credentials: (accessKeyID: String, secretAccessKey: String)?

    public init(checkingSignatures: Bool = false) throws {
        let logs = try TemporaryDirectory("moto")
        self.logs = logs
        // moto checks requests once this many have been made: the three that create the user.
        let environment = checkingSignatures ? ["INITIAL_NO_AUTH_ACTION_COUNT": "3"] : [:]
        (port, process) = try ServerProcess.withFreePort { port in
            (port, try ServerProcess(["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)],
                                     port: port, logPath: logs.file("moto.log"), environment: environment))
        }
        if checkingSignatures { credentials = try createUser() }
    }

    /// Creates an IAM user allowed everything, with boto3 (a dependency of moto).
    private func createUser() throws -> (String, String) {
        let script = """
        import boto3, json
        iam = boto3.client("iam", endpoint_url="\(endpoint)", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
        iam.create_user(UserName="uploader")
        iam.put_user_policy(UserName="uploader", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="uploader")["AccessKey"]
        print(key["AccessKeyId"], key["SecretAccessKey"])
        """
        let python = Process()
        let output = Pipe()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script]
        python.standardOutput = output
        python.standardError = FileHandle.nullDevice
        try python.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard python.terminationStatus == 0, parts.count == 2 else { throw TestSupportError("could not create an IAM user in moto: \(text)") }
        return (String(parts[0]), String(parts[1]))
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public func stop() { process.stop() }
}
