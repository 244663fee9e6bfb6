import ArgumentParsing
import AssetPacks
import Foundation

let status = CommandRunner.run(
    Array(CommandLine.arguments.dropFirst()),
    root: AssetpackCommand.self,
    output: { print($0) },
    errorOutput: { printError($0) })
fflush(nil)
// Folders a command retired and has not finished deleting (a superseded version) are deleted by
// a detached `assetpack delete-retired`: the command returns at its commit, as an app's call and
// the agent's do. (`remove` waits for its own deletion: freeing space is what it is for.)
RetiredFolderHandOff.run()
exit(status)
