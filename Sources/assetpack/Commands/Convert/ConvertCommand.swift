import ArgumentParsing

/// `assetpack convert odr|vdf`: a group of two converters.
struct ConvertCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "convert",
            abstract: "Convert ODR tags or Steam depot build scripts into asset-pack manifests.",
            discussion: """
            assetpack convert odr PROJECT_DIR -o OUTDIR [--base DIR]
            assetpack convert vdf DEPOT.vdf --asset-pack-id ID (--essential|--prefetch|--on-demand) [-l LANG] [-o MANIFEST.json] [--base DIR]

            \(sourceRootNote)
            """,
            subcommands: [ConvertODRCommand.self, ConvertVDFCommand.self])
    }

    /// Where converted manifests' sourceRoot points, said in each converter's help.
    static let sourceRootNote = """
        sourceRoot: 'assetpack package' resolves a relative sourceRoot against the folder it runs in,
        so the manifests name the content root relative to the current directory (or --base DIR):
        run 'assetpack package' from that same folder. It stays absolute only when the content root
        shares no folder with the base but / (or is a build machine's C:\\ path). See docs/AUDIT.md.
        """

    init() {}
}
