import ArgumentParsing
import AssetPackTransport
import Foundation

struct FetchCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "fetch",
            abstract: "Download one URL with the built-in transport (for debugging and benchmarks).",
            discussion: "Writes the body of a 2xx response to FILE.part, renamed to FILE when complete (removed on failure). Redirects are not followed: a 3xx is reported with its Location. Prints status, size, HTTP version and the time taken to standard error.")
    }

    @Argument("URL")
    var url: String
    @Option("-o", "--output", value: "FILE", help: "Where the body goes (required; '-' for standard output).")
    var output: String
    @Option("--range", value: "FIRST-LAST", help: "Fetch only these bytes (inclusive; 'FIRST-' for the rest).")
    var byteRange: String?
    @Option("--ca", value: "FILE", help: "Trust the CA certificates in FILE instead of the system's.")
    var caFile: String?

    init() {}

    func run() throws -> Int32 {
        var range: ByteRange?
        if let text = byteRange {
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
            let transport = try CurlTransport(caFile: caFile)
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
}
