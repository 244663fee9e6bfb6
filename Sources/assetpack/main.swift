import AssetPackCLI
import Foundation


let status = runCommandLine(
    Array(CommandLine.arguments.dropFirst()),
    commands: allCommands,
    overview: "assetpack — package, verify and ship asset packs described by Apple-compatible manifests.",
    output: { print($0) },
    errorOutput: { printError($0) })
fflush(nil)
exit(status)
