import ArgumentParsing
import AssetPackFormat
import AssetPackPackaging

struct ExtractCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "extract",
            abstract: "Verify and unpack a pack into a directory.",
            discussion: "DIR must not exist or be empty. Files are written to a staging folder and renamed into place; a failed extraction leaves nothing behind.")
    }

    @Argument("PACKFILE")
    var pack: String
    @Option("--base", value: "FILE", help: "A base file of a device variant's pack file, repeatable: its group's default pack file, and the variants' it takes frames from ('inspect' lists them).")
    var base: [String]
    @Option("-o", "--output", value: "DIR", help: "The directory to create (required).")
    var output: String

    init() {}

    func run() throws -> Int32 {
        let reader = try openWholePack(pack, bases: base)
        do {
            try PackExtractor(reader: reader).extract(to: output)
        } catch {
            throw CLIError.failure("\(pack): \(error)")
        }
        print("\(pack): extracted \(reader.index.files.count) files (\(ByteCount.format(reader.index.installSize))) to \(output)")
        return 0
    }
}
