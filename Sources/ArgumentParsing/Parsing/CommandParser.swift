/// What parsing a command line gives: the command with its declarations filled, or a request
/// for its help.
public enum ParseResult<C: Command> {
    case command(C)
    case help
}

extension Command {
    /// Parses `arguments` (those after the command's name) into a new value of the command.
    /// `commandPath` is how errors name it ("assetpack extract").
    ///
    /// Options: `--name value`, `--name=value`, `-n value`, flags anywhere; `-h`/`--help`
    /// anywhere before `--` asks for help (even among mistakes); `--` ends the options, so that
    /// everything after it (`-h` included) is positional; `-` alone is positional. A value is
    /// taken as given, even when it starts with `-`.
    public static func parse(_ arguments: [String], commandPath: String? = nil) throws(CLIError) -> ParseResult<Self> {
        let path = commandPath ?? configuration.name
        let command = Self()
        let declarations = Declarations(of: command)
        let byName = declarations.byName
        var given: [ObjectIdentifier: [String]] = [:]
        var positionals: [String] = []
        var firstError: CLIError?
        var helpRequested = false
        var optionsEnded = false
        var i = 0
        func fail(_ message: String) { if firstError == nil { firstError = .usage(message) } }
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            var name = arg
            var inline: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if name == "-h" || name == "--help" { helpRequested = true; continue }
            guard let option = byName[name] else {
                let suggestion = Suggestion.closest(to: name, among: Array(byName.keys) + ["--help"]).map { "; did you mean \($0)?" } ?? ""
                fail("unknown option \(name) for '\(path)'\(suggestion) (see '\(path) --help')")
                continue
            }
            let key = ObjectIdentifier(option)
            guard let valueName = option.valueName else {
                if inline != nil { fail("\(name) takes no value") } else { given[key, default: []].append("") }
                continue
            }
            let value: String
            if let inline { value = inline } else {
                guard i < arguments.count else { fail("\(name) needs a value (\(valueName))"); continue }
                value = arguments[i]
                i += 1
            }
            if !option.isRepeatable, given[key] != nil { fail("\(name) may be given only once") }
            given[key, default: []].append(value)
        }
        if helpRequested { return .help }
        if let firstError { throw firstError }
        let count = declarations.positionalCount
        guard count.contains(positionals.count) else {
            throw .usage(arityMessage(path: path, usage: declarations.usage, expected: count, got: positionals))
        }
        for option in declarations.options { try option.assign(given[ObjectIdentifier(option)] ?? []) }
        // Each argument takes its minimum, then the variadic and optional ones the rest, in order.
        var extra = positionals.count - count.lowerBound
        var next = 0
        for argument in declarations.arguments {
            let take = argument.count.lowerBound + min(extra, argument.count.upperBound - argument.count.lowerBound)
            extra -= take - argument.count.lowerBound
            try argument.assign(Array(positionals[next..<next + take]))
            next += take
        }
        return .command(command)
    }

    private static func arityMessage(path: String, usage: String, expected: ClosedRange<Int>, got: [String]) -> String {
        if expected.upperBound == 0 {
            return "'\(path)' takes no arguments, got \(got.count) ('\(got[0])')"
        }
        let number = expected.lowerBound == expected.upperBound ? "\(expected.lowerBound)"
            : expected.upperBound == Int.max ? "at least \(expected.lowerBound)"
            : "\(expected.lowerBound) to \(expected.upperBound)"
        return "'\(path)' takes \(number) argument(s) (\(usage)), got \(got.count)"
    }
}
