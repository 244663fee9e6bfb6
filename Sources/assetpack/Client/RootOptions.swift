import ArgumentParsing

/// The storage root and how long to wait for it: what every client command takes.
struct RootOptions: ParsableArguments {
    @Option("--root", value: "DIR", help: "The storage root (installed packs and state).")
    var root: String
    @Option("--lock-timeout", value: "SECONDS", help: "How long to wait while another process uses the root (default 30).", default: .seconds(30),
            range: .zero ... .seconds(86_400))
    var lockTimeout: Duration

    /// `--lock-timeout` (its declaration holds it to 0 to 86400 seconds).
    func storageLockTimeout() throws(CLIError) -> Duration {
        lockTimeout
    }
}
