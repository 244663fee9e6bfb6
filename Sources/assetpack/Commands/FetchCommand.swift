import AssetPackCLI
import AssetPackTransport
import Foundation

let fetchCommand = CommandSpec(
    name: "fetch",
    abstract: "Download one URL with the built-in transport (for debugging and benchmarks).",
    arguments: "URL",
    discussion: "Writes the body of a 2xx response to FILE.part, renamed to FILE when complete (removed on failure). Redirects are not followed: a 3xx is reported with its Location. Prints status, size, HTTP version and the time taken to standard error.",
    options: [
        .option("-o", "--output", value: "FILE", help: "Where the body goes (required; '-' for standard output)."),
        .option("--range", value: "FIRST-LAST", help: "Fetch only these bytes (inclusive; 'FIRST-' for the rest)."),
        .option("--ca", value: "FILE", help: "Trust the CA certificates in FILE instead of the system's."),
    ],
    positionalCount: 1...1
) { args in
    let url = args.positionals[0]
    let output = try args.required("--output")
    var range: ByteRange?
    if let text = args.value("--range") {
        guard let parsed = ByteRange(parsing: text) else { throw CLIError.usage("--range must be FIRST-LAST or FIRST-, got '\(text)'") }
        range = parsed
    }
    let partial = output + ".part"
    let fd = output == "-" ? STDOUT_FILENO : open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CLIError.failure("\(partial): cannot create: \(String(cString: strerror(errno)))") }
    var complete = false
    defer {
        if fd != STDOUT_FILENO {
            close(fd)
            if complete { rename(partial, output) } else { unlink(partial) }
        }
    }
    let start = ContinuousClock.now
    do {
        let transport = try CurlTransport(caFile: args.value("--ca"))
        let response = try transport.send(HTTPRequest(url: url, range: range), to: .fileDescriptor(fd), cancellation: nil)
        let elapsed = ContinuousClock.now - start
        if response.isRedirect {
            throw CLIError.failure("\(url): HTTP \(response.status), redirect to \(response.redirectURL ?? "?") (not followed)")
        }
        try response.requireSuccess()
        complete = true
        printError("HTTP/\(response.httpVersion) \(response.status), \(response.bodyByteCount) bytes in \(elapsed)")
        return 0
    } catch let error as TransportError {
        throw CLIError.failure("\(error)")
    }
}
