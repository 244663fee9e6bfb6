import Foundation

/// nginx (the Debian package) serving `root` on 127.0.0.1, with a configuration written for
/// the test: plain HTTP, or HTTPS with HTTP/2 when a certificate is given. Stopped in deinit.
public final class NginxServer: @unchecked Sendable {
    public let port: UInt16
    public let scheme: String
    private let prefix: TemporaryDirectory
    private let process: ServerProcess

    /// The access log, when asked for: a line per response, `URI STATUS BODY_BYTES_SENT RANGE`.
    public let accessLogPath: String?

    /// `locations` is extra configuration placed in the server block (e.g. `location = /old { return 302 /new; }`).
    public init(root: String, certificate: SelfSignedCertificate? = nil, locations: String = "", accessLog: Bool = false) throws {
        let prefix = try TemporaryDirectory("nginx")
        self.prefix = prefix
        let accessLogPath = accessLog ? prefix.file("access.log") : nil
        self.accessLogPath = accessLogPath
        let logging = accessLogPath.map { "log_format bytes '$request_uri $status $body_bytes_sent $http_range'; access_log \($0) bytes;" }
            ?? "access_log off;"
        scheme = certificate == nil ? "http" : "https"
        for folder in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(atPath: prefix.file("tmp/\(folder)"), withIntermediateDirectories: true)
        }
        (port, process) = try ServerProcess.withFreePort { port in
            let listen = certificate == nil ? "listen 127.0.0.1:\(port);" : "listen 127.0.0.1:\(port) ssl http2;"
            let tls = certificate.map { "ssl_certificate \($0.certificatePath); ssl_certificate_key \($0.keyPath);" } ?? ""
            let user = geteuid() == 0 ? "user root root;" : ""
            let config = """
            \(user)
            worker_processes 1;
            pid \(prefix.file("nginx.pid"));
            error_log \(prefix.file("error.log")) warn;
            events { worker_connections 512; }
            http {
                \(logging)
                client_body_temp_path \(prefix.file("tmp/body"));
                proxy_temp_path \(prefix.file("tmp/proxy"));
                fastcgi_temp_path \(prefix.file("tmp/fastcgi"));
                uwsgi_temp_path \(prefix.file("tmp/uwsgi"));
                scgi_temp_path \(prefix.file("tmp/scgi"));
                default_type application/octet-stream;
                sendfile on;
                keepalive_requests 10000;
                server {
                    \(listen)
                    \(tls)
                    root \(root);
                    \(locations)
                }
            }
            """
            try Data(config.utf8).write(to: URL(fileURLWithPath: prefix.file("nginx.conf")))
            let process = try ServerProcess(["nginx", "-p", prefix.path, "-e", prefix.file("error.log"), "-c", prefix.file("nginx.conf"),
                                             "-g", "daemon off;"], port: port, logPath: prefix.file("stdout.log"))
            return (port, process)
        }
    }

    public func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)" }

    /// The access log's lines so far, each split into its fields.
    public func accessLog() -> [[String]] {
        guard let accessLogPath, let text = try? String(contentsOfFile: accessLogPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    }

    /// Body bytes sent since the log had `since` lines, by requested path under `prefix` (the
    /// path without its leading `/`).
    public func bodyBytes(since: Int, under prefix: String) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for line in accessLog().dropFirst(since) where line.count >= 3 && line[0].hasPrefix(prefix) {
            out[String(line[0].dropFirst()), default: 0] += UInt64(line[2]) ?? 0
        }
        return out
    }

    public func stop() { process.stop() }
}
