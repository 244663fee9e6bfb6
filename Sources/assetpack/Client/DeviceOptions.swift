import ArgumentParsing
import AssetPackFormat
import AssetPacks

/// The device's capabilities for packs' device variants (docs/CLIENT.md, "Device variants"):
/// what the commands that download take, and the root remembers.
struct DeviceOptions: ParsableArguments {
    @Option("--texture-formats", value: "LIST", help: "The texture formats this device decodes, preferred first, comma-separated (\(TextureFormat.validList)); 'none' for none. Chooses packs' device variants. Remembered by the root.")
    var textureFormats: String?
    @Option("--memory", value: "SIZE", help: "The device memory device variants' memory tiers are matched against (default: the system's). Remembered by the root; 'system' forgets it.")
    var memory: MemoryArgument?

    /// `settings` with the options given now in place of what the root remembered.
    func applied(to settings: RootSettings) throws(CLIError) -> RootSettings {
        var settings = settings
        if let textureFormats { settings.textureFormats = try Self.formats(textureFormats).map(\.rawValue) }
        if let memory { settings.memory = memory.bytes }
        return settings
    }

    /// The options that would change what `settings` hold (refused while an agent runs).
    func changes(to settings: RootSettings) throws(CLIError) -> [String] {
        let changed = try applied(to: settings)
        return (changed.textureFormats != settings.textureFormats ? ["--texture-formats"] : []) + (changed.memory != settings.memory ? ["--memory"] : [])
    }

    /// `astc,etc2` as formats in that order; `none` as none. An unknown one is a usage error
    /// listing the valid ones.
    static func formats(_ list: String) throws(CLIError) -> [TextureFormat] {
        guard list != "none" else { return [] }
        var out: [TextureFormat] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            guard let format = TextureFormat(rawValue: name) else {
                throw .usage("--texture-formats: unknown texture format \"\(name)\"; valid texture formats: \(TextureFormat.validList) (or 'none')")
            }
            guard !out.contains(format) else { throw .usage("--texture-formats: \"\(name)\" is listed twice") }
            out.append(format)
        }
        return out
    }
}

/// The value of `--memory`: a size above 0, or `system` (nil: read from the system).
struct MemoryArgument: ArgumentValue {
    var bytes: UInt64?

    init?(argument: String) {
        if argument.lowercased() == "system" { bytes = nil; return }
        guard let size = ByteSize(argument: argument), size.bytes > 0 else { return nil }
        bytes = size.bytes
    }

    static var expectation: String { "a size above 0 in \(ByteCount.grammar), or 'system'" }
    static var helpNote: String? { ByteSize.helpNote }
}
