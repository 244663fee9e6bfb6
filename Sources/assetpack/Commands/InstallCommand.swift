import AssetPackCLI
import AssetPackFormat
import AssetPacks

let installCommand = CommandSpec(
    name: "install",
    abstract: "Run the install step against a repository: essential packs, then prefetch packs.",
    discussion: """
    Fetches and checks the signed catalog, downloads every essential pack for the installation
    event and waits for it, then the prefetch packs (which an app would let run in the
    background). On-demand packs come only with 'assetpack ensure'. Downloads resume where they
    stopped when run again. The root remembers --repo, --public-key, --ca and --storage-budget.
    """,
    options: ClientOptions.downloading + [.option("--event", value: "EVENT", help: "first-installation (default) or subsequent-update.")],
    positionalCount: 0...0
) { args in
    let event: InstallationEventType
    switch args.value("--event") ?? "first-installation" {
    case "first-installation", "firstInstallation": event = .firstInstallation
    case "subsequent-update", "subsequentUpdate": event = .subsequentUpdate
    case let other: throw CLIError.usage("--event takes first-installation or subsequent-update, not \(other)")
    }
    let manager = try makeManager(args)
    let printer = ProgressPrinter(manager: manager, json: args.flag("--json"))
    defer { printer.stop() }
    do {
        try runBlocking {
            let prefetch = try await manager.handleInstallationEvent(event)
            try await prefetch.value
        }
    } catch { throw CLIError.failure("\(error)") }
    printer.finish(manager)
    return 0
}

let ensureCommand = CommandSpec(
    name: "ensure",
    abstract: "Make an asset pack available locally (download it if needed).",
    arguments: "PACK_ID...",
    options: ClientOptions.downloading + [.flag("--latest", help: "Also update an installed pack that is out of date.")],
    positionalCount: 1...Int.max
) { args in
    let manager = try makeManager(args)
    let printer = ProgressPrinter(manager: manager, json: args.flag("--json"))
    defer { printer.stop() }
    let ids = args.positionals
    let latest = args.flag("--latest")
    do {
        try runBlocking {
            var packs = Set<AssetPack>()
            for id in ids { packs.insert(try await manager.assetPack(withID: id)) }
            if packs.count == 1 { try await manager.ensureLocalAvailability(of: packs.first!, requireLatestVersion: latest) }
            else { try await manager.ensureLocalAvailability(of: packs, requireLatestVersions: latest) }
        }
    } catch { throw CLIError.failure("\(error)") }
    printer.finish(manager)
    return 0
}

let updateCommand = CommandSpec(
    name: "update",
    abstract: "Check for updates: update installed packs by delta, remove packs the catalog dropped.",
    options: ClientOptions.downloading,
    positionalCount: 0...0
) { args in
    let manager = try makeManager(args)
    let printer = ProgressPrinter(manager: manager, json: args.flag("--json"))
    defer { printer.stop() }
    let result: (updated: [AssetPack], removed: [String])
    do { result = try runBlocking { try await manager.checkForUpdates() } } catch { throw CLIError.failure("\(error)") }
    printer.finish(manager, ["updated": result.updated.map(\.description), "removed": result.removed])
    if !args.flag("--json") {
        print("updated: \(result.updated.map(\.description).joined(separator: ", ").ifEmpty("none")); removed: \(result.removed.joined(separator: ", ").ifEmpty("none"))")
    }
    return 0
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
