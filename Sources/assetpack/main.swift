import ArgumentParsing
import AssetPacks
import CPOSIX
import Foundation

// Buffers of a megabyte or more (a large index's decompressed file table, an index patch's
// expanded indexes, the writer's blocks) go back to the system when freed, rather than staying
// with the process once glibc has raised its threshold past them: an update of a million small
// files peaks about 29 MiB lower so. Set higher, the blocks below it that threads allocate stay
// in each thread's arena (a package of 100,000 files peaked 11 MiB higher at 4 MiB).
_ = cposix_map_allocations_from(1 << 20)

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
