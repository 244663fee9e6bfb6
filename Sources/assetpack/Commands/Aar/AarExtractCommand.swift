import ArgumentParsing

/// `assetpack aar extract`.
struct AarExtractCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "extract",
            abstract: "Verify and unpack an Apple Archive into a directory.",
            discussion: "DIR must not exist or be empty. Entries are written to a staging folder and renamed into place; a failed extraction leaves nothing behind.")
    }

    @Argument("FILE")
    var archive: String
    @Option("-o", "--output", value: "DIR", help: "The directory to create (required).")
    var output: String

    init() {}

    func run() throws -> Int32 {
        throw CLIError.failure("\(archive): reading Apple Archives is not available yet")
    }
}
