import ArgumentParsing
import AssetPackFormat
import AssetPackPublishing
import AssetPackServer
import Foundation

struct ServeCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "serve",
            abstract: "Serve a repository folder over HTTP or HTTPS, optionally with injected faults.",
            discussion: """
            With --manifests M.json... --key KEYFILE it first publishes the manifests into DIR (or, \
            without DIR, into a temporary folder removed at exit) and serves the result: package and \
            serve in one step while iterating, as Apple's ba-serve does with .aar files; with \
            --apple-base-url URL, Apple devices get that publish's archives and download manifest too.

            Serves the files under DIR (GET and HEAD, byte ranges, ETag and conditional requests) on \
            127.0.0.1 unless --host says otherwise, and prints the URL it serves at. Pack files (*.pack) \
            are sent with 'Cache-Control: public, max-age=31536000, immutable', everything else (the \
            catalog) with 'public, max-age=60'. Runs until SIGINT or SIGTERM.

            Apple's self-hosted convention, as xcrun ba-serve answers it, from what 'publish \
            --apple-base-url' wrote: GET /manifest is DIR/apple/manifest.json, /manifest?platform=iOS the \
            packs that platform sees (case-insensitive; other parameters ignored), /assets/<pack ID> the \
            pack's Apple Archive (ranges, ETags); /channels/NAME/manifest and /channels/NAME/assets/<id> \
            for a channel. These are sent with 'public, no-cache' (their URLs are mutable). Point a device \
            at https://HOST:PORT (Developer Mode > Background Assets Testing > URL Override) once it \
            trusts the CA (--https prints how).

            --https creates a root CA and a certificate for --host in --tls-dir (default: \
            DIR/../.assetpack-tls, beside the repository and never served), or reuses them, and prints \
            how to trust the CA. Fault rates are probabilities per response (0 to 1); faults apply to \
            pack files and Apple Archives only unless --fault-catalog is given.
            """)
    }

    @Argument("DIR")
    var directory: String?
    @Option("--host", value: "ADDRESS", help: "Address to bind (default 127.0.0.1).", default: "127.0.0.1")
    var host: String
    @Option("--port", value: "N", help: "Port to bind; 0 picks a free one (default 8080).", default: 8080)
    var port: UInt16
    @Flag("--https", help: "Serve HTTPS with a certificate from a local root CA.")
    var https: Bool
    @Option("--tls-dir", value: "DIR", help: "Where the CA and certificate live (default DIR/../.assetpack-tls).")
    var tlsFolder: String?
    @Option("--connection-limit", value: "N", help: "Connections served at once (default 4096); see docs/HOSTING.md.",
            default: ServerConfiguration().connectionLimit, range: 1...1_000_000)
    var connectionLimit: Int
    @Option("--address-limit", value: "N", help: "Connections one client address may hold (default 1024).",
            default: ServerConfiguration().perAddressConnectionLimit, range: 1...1_000_000)
    var addressLimit: Int
    @Option("--access-log", value: "FILE", help: "Append access log lines to FILE instead of standard error.")
    var accessLog: String?
    @Option("--latency", value: "MS", help: "Wait MS milliseconds before each response.",
            range: DurationInMilliseconds(.zero)...DurationInMilliseconds(.seconds(600)))
    var latency: DurationInMilliseconds?
    @Option("--bandwidth", value: "BYTES_PER_S", help: "Throttle each response body to this many bytes per second.")
    var bandwidth: ByteSize?
    @Option("--drop-after", value: "BYTES", help: "Close the connection after BYTES body bytes of each response.")
    var dropAfter: ByteSize?
    @Option("--corrupt-rate", value: "P", help: "Flip one byte (XOR 0xFF) of a response body with probability P.")
    var corruptRate: Probability?
    @Option("--truncate-rate", value: "P", help: "End a response body early (connection closed) with probability P.")
    var truncateRate: Probability?
    @Option("--fail-rate", value: "P", help: "Answer 503 Service Unavailable with probability P.")
    var failRate: Probability?
    @Option("--seed", value: "N", help: "Seed for fault decisions, for reproducible runs.")
    var seed: UInt64?
    @Flag("--fault-catalog", help: "Apply faults to the catalog (every non-pack file) too.")
    var faultCatalog: Bool
    @Option("--manifests", value: "M.json", help: "Publish these manifests first (repeatable); needs --key.")
    var manifests: [String]
    @Option("--key", value: "KEYFILE", help: "The private key to sign the catalog with (with --manifests).")
    var keyFile: String?
    @Option("--apple-base-url", value: "URL", help: "With --manifests: also publish for Apple devices (publish's option), e.g. https://HOST:PORT/assets.")
    var appleBaseURL: String?

    init() {}

    func run() throws -> Int32 {
        let (directory, temporary) = try publishIfAsked()
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.connectionLimit = connectionLimit
        configuration.perAddressConnectionLimit = addressLimit
        configuration.faults = try faultConfiguration()
        if let path = accessLog { configuration.accessLog = .file(path) }
        var tlsDirectory: TLSDirectory?
        if https {
            let folder = tlsFolder ?? TLSDirectory.defaultPath(forRepository: directory)
            do {
                let tls = try TLSDirectory.prepare(at: folder, host: configuration.host, serving: directory)
                configuration.tls = tls.identity
                tlsDirectory = tls
            } catch {
                if case .insideRepository = error { throw CLIError.usage("--tls-dir: \(error)") }
                throw CLIError.failure("\(error)")
            }
        } else if tlsFolder != nil {
            throw CLIError.usage("--tls-dir needs --https")
        }
        let stopSignals = StopSignals.block()
        let server: RepositoryServer
        do { server = try RepositoryServer(directory: directory, configuration: configuration) } catch { throw CLIError.failure("\(error)") }
        if let tlsDirectory { print(tlsDirectory.trustInstructions(url: server.url)) }
        if configuration.faults.isActive { print("Injecting faults: \(describe(configuration.faults))") }
        print("Serving \(server.directory) at \(server.url)")
        if FileManager.default.fileExists(atPath: server.directory + "/" + AppleHostingLayout.manifestPath(channel: nil)) {
            print("Apple devices: \(server.url)manifest?platform=iOS and \(server.url)assets/<pack ID>; URL override \(server.url.dropLast())")
        }
        fflush(nil)
        let received = stopSignals.wait()
        server.stop()
        printError("Stopped (signal \(received)).")
        return 0
    }

    /// The folder to serve: DIR, after publishing `--manifests` into it (or into a temporary
    /// folder, returned second so that it is removed at exit).
    private func publishIfAsked() throws(CLIError) -> (String, String?) {
        guard !manifests.isEmpty else {
            guard let dir = directory else { throw .usage("give the repository folder DIR, or --manifests with --key") }
            if keyFile != nil { throw .usage("--key goes with --manifests") }
            if appleBaseURL != nil { throw .usage("--apple-base-url goes with --manifests (a folder published with it is served as it is)") }
            return (dir, nil)
        }
        if let appleBaseURL, case .failure(let problem) = AppleBaseURL.checked(appleBaseURL) { throw .usage("--apple-base-url: \(problem)") }
        guard let keyPath = keyFile else { throw .usage("--manifests needs --key KEYFILE to sign the catalog") }
        var temporary: String?
        let folder: String
        if let dir = directory { folder = dir } else {
            let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
            folder = base + "/assetpack-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            temporary = folder
        }
        do {
            let key = try SigningKey(contentsOf: keyPath)
            var options = PublishOptions(repository: folder)
            options.appleBaseURL = appleBaseURL
            let report = try Publisher(key: key, options: options).publish(manifests: manifests)
            for d in report.diagnostics { printError(d.description) }
            for f in report.findings { printError(f.description) }
            printError("published \(manifests.count) manifest(s) into \(folder) (catalog version \(report.catalog?.version ?? 0)); public key \(key.publicKey.text)")
        } catch let error as PublishError {
            switch error {
            case .invalidManifests(let diagnostics): for d in diagnostics { printError(d.description) }
            case .lintFailed(let findings): for f in findings { printError(f.description) }
            default: break
            }
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw .failure(error.description)
        } catch {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            throw .failure("--key: \(error)")
        }
        return (folder, temporary)
    }

    /// The fault options as the server's configuration.
    private func faultConfiguration() throws(CLIError) -> FaultConfiguration {
        var f = FaultConfiguration()
        f.latencyMilliseconds = UInt64((latency?.duration ?? .zero) / .milliseconds(1))
        f.bandwidthBytesPerSecond = bandwidth?.bytes ?? 0
        f.dropAfterBytes = dropAfter?.bytes
        f.corruptRate = corruptRate?.value ?? 0
        f.truncateRate = truncateRate?.value ?? 0
        f.failRate = failRate?.value ?? 0
        f.seed = seed
        f.includeCatalog = faultCatalog
        if f.includeCatalog && !f.isActive { throw .usage("--fault-catalog needs a fault option") }
        return f
    }
}

private func describe(_ f: FaultConfiguration) -> String {
    var parts: [String] = []
    if f.latencyMilliseconds > 0 { parts.append("latency \(f.latencyMilliseconds) ms") }
    if f.bandwidthBytesPerSecond > 0 { parts.append("bandwidth \(f.bandwidthBytesPerSecond) B/s") }
    if let d = f.dropAfterBytes { parts.append("drop after \(d) bytes") }
    if f.corruptRate > 0 { parts.append("corrupt \(f.corruptRate)") }
    if f.truncateRate > 0 { parts.append("truncate \(f.truncateRate)") }
    if f.failRate > 0 { parts.append("fail \(f.failRate)") }
    parts.append(f.includeCatalog ? "packs and catalog" : "packs only")
    if let s = f.seed { parts.append("seed \(s)") }
    return parts.joined(separator: ", ")
}
