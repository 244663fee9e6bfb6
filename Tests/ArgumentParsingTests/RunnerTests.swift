import ArgumentParsing
import Testing

@Suite struct RunnerTests {
    @Test func exitCodesAndWhereMessagesGo() {
        let ok = runTool(["copy", "SRC", "-o", "o", "--root", "r"])
        #expect(ok.status == 0 && ok.output.isEmpty && ok.errors.isEmpty)
        let failed = runTool(["copy", "fail", "-o", "o", "--root", "r"])
        #expect(failed.status == 1 && failed.errors == "error: it failed")
        let misuse = runTool(["copy", "misuse", "-o", "o", "--root", "r"])
        #expect(misuse.status == 2 && misuse.errors == "error: bad use\nusage: tool copy SOURCE [DEST] [options]; see 'tool copy --help'")
        let other = runTool(["copy", "other", "-o", "o", "--root", "r"])
        #expect(other.status == 1 && other.errors == "error: something else went wrong")
        #expect(runTool(["ping", "--loud"]).status == 3)
    }

    @Test func helpIsOutputAndExitsZero() {
        let help = runTool(["copy", "--budget", "nonsense", "-h"])
        #expect(help.status == 0 && help.errors.isEmpty)
        #expect(help.output.hasPrefix("OVERVIEW: Copy things.\n\nUSAGE: tool copy SOURCE [DEST] [options]\n\nA sample command.\n\nOPTIONS:\n"))
        #expect(help.output.contains("  -o, --output FILE               Where to write."))
        #expect(help.output.contains("--budget SIZE                   A size. Sizes: decimal units (5M = 5,000,000 bytes; KiB/MiB/GiB for binary)."))
        #expect(help.output.contains("--root DIR"))
        #expect(help.output.hasSuffix("  -h, --help                      Show this help."))
        #expect(runTool(["help", "copy"]).output == help.output)
        let top = runTool(["--help"])
        #expect(top.status == 0 && top.output.hasPrefix("tool — a sample.\n\nUSAGE: tool <command> [options]\n\nCOMMANDS:\n  copy            Copy things."))
        #expect(runTool(["help"]).output == top.output)
        #expect(runTool(["help", "convert", "ping"]).output.hasPrefix("OVERVIEW: Ping.\n\nUSAGE: tool convert ping [options]"))
    }

    @Test func helpAfterDoubleDashIsAnArgument() {
        let r = runTool(["copy", "-o", "o", "--root", "r", "--", "-h"])
        #expect(r.status == 0 && r.output.isEmpty)
        let extra = runTool(["copy", "--", "-h", "-o", "out"])
        #expect(extra.status == 2 && extra.output.isEmpty)
        #expect(extra.errors.hasPrefix("error: 'tool copy' takes 1 to 2 argument(s) (SOURCE [DEST]), got 3"))
    }

    @Test func declaredSubcommands() {
        #expect(runTool(["convert", "list", "a", "b"]).status == 0)
        #expect(runTool(["convert", "ping", "--loud"]).status == 3)
        let group = runTool(["convert", "--help"])
        #expect(group.status == 0 && group.output.hasPrefix("OVERVIEW: Convert.\n\nUSAGE: tool convert <command> [options]"))
        #expect(group.output.contains("  list            List.\n  ping            Ping."))
        let missing = runTool(["convert"])
        #expect(missing.status == 2 && missing.errors == "error: 'tool convert' takes 'list' or 'ping' first\nusage: tool convert <command> [options]; see 'tool convert --help'")
        let wrong = runTool(["convert", "lst"])
        #expect(wrong.status == 2 && wrong.errors.hasPrefix("error: 'tool convert' takes 'list' or 'ping' first, not 'lst'. Did you mean 'list'?"))
        let leaf = runTool(["convert", "ping", "--lod"])
        #expect(leaf.status == 2 && leaf.errors.hasPrefix("error: unknown option --lod for 'tool convert ping'; did you mean --loud?"))
    }

    @Test func unknownAndMissingCommands() {
        let none = runTool([])
        #expect(none.status == 2 && none.output.isEmpty && none.errors.hasPrefix("tool — a sample."))
        let unknown = runTool(["cpy"])
        #expect(unknown.status == 2 && unknown.errors == "error: unknown command 'cpy'. Did you mean 'copy'? Commands: copy, convert, ping")
        #expect(runTool(["frobnicate"]).errors == "error: unknown command 'frobnicate'. Commands: copy, convert, ping")
    }
}
