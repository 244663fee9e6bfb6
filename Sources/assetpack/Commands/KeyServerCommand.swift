import ArgumentParsing
import AssetPackServer
import Foundation

struct KeyServerCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "key-server",
            abstract: "Hand paid (sealed) packs' content keys to clients that present an entitlement token.",
            discussion: """
            Serves GET /v1/keys/<pack ID>/<key ID> (Authorization: Bearer <token>) from the key store \
            that 'publish --encrypt' writes (read again when it changes). Who is entitled: --grants FILE \
            (JSON: token → pack IDs, optional expiry, revoked), or --verify-command CMD, run as \
            /bin/sh -c CMD sh PACK_ID with the token on its standard input (exit 0 = granted; on \
            refusal its first output line is the reason) so that a backend can check a StoreKit or \
            Play Billing receipt. Keys travel only over TLS (--https) or on a loopback address. Every \
            decision is logged to standard error (the token as a fingerprint, never in clear); each \
            token may make --rate-limit requests a minute. Runs until SIGINT or SIGTERM.
            """)
    }

    @Option("--key-store", value: "FILE", help: "The key store 'publish --encrypt' wrote (mode 0600; required).")
    var keyStore: String
    @Option("--grants", value: "FILE", help: "A grants file: which token may have which packs' keys.")
    var grants: String?
    @Option("--verify-command", value: "CMD", help: "A command that decides per token and pack (exit 0 = granted).")
    var verifyCommand: String?
    @Option("--host", value: "ADDRESS", help: "Address to bind (default 127.0.0.1; another needs --https).", default: "127.0.0.1")
    var host: String
    @Option("--port", value: "N", help: "Port to bind; 0 picks a free one (default 8443).", default: 8443)
    var port: UInt16
    @Flag("--https", help: "Serve HTTPS with a certificate from a local root CA in --tls-dir.")
    var https: Bool
    @Option("--tls-dir", value: "DIR", help: "Where the CA and certificate live (required with --https).")
    var tlsFolder: String?
    @Option("--rate-limit", value: "N", help: "Requests a minute each token may make (default 60).", range: 1...1_000_000)
    var rateLimit: Int?

    init() {}

    func run() throws -> Int32 {
        let check: EntitlementCheck
        switch (grants, verifyCommand) {
        case (let path?, nil):
            do { check = .grants(try EntitlementGrants.load(path)) } catch { throw CLIError.failure("\(error)") }
        case (nil, let command?):
            guard !command.isEmpty else { throw CLIError.usage("--verify-command is empty") }
            check = .command(command, timeout: 10)
        default:
            throw CLIError.usage("pass exactly one of --grants FILE and --verify-command CMD")
        }
        var configuration = KeyServer.Configuration()
        configuration.host = host
        configuration.port = port
        if let rateLimit { configuration.requestsPerMinute = rateLimit }
        if https {
            guard let tlsFolder else { throw CLIError.usage("--https needs --tls-dir DIR") }
            do { configuration.tls = try TLSDirectory.prepare(at: tlsFolder, host: host, serving: nil).identity } catch {
                throw CLIError.failure("\(error)")
            }
        } else if tlsFolder != nil {
            throw CLIError.usage("--tls-dir needs --https")
        }
        let stopSignals = StopSignals.block()
        let server: KeyServer
        do { server = try KeyServer(keyStorePath: keyStore, check: check, configuration: configuration) } catch {
            throw CLIError.failure("\(error)")
        }
        print("Serving content keys at \(server.url)")
        fflush(nil)
        let received = stopSignals.wait()
        server.stop()
        printError("Stopped (signal \(received)).")
        return 0
    }
}
