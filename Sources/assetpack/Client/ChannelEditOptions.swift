import ArgumentParsing
import AssetPackPublishing

/// The options of the commands that sign a channel's next catalog without packaging
/// (`promote`, `rollout`, `rollback`): the repository, the keys, the new catalog's lifetime and
/// how the result is printed.
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
    @Flag("--json", help: "Print the result as JSON.")
    var json: Bool

    init() {}

    /// Makes the editor these options configure (`keep`, when given: the versions whose files
    /// stay), signs the catalog `edit` makes with it, and prints the change; the command's status.
    func apply(keep: Int?, _ edit: (ChannelEditor) throws -> ChannelChange) throws(CLIError) -> Int32 {
        let editor = try ChannelChangeText.editor(repository: repository, keyFile: keyFile, timestampKeyFile: timestampKeyFile,
                                                  expires: expires, keep: keep)
        let change: ChannelChange
        do { change = try edit(editor) } catch { throw CLIError.failure("\(error)") }
        ChannelChangeText.print(change, repository: repository, json: json)
        return 0
    }
}
