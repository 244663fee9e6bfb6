import Foundation

/// A self-signed certificate for 127.0.0.1 (SAN IP:127.0.0.1), made with the openssl CLI. It is
/// its own CA: pass `certificatePath` as the CA file to trust it.
public struct SelfSignedCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String

    public init(in directory: TemporaryDirectory) throws {
        certificatePath = directory.file("cert.pem")
        keyPath = directory.file("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", keyPath, "-out", certificatePath, "-days", "2", "-subj", "/CN=127.0.0.1",
                             "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TestSupportError("openssl req failed (\(openssl.terminationStatus))") }
    }
}
