import ArgumentParsing
import Foundation

let status = CommandRunner.run(
    Array(CommandLine.arguments.dropFirst()),
    root: AssetpackCommand.self,
    output: { print($0) },
    errorOutput: { printError($0) })
fflush(nil)
exit(status)
