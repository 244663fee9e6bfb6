import AssetPackCLI
import AssetPackPublishing
import AssetPackServer
import Foundation

let serveCommand = CommandSpec(
    name: "serve",
    abstract: "Serve a repository folder over HTTP or HTTPS, optionally with injected faults.",
    arguments: "[DIR]",
    discussion: """
    With --manifests M.json... --key KEYFILE it first publishes the manifests into DIR (or, \
    without DIR, into a temporary folder removed at exit) and serves the result: package and \
    serve in one step while iterating, as Apple's ba-serve does with .aar files.

    Serves the files under DIR (GET and HEAD, byte ranges, ETag and conditional requests) on \
    127.0.0.1 unless --host says otherwise, and prints the URL it serves at. Pack files (*.pack) \
    are sent with 'Cache-Control: public, max-age=31536000, immutable', everything else (the \
    catalog) with 'public, max-age=60'. Runs until SIGINT or SIGTERM.

    --https creates a root CA and a certificate for --host in --tls-dir (default: \
    DIR/../.assetpack-tls, beside the repository and never served), or reuses them, and prints \
    how to trust the CA. Fault rates are probabilities per response (0 to 1); faults apply to \
    pack files only unless --fault-catalog is given.
    """,
    options: [
        .option("--host", value: "ADDRESS", help: "Address to bind (default 127.0.0.1)."),
        .option("--port", value: "N", help: "Port to bind; 0 picks a free one (default 8080)."),
        .flag("--https", help: "Serve HTTPS with a certificate from a local root CA."),
        .option("--tls-dir", value: "DIR", help: "Where the CA and certificate live (default DIR/../.assetpack-tls)."),
        .option("--access-log", value: "FILE", help: "Append access log lines to FILE instead of standard error."),
        .option("--latency", value: "MS", help: "Wait MS milliseconds before each response."),
        .option("--bandwidth", value: "BYTES_PER_S", help: "Throttle each response body to this many bytes per second."),
        .option("--drop-after", value: "BYTES", help: "Close the connection after BYTES body bytes of each response."),
        .option("--corrupt-rate", value: "P", help: "Flip one byte (XOR 0xFF) of a response body with probability P."),
        .option("--truncate-rate", value: "P", help: "End a response body early (connection closed) with probability P."),
        .option("--fail-rate", value: "P", help: "Answer 503 Service Unavailable with probability P."),
        .option("--seed", value: "N", help: "Seed for fault decisions, for reproducible runs."),
        .flag("--fault-catalog", help: "Apply faults to the catalog (every non-pack file) too."),
        .option("--manifests", value: "M.json", help: "Publish these manifests first (repeatable); needs --key.", repeatable: true),
        .option("--key", value: "KEYFILE", help: "The private key to sign the catalog with (with --manifests)."),
    ],
    positionalCount: 0...1
) { args in
    let (directory, temporary) = try publishIfAsked(args)
    defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
    var configuration = ServerConfiguration()
    configuration.host = args.value("--host") ?? "127.0.0.1"
    configuration.port = try args.number("--port", default: UInt16(8080))
    configuration.faults = try faultConfiguration(args)
    if let path = args.value("--access-log") { configuration.accessLog = .file(path) }
    var tlsDirectory: TLSDirectory?
    if args.flag("--https") {
        let absolute = URL(fileURLWithPath: directory).standardizedFileURL
        let dir = args.value("--tls-dir") ?? absolute.deletingLastPathComponent().appendingPathComponent(".assetpack-tls").path
        let root = absolute.resolvingSymlinksInPath().path
        let tlsPath = URL(fileURLWithPath: dir).standardizedFileURL.resolvingSymlinksInPath().path
        if tlsPath == root || tlsPath.hasPrefix(root + "/") {
            throw CLIError.usage("--tls-dir \(dir) is inside the repository, which would publish the private keys; choose a folder outside it")
        }
        do {
            let tls = try TLSDirectory.prepare(at: dir, host: configuration.host)
            configuration.tls = tls.identity
            tlsDirectory = tls
        } catch { throw CLIError.failure("\(error)") }
    } else if args.value("--tls-dir") != nil {
        throw CLIError.usage("--tls-dir needs --https")
    }
    // Block the stop signals before any server thread exists, so that every thread inherits
    // the mask and the signals wait for sigwait below.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGINT)
    sigaddset(&stopSignals, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    let server: RepositoryServer
    do { server = try RepositoryServer(directory: directory, configuration: configuration) } catch { throw CLIError.failure("\(error)") }
    if let tlsDirectory { print(tlsDirectory.trustInstructions(url: server.url)) }
    if configuration.faults.isActive { print("Injecting faults: \(describe(configuration.faults))") }
    print("Serving \(server.directory) at \(server.url)")
    fflush(nil)
    var received: Int32 = 0
    sigwait(&stopSignals, &received)
    server.stop()
    printError("Stopped (signal \(received)).")
    return 0
}

/// The folder to serve: DIR, after publishing `--manifests` into it (or into a temporary
/// folder, returned second so that it is removed at exit).
private func publishIfAsked(_ args: ParsedArguments) throws(CLIError) -> (String, String?) {
    let manifests = args.all("--manifests")
    guard !manifests.isEmpty else {
        guard let dir = args.positionals.first else { throw .usage("give the repository folder DIR, or --manifests with --key") }
        if args.value("--key") != nil { throw .usage("--key goes with --manifests") }
        return (dir, nil)
    }
    guard let keyPath = args.value("--key") else { throw .usage("--manifests needs --key KEYFILE to sign the catalog") }
    var temporary: String?
    let directory: String
    if let dir = args.positionals.first { directory = dir } else {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        directory = base + "/assetpack-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        temporary = directory
    }
    do {
        let key = try SigningKey(contentsOf: keyPath)
        let report = try Publisher(key: key, options: PublishOptions(repository: directory)).publish(manifests: manifests)
        for d in report.diagnostics { printError(d.description) }
        for f in report.findings { printError(f.description) }
        printError("published \(manifests.count) manifest(s) into \(directory) (catalog version \(report.catalog?.version ?? 0)); public key \(key.publicKey.text)")
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
    return (directory, temporary)
}

private func faultConfiguration(_ args: ParsedArguments) throws(CLIError) -> FaultConfiguration {
    var f = FaultConfiguration()
    f.latencyMilliseconds = try args.number("--latency", default: 0)
    f.bandwidthBytesPerSecond = try args.number("--bandwidth", default: 0)
    if args.value("--drop-after") != nil { f.dropAfterBytes = try args.number("--drop-after", default: 0) }
    f.corruptRate = try args.probability("--corrupt-rate")
    f.truncateRate = try args.probability("--truncate-rate")
    f.failRate = try args.probability("--fail-rate")
    if args.value("--seed") != nil { f.seed = try args.number("--seed", default: 0) }
    f.includeCatalog = args.flag("--fault-catalog")
    if f.includeCatalog && !f.isActive { throw .usage("--fault-catalog needs a fault option") }
    return f
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

extension ParsedArguments {
    /// An unsigned integer option, or `default` when absent; a usage error names a bad value.
    func number<T: FixedWidthInteger & UnsignedInteger>(_ name: String, default value: T) throws(CLIError) -> T {
        guard let text = self.value(name) else { return value }
        guard let n = T(text) else { throw .usage("\(name) takes a whole number from 0 to \(T.max), got '\(text)'") }
        return n
    }

    /// A probability option from 0 to 1, or 0 when absent.
    func probability(_ name: String) throws(CLIError) -> Double {
        guard let text = self.value(name) else { return 0 }
        guard let p = Double(text), p >= 0, p <= 1 else { throw .usage("\(name) takes a probability from 0 to 1, got '\(text)'") }
        return p
    }
}
