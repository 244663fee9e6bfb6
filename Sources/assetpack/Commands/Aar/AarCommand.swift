import ArgumentParsing

/// `assetpack aar list|extract|create|import`: Apple Archive (`.aar`) files, read and written.
struct AarCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "aar",
            abstract: "List, extract, create or import Apple Archives (.aar), the files ba-package makes.",
            discussion: """
            assetpack aar list FILE [--json]
            assetpack aar extract FILE -o DIR
            assetpack aar create MANIFEST -o FILE [--compression lzfse|zlib|lzma|none] [--block-size SIZE] [--threads N]
            assetpack aar import FILE --manifest MANIFEST -o PACKFILE [--threads N]

            Reads pbze (LZFSE), pbzx (xz), pbzz (zlib) and pbz4 (LZ4) containers and bare AA01 streams.
            Encrypted archives (AEA1) are refused. See docs/FORMAT.md, "Apple Archive".
            """,
            subcommands: [AarListCommand.self, AarExtractCommand.self, AarCreateCommand.self, AarImportCommand.self])
    }

    init() {}
}
