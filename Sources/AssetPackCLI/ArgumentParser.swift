import Foundation

/// Parses `arguments` (after the subcommand name) against `spec`. Accepts `--name value`,
/// `--name=value`, `-o value`, flags anywhere, and `--` to end options.
public func parseArguments(_ arguments: [String], for spec: CommandSpec) throws(CLIError) -> ParsedArguments {
    var byName: [String: OptionSpec] = [:]
    for o in spec.options { for n in o.names { byName[n] = o } }
    var parsed = ParsedArguments()
    var i = 0
    var optionsEnded = false
    while i < arguments.count {
        let arg = arguments[i]
        i += 1
        if optionsEnded || !arg.hasPrefix("-") || arg == "-" {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { optionsEnded = true; continue }
        var name = arg
        var inline: String?
        if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
            name = String(arg[..<eq])
            inline = String(arg[arg.index(after: eq)...])
        }
        guard let option = byName[name] else {
            throw .usage("unknown option \(name) for 'assetpack \(spec.name)' (see 'assetpack \(spec.name) --help')")
        }
        if option.valueName == nil {
            guard inline == nil else { throw .usage("\(name) takes no value") }
            parsed.flags.insert(option.key)
            continue
        }
        let value: String
        if let inline { value = inline } else {
            guard i < arguments.count else { throw .usage("\(name) needs a value (\(option.valueName!))") }
            value = arguments[i]
            i += 1
        }
        if !option.repeatable, parsed.values[option.key] != nil { throw .usage("\(name) may be given only once") }
        parsed.values[option.key, default: []].append(value)
    }
    guard spec.positionalCount.contains(parsed.positionals.count) else {
        let expected = spec.positionalCount.lowerBound == spec.positionalCount.upperBound
            ? "\(spec.positionalCount.lowerBound)" : spec.positionalCount.upperBound == Int.max
            ? "at least \(spec.positionalCount.lowerBound)" : "\(spec.positionalCount.lowerBound) to \(spec.positionalCount.upperBound)"
        throw .usage("'assetpack \(spec.name)' takes \(expected) argument(s) (\(spec.arguments)), got \(parsed.positionals.count)")
    }
    return parsed
}

/// Runs the command line `arguments` (without the program name) against `commands`; returns the
/// exit status. Help goes to standard output, errors to standard error.
public func runCommandLine(_ arguments: [String], commands: [CommandSpec], overview: String,
                           output: (String) -> Void, errorOutput: (String) -> Void) -> Int32 {
    func topHelp() -> String {
        var lines = [overview, "", "USAGE: assetpack <command> [options]", "", "COMMANDS:"]
        for c in commands { lines.append("  " + c.name.padding(toLength: 16, withPad: " ", startingAt: 0) + c.abstract) }
        lines += ["", "See 'assetpack <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }
    guard let first = arguments.first else {
        errorOutput(topHelp())
        return 2
    }
    if first == "-h" || first == "--help" || first == "help" {
        if first == "help", arguments.count > 1, let c = commands.first(where: { $0.name == arguments[1] }) {
            output(c.help)
        } else {
            output(topHelp())
        }
        return 0
    }
    guard let command = commands.first(where: { $0.name == first }) else {
        errorOutput("error: unknown command '\(first)'. Commands: \(commands.map(\.name).joined(separator: ", "))")
        return 2
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("-h") || rest.contains("--help") {
        output(command.help)
        return 0
    }
    do {
        let parsed = try parseArguments(rest, for: command)
        return try command.run(parsed)
    } catch let error as CLIError {
        errorOutput("error: \(error)")
        if case .usage = error { errorOutput("usage: assetpack \(command.name) \(command.arguments) [options]; see 'assetpack \(command.name) --help'") }
        return error.exitCode
    } catch {
        errorOutput("error: \(error)")
        return 1
    }
}
