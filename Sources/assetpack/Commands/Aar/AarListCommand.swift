import ArgumentParsing

/// `assetpack aar list`.
struct AarListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "list", abstract: "List the entries of an Apple Archive.")
    }

    @Argument("FILE")
    var archive: String
    @Flag("--json", help: "One JSON object per line and entry: type, path, mode, size, link.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        throw CLIError.failure("\(archive): reading Apple Archives is not available yet")
    }
}
