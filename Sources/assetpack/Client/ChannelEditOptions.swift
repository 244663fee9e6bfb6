import ArgumentParsing
import AssetPackPublishing

/// The options of the commands that sign a channel's next catalog without packaging
/// (`promote`, `rollout`, `rollback`): the repository, the keys and the new catalog's lifetime.
struct ChannelEditOptions: ParsableArguments {
    @Option("--repo", value: "DIR", help: "The repository folder (required).")
    var repository: String
    @Option("--key", value: "KEYFILE", help: "The catalog signing key (required).")
    var keyFile: String
    @Option("--timestamp-key", value: "KEYFILE", help: "The online timestamp key; required when DIR has a root (roots/).")
    var timestampKeyFile: String?
    @Option("--expires", value: "DURATION", help: "How long the new catalog stays valid (default 30d).",
            range: DurationWithUnit(.seconds(1))...DurationWithUnit(.seconds(3650 * 86_400)))
    var expires: DurationWithUnit?

    init() {}

    /// The editor these options configure; `keep`, when given, is the versions whose files stay.
    func editor(keep: Int?) throws(CLIError) -> ChannelEditor {
        try ChannelChangeText.editor(repository: repository, keyFile: keyFile, timestampKeyFile: timestampKeyFile, expires: expires, keep: keep)
    }
}
