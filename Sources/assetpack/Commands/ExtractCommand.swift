import AssetPackCLI
import AssetPackFormat
import AssetPackPackaging

let extractCommand = CommandSpec(
    name: "extract",
    abstract: "Verify and unpack a pack into a directory.",
    arguments: "PACKFILE",
    discussion: "DIR must not exist or be empty. Files are written to a staging folder and renamed into place; a failed extraction leaves nothing behind.",
    options: [.option("-o", "--output", value: "DIR", help: "The directory to create (required).")],
    positionalCount: 1...1
) { args in
    let path = args.positionals[0]
    let output = try args.required("--output")
    let reader = try openPack(path)
    do {
        try PackExtractor(reader: reader).extract(to: output)
    } catch {
        throw CLIError.failure("\(path): \(error)")
    }
    print("\(path): extracted \(reader.index.files.count) files (\(byteCount(reader.index.installSize))) to \(output)")
    return 0
}
