import Foundation

/// Varnish (the Debian package `varnish`) on 127.0.0.1 in front of an origin on loopback, with
/// a VCL given by the test (its `backend` block's port replaced by the origin's). Runs in the
/// foreground as the current user (`-j none`), with no management port and its working folder
/// in a temporary directory. Stopped in deinit.
public final class VarnishServer: @unchecked Sendable {
    public let port: UInt16
    private let work: TemporaryDirectory
    private let process: ServerProcess

    /// `vcl` must name one backend at `127.0.0.1` with `.port = "BACKEND_PORT"`; the port becomes
    /// `originPort`.
    public init(vcl: String, backendPort: String, originPort: UInt16, storage: String = "malloc,256m") throws {
        guard let varnishd = ["/usr/sbin/varnishd", "/usr/local/sbin/varnishd"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError("varnishd is not installed: run scripts/install-deps.sh (Debian package varnish)")
        }
        let work = try TemporaryDirectory("varnish")
        self.work = work
        let placeholder = ".port = \"\(backendPort)\""
        guard vcl.contains(placeholder) else { throw TestSupportError("the VCL has no backend with \(placeholder)") }
        let file = try work.write("edge.vcl", Array(vcl.replacingOccurrences(of: placeholder, with: ".port = \"\(originPort)\"").utf8))
        (port, process) = try ServerProcess.withFreePort { port in
            let process = try ServerProcess([varnishd, "-F", "-j", "none", "-T", "none", "-a", "127.0.0.1:\(port)", "-f", file,
                                             "-n", work.file("instance"), "-s", storage],
                                            port: port, logPath: work.file("varnishd.log"))
            return (port, process)
        }
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)" }

    public func stop() { process.stop() }
}
