import ArgumentParsing
import Testing

@Suite struct ParsingTests {
    let required = ["SRC", "-o", "out", "--root", "r"]

    @Test func typedValuesDefaultsAndGroups() throws {
        let c = try #require(try parseCopy(required))
        #expect(c.source == "SRC" && c.destination == nil && c.output == "out")
        #expect(c.level == 3 && c.port == 8080 && c.mirrors.isEmpty && c.budget == nil && !c.json)
        #expect(c.shared.root == "r" && c.shared.wait == .seconds(30))
        let d = try #require(try parseCopy(["--json", "SRC", "DST", "--level", "7", "--port=9000", "--output=o", "--root=x",
                                            "--budget", "5M", "--expires", "12h", "--latency", "250", "--rate", "0.5", "--wait", "1.5"]))
        #expect(d.destination == "DST" && d.level == 7 && d.port == 9000 && d.output == "o" && d.json)
        #expect(d.budget == ByteSize(bytes: 5_000_000) && d.expires == DurationWithUnit(.seconds(43_200)))
        #expect(d.latency == DurationInMilliseconds(.milliseconds(250)) && d.rate?.value == 0.5 && d.shared.wait == .milliseconds(1500))
    }

    @Test func equalsFormAndShortNamesAndValuesThatLookLikeOptions() throws {
        let c = try #require(try parseCopy(["-o", "-weird-name", "SRC", "--root=a=b", "--mirror="]))
        #expect(c.output == "-weird-name" && c.shared.root == "a=b" && c.mirrors == [""])
    }

    @Test func repeatedOptions() throws {
        let c = try #require(try parseCopy(required + ["--mirror", "a", "--mirror=b", "--mirror", "c"]))
        #expect(c.mirrors == ["a", "b", "c"])
        #expect(throws: CLIError.usage("--level may be given only once")) { try parseCopy(required + ["--level", "1", "--level=2"]) }
        #expect(throws: CLIError.usage("-o may be given only once")) { try parseCopy(required + ["-o", "again"]) }
        // A flag may be repeated.
        #expect(try parseCopy(required + ["--json", "--json"])?.json == true)
    }

    @Test func doubleDashEndsOptions() throws {
        let c = try #require(try parseCopy(["-o", "out", "--root", "r", "--", "-h"]))
        #expect(c.source == "-h")
        let d = try #require(try parseCopy(["-o", "out", "--root", "r", "--", "--json", "--"]))
        #expect(d.source == "--json" && d.destination == "--" && !d.json)
        // "-" alone is a positional (standard input, by convention).
        #expect(try parseCopy(required.dropFirst() + ["-"])?.source == "-")
        // Before "--", -h asks for help even among mistakes; after it, it does not.
        #expect(try parseCopy(["--bogus", "-h"]) == nil)
        #expect(try parseCopy(["--help"]) == nil)
        #expect(throws: CLIError.usage("'tool copy' takes 1 to 2 argument(s) (SOURCE [DEST]), got 3")) {
            try parseCopy(["-o", "out", "--root", "r", "--", "-h", "-o", "x"])
        }
    }

    @Test func unknownOptionsGetASuggestion() {
        #expect(throws: CLIError.usage("unknown option --ouptut for 'tool copy'; did you mean --output? (see 'tool copy --help')")) {
            try parseCopy(required + ["--ouptut", "x"])
        }
        #expect(throws: CLIError.usage("unknown option --mirrors for 'tool copy'; did you mean --mirror? (see 'tool copy --help')")) {
            try parseCopy(required + ["--mirrors", "x"])
        }
        #expect(throws: CLIError.usage("unknown option -output for 'tool copy'; did you mean --output? (see 'tool copy --help')")) {
            try parseCopy(required + ["-output", "x"])
        }
        #expect(throws: CLIError.usage("unknown option --bogus for 'tool copy' (see 'tool copy --help')")) {
            try parseCopy(required + ["--bogus"])
        }
        #expect(throws: CLIError.usage("unknown option -x for 'tool copy' (see 'tool copy --help')")) {
            try parseCopy(required + ["-x"])
        }
    }

    @Test func missingValuesAndMisusedFlags() {
        #expect(throws: CLIError.usage("--level needs a value (N)")) { try parseCopy(required + ["--level"]) }
        #expect(throws: CLIError.usage("-o needs a value (FILE)")) { try parseCopy(["SRC", "--root", "r", "-o"]) }
        #expect(throws: CLIError.usage("--json takes no value")) { try parseCopy(required + ["--json=yes"]) }
        #expect(throws: CLIError.usage("missing required option --output")) { try parseCopy(["SRC", "--root", "r"]) }
        #expect(throws: CLIError.usage("missing required option --root")) { try parseCopy(["SRC", "-o", "o"]) }
    }

    @Test func argumentCounts() {
        #expect(throws: CLIError.usage("'tool copy' takes 1 to 2 argument(s) (SOURCE [DEST]), got 0")) { try parseCopy(["-o", "o", "--root", "r"]) }
        #expect(throws: CLIError.usage("'list' takes at least 1 argument(s) (ITEM...), got 0")) { try ListCommand.parse([]) }
        #expect(throws: CLIError.usage("'ping' takes no arguments, got 1 ('extra')")) { try PingCommand.parse(["extra"]) }
    }

    @Test func valuesOfTheWrongType() {
        let cases: [([String], String)] = [
            (["--level", "x"], "--level takes a whole number, got 'x'"),
            (["--port", "70000"], "--port takes a whole number from 0 to 65535, got '70000'"),
            (["--rate", "1.5"], "--rate takes a probability from 0 to 1, got '1.5'"),
            (["--budget", "12Q"], "--budget takes a size in decimal units (5M = 5,000,000 bytes; KiB/MiB/GiB for binary), got '12Q'"),
            (["--budget", "-5M"], "--budget takes a size in decimal units (5M = 5,000,000 bytes; KiB/MiB/GiB for binary), got '-5M'"),
            (["--expires", "30"], "--expires takes a duration: 90s, 15m, 12h, 30d (also ms), got '30'"),
            (["--expires", "1w"], "--expires takes a duration: 90s, 15m, 12h, 30d (also ms), got '1w'"),
            (["--wait", "soon"], "--wait takes a duration: 90s, 15m, 12h, 30d (also ms), or seconds, got 'soon'"),
            (["--latency", "fast"], "--latency takes a duration: 90s, 15m, 12h, 30d (also ms), or milliseconds, got 'fast'"),
        ]
        for (extra, message) in cases {
            #expect(throws: CLIError.usage(message), "\(extra)") { try parseCopy(required + extra) }
        }
    }

    @Test func theFirstMistakeIsReported() {
        #expect(throws: CLIError.usage("unknown option --a for 'tool copy' (see 'tool copy --help')")) {
            try parseCopy(["--a", "--b", "SRC"])
        }
    }
}
