import ArgumentParsing
import Testing

/// Options declared with `range:` refuse values outside it with a usage error (exit 2) that
/// names the option, the range and the value, and say their range in the help.
@Suite struct BoundedOptionTests {
    @Test func valuesInsideTheRangePass() throws {
        let p = try #require(try parsePool(["--threads", "8", "--level=19", "--cache", "1GiB", "--weight", "0", "--weight", "1"]))
        #expect(p.threads == 8 && p.level == 19 && p.cache == ByteSize(bytes: 1 << 30) && p.weights == [0, 1])
        let q = try #require(try parsePool([]))
        #expect(q.threads == nil && q.level == 3 && q.cache == nil && q.weights.isEmpty)
    }

    @Test func valuesOutsideTheRangeAreUsageErrorsNamingOptionAndRange() {
        #expect(throws: CLIError.usage("--threads must be from 1 to 8 (4 × the 2 cores), got 100000")) { try parsePool(["--threads", "100000"]) }
        #expect(throws: CLIError.usage("--threads must be from 1 to 8 (4 × the 2 cores), got 0")) { try parsePool(["--threads=0"]) }
        #expect(throws: CLIError.usage("--threads must be from 1 to 8 (4 × the 2 cores), got -3")) { try parsePool(["--threads", "-3"]) }
        #expect(throws: CLIError.usage("--level must be from 1 to 19, got 20")) { try parsePool(["--level", "20"]) }
        #expect(throws: CLIError.usage("--cache must be from 1.0 kB (1000 bytes) to 1.1 GB (1073741824 bytes), got 999 bytes")) {
            try parsePool(["--cache", "999"])
        }
        // Each value of a repeatable option is checked.
        #expect(throws: CLIError.usage("--weight must be from 0.0 to 1.0, got 1.5")) { try parsePool(["--weight", "0.5", "--weight", "1.5"]) }
        // A malformed value is still reported as such.
        #expect(throws: CLIError.usage("--threads takes a whole number, got 'many'")) { try parsePool(["--threads", "many"]) }
        #expect(CLIError.usage("").exitCode == 2)
    }

    @Test func theHelpSaysTheRangeAndAnErrorExitsTwo() {
        let help = runPool(["--help"]).output
        #expect(help.contains("Workers. Range: 1 to 8 (4 × the 2 cores)."), "\(help)")
        #expect(help.contains("A level. Range: 1 to 19."), "\(help)")
        let refused = runPool(["--threads", "100000"])
        #expect(refused.status == 2 && refused.errors.contains("--threads must be from 1 to 8 (4 × the 2 cores), got 100000"), "\(refused.errors)")
    }

    /// Runs `pool` as a tool of its own: exit status, standard output, standard error.
    private func runPool(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        var output: [String] = [], errors: [String] = []
        let status = CommandRunner.run(arguments, root: PoolCommand.self, output: { output.append($0) }, errorOutput: { errors.append($0) })
        return (status, output.joined(separator: "\n"), errors.joined(separator: "\n"))
    }
}
