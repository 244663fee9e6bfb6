import ArgumentParsing
import AssetPacks
import Foundation

let status = CommandRunner.run(
    Array(CommandLine.arguments.dropFirst()),
    root: AssetpackCommand.self,
    output: { print($0) },
    errorOutput: { printError($0) })
fflush(nil)
// Folders a command retired (a superseded version, a removed pack) are deleted before it exits:
// the space a command frees is free when it returns. (Apps and the agent delete them in the
// background while they run on.)
AssetPackManager.waitUntilRetiredFoldersAreDeleted()
exit(status)
