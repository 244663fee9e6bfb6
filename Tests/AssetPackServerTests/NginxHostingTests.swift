import Foundation
import TestRepositories
import TestSupport
import Testing

/// Serves a repository through the nginx configuration documented in docs/HOSTING.md.
@Suite struct NginxHostingTests {
    static let documentedRoot = "/srv/assetpacks/repo"
    static let documentedListen = "127.0.0.1:8080"

    /// The first ```nginx block of docs/HOSTING.md.
    static func documentedServerBlock() throws -> String { try DocumentedBlock.first("nginx", in: "docs/HOSTING.md") }

    static var nginxPath: String? {
        (["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx", "/opt/homebrew/bin/nginx"]).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func documentedConfigurationServesCatalogAndRanges() throws {
        guard let nginx = Self.nginxPath else {
            Issue.record("nginx is not installed: run scripts/install-deps.sh (Debian package nginx-light)")
            return
        }
        let repo = try TestRepository.servingBytes()
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/escape.txt", withDestinationPath: "/etc/hostname")
        let instance = try NginxInstance(nginx: nginx, documented: Self.documentedServerBlock(), root: Self.documentedRoot, listen: Self.documentedListen,
                                         serving: repo)
        defer { instance.stop() }
        let c = try RawHTTPConnection(port: instance.port)
        let catalog = try c.request("/catalog.json")
        repo.expectCatalog(catalog)
        let range = try c.request("/packs/big.pack", headers: ["Range": "bytes=1000-1999"])
        #expect(range.status == 206)
        #expect(range.body == Array(repo.pack[1000...1999]))
        #expect(range.header("Content-Range") == "bytes 1000-1999/\(repo.pack.count)")
        #expect(range.header("Content-Type") == "application/octet-stream")
        #expect(range.header("Cache-Control") == "public, max-age=31536000, immutable")
        let etag = try #require(range.header("ETag"))
        let resumed = try c.request("/packs/big.pack", headers: ["Range": "bytes=-10", "If-Range": etag])
        #expect(resumed.status == 206 && resumed.body == Array(repo.pack.suffix(10)))
        #expect(try c.request("/packs/big.pack", headers: ["Range": "bytes=999999999-"]).status == 416)
        // Kept root versions are cached forever; root.json and timestamp.json for a minute.
        try repo.place("roots/1.root.json", Array("{}".utf8))
        try repo.place("timestamp.json", Array("{}".utf8))
        let kept = try c.request("/roots/1.root.json")
        #expect(kept.status == 200 && kept.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(kept.header("Content-Type") == "application/json")
        #expect(try c.request("/timestamp.json").header("Cache-Control") == "public, max-age=60")
        try Data("x".utf8).write(to: URL(fileURLWithPath: repo.path + "/.staging"))
        #expect(try c.request("/.staging").status == 404)
        #expect(try c.request("/escape.txt").status == 403)
    }
}

/// Serves Apple's self-hosted convention through the nginx configuration documented in
/// docs/HOSTING.md ("Apple devices"), from a repository published with `--apple-base-url`.
@Suite struct NginxAppleHostingTests {
    static let documentedListen = "127.0.0.1:8081"

    @Test func documentedConfigurationAnswersManifestAndArchives() throws {
        guard let nginx = NginxHostingTests.nginxPath else {
            Issue.record("nginx is not installed: run scripts/install-deps.sh (Debian package nginx-light)")
            return
        }
        let repo = try AppleConventionTests.applePublished()
        let instance = try NginxInstance(nginx: nginx, documented: DocumentedBlock.first("nginx", in: "docs/HOSTING.md", after: "### nginx"),
                                         root: NginxHostingTests.documentedRoot, listen: Self.documentedListen, serving: repo)
        defer { instance.stop() }
        let c = try RawHTTPConnection(port: instance.port)
        let all = try c.request("/manifest")
        #expect(all.status == 200 && all.body == repo.contents("apple/manifest.json"))
        #expect(all.header("Content-Type") == "application/json")
        #expect(all.header("Cache-Control") == "public, no-cache")
        #expect(try AppleConventionTests.ids(c.request("/manifest?platform=iOS")) == ["alpha", "gamma"])
        #expect(try AppleConventionTests.ids(c.request("/manifest?x=1&platform=MACOS")) == ["beta", "gamma"])
        #expect(try AppleConventionTests.ids(c.request("/manifest?foo=bar")) == ["alpha", "beta", "gamma"])
        let archive = try #require(repo.contents("apple/assets/alpha"))
        let range = try c.request("/assets/alpha", headers: ["Range": "bytes=100-1099"])
        #expect(range.status == 206 && range.body == Array(archive[100...1099]))
        #expect(range.header("Content-Range") == "bytes 100-1099/\(archive.count)")
        #expect(range.header("Content-Type") == "application/octet-stream")
        #expect(range.header("Cache-Control") == "public, no-cache")
        let etag = try #require(range.header("ETag"))
        #expect(try c.request("/assets/alpha", headers: ["If-None-Match": etag]).status == 304)
        // Nothing else of the repository, nothing hidden, no link out.
        #expect(try c.request("/catalog.json").status == 404)
        #expect(try c.request("/assets/.hidden").status == 404)
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/apple/assets/escape", withDestinationPath: "/etc/hostname")
        #expect(try c.request("/assets/escape").status != 200)
    }
}

struct NginxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An nginx master process on a free loopback port, with every path under `prefix`.
final class NginxInstance {
    let process = Process()
    let port: UInt16
    let prefix: String

    init(nginx: String, prefix: String, serverBlock: (UInt16) -> String) throws {
        self.prefix = prefix
        try FileManager.default.createDirectory(atPath: prefix + "/tmp", withIntermediateDirectories: true)
        port = try freePort()
        // Running as root, nginx would switch workers to "nobody"; keep the current user so the
        // test's files stay readable.
        let user = getuid() == 0 ? "user root;\n" : ""
        let conf = """
        \(user)daemon off;
        worker_processes 1;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log;
        events { worker_connections 256; }
        http {
            access_log \(prefix)/access.log;
            client_body_temp_path \(prefix)/tmp/body;
            proxy_temp_path \(prefix)/tmp/proxy;
            fastcgi_temp_path \(prefix)/tmp/fastcgi;
            uwsgi_temp_path \(prefix)/tmp/uwsgi;
            scgi_temp_path \(prefix)/tmp/scgi;
        \(serverBlock(port))
        }
        """
        try conf.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/error.log"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? blockingWaitUntil("nginx answers on port \(port) or exits", timeout: .seconds(30), interval: .milliseconds(50)) {
            (try? RawHTTPConnection(port: port)) != nil || !process.isRunning
        }
        if process.isRunning, (try? RawHTTPConnection(port: port)) != nil { return }
        stop()
        let log = (try? String(contentsOfFile: prefix + "/error.log", encoding: .utf8)) ?? ""
        throw NginxError("nginx did not start on port \(port): \(log)")
    }

    /// nginx running a documented configuration `block`, its root and listen address (which the
    /// block must name) replaced by `repo`'s folder and a free port.
    convenience init(nginx: String, documented block: String, root: String, listen: String, serving repo: TestRepository) throws {
        #expect(block.contains(root) && block.contains(listen))
        try self.init(nginx: nginx, prefix: repo.dir.file("nginx")) { port in
            block.replacingOccurrences(of: root, with: repo.path).replacingOccurrences(of: listen, with: "127.0.0.1:\(port)")
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// A port that was free a moment ago (the kernel's pick for port 0).
func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw NginxError("no free port: errno \(errno)") }
    return UInt16(bigEndian: address.sin_port)
}
