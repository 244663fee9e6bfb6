import ArgumentParsing

/// `assetpack aar …`: Apple Archives (`.aar`), the format of `xcrun ba-package`.
struct AarCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "aar",
            abstract: "Write Apple Archives (.aar) as ba-package does.",
            discussion: """
            assetpack aar create MANIFEST -o FILE [--compression lzfse|zlib|lzma|none] [--block-size SIZE] [--threads N]
            """,
            subcommands: [AarCreateCommand.self])
    }

    init() {}
}
