import AssetPackCLI

/// Every subcommand, in the order `assetpack --help` lists them: the data flow from manifest to
/// client, then the migration tools.
let allCommands: [CommandSpec] = [
    templateCommand,
    validateCommand,
    packageCommand,
    inspectCommand,
    verifyCommand,
    extractCommand,
    keygenCommand,
    publishCommand,
    verifyCatalogCommand,
    serveCommand,
    uploadCommand,
    installCommand,
    ensureCommand,
    statusCommand,
    lsCommand,
    catCommand,
    removeCommand,
    updateCommand,
    fetchCommand,
    agentCommand,
    cancelCommand,
    auditCommand,
    convertCommand,
]
