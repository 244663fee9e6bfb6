import AssetPackCLI

/// Every subcommand, in the order `assetpack --help` lists them.
let allCommands: [CommandSpec] = [
    templateCommand,
    validateCommand,
    packageCommand,
    inspectCommand,
    verifyCommand,
    extractCommand,
    uploadCommand,
    fetchCommand,
]
