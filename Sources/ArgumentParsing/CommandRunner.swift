/// Runs a command line against a tool's tree of commands and returns the exit status: 0 on
/// success and for help, 1 on failure, 2 on a usage error. Help goes to `output`, errors to
/// `errorOutput`.
///
/// Words name the subcommand down the tree (`assetpack convert odr …`); the command reached
/// parses the rest. `TOOL help [COMMAND…]` prints a command's help; `TOOL` alone prints the
/// tool's help as an error.
public enum CommandRunner {
    public static func run(_ arguments: [String], root: any Command.Type,
                           output: (String) -> Void, errorOutput: (String) -> Void) -> Int32 {
        if arguments.first == "help" {
            let (target, path) = deepest(root, along: Array(arguments.dropFirst()))
            output(HelpText.any(target, path: path))
            return 0
        }
        var command: any Command.Type = root
        var path = root.configuration.name
        var rest = arguments
        while !command.configuration.subcommands.isEmpty {
            switch step(command, path: path, word: rest.first, isRoot: path == root.configuration.name) {
            case .subcommand(let sub):
                command = sub
                path += " " + sub.configuration.name
                rest.removeFirst()
            case .help(let text):
                output(text)
                return 0
            case .usageError(let lines):
                for line in lines { errorOutput(line) }
                return 2
            }
        }
        let result: Result<Int32?, any Error>
        do { result = .success(try command.parseAndRun(rest, path: path)) } catch { result = .failure(error) }
        switch result {
        case .success(.some(let status)):
            return status
        case .success(.none):
            output(HelpText.command(command, path: path))
            return 0
        case .failure(let error as CLIError):
            errorOutput("error: \(error)")
            if case .usage = error { errorOutput(HelpText.usageLine(command, path: path)) }
            return error.exitCode
        case .failure(let error):
            errorOutput("error: \(error)")
            return 1
        }
    }

    private enum Step {
        case subcommand(any Command.Type)
        case help(String)
        case usageError([String])
    }

    /// What the word after a group of subcommands does.
    private static func step(_ group: any Command.Type, path: String, word: String?, isRoot: Bool) -> Step {
        let names = group.configuration.subcommands.map { $0.configuration.name }
        guard let word else {
            if isRoot { return .usageError([HelpText.group(group, path: path)]) }
            return .usageError(["error: '\(path)' takes \(alternatives(names)) first", HelpText.usageLine(group, path: path)])
        }
        if word == "-h" || word == "--help" { return .help(HelpText.group(group, path: path)) }
        if let sub = group.configuration.subcommands.first(where: { $0.configuration.name == word }) { return .subcommand(sub) }
        var suggestion = ""
        if let near = Suggestion.closest(to: word, among: names) { suggestion = " Did you mean '\(near)'?" }
        if isRoot { return .usageError(["error: unknown command '\(word)'.\(suggestion) Commands: \(names.joined(separator: ", "))"]) }
        return .usageError(["error: '\(path)' takes \(alternatives(names)) first, not '\(word)'.\(suggestion)",
                            HelpText.usageLine(group, path: path)])
    }

    /// The command the words name, as far as they name one, and its path.
    private static func deepest(_ root: any Command.Type, along words: [String]) -> (any Command.Type, String) {
        var target: any Command.Type = root
        var path = root.configuration.name
        for word in words {
            guard let sub = target.configuration.subcommands.first(where: { $0.configuration.name == word }) else { break }
            target = sub
            path += " " + word
        }
        return (target, path)
    }

    /// "'odr' or 'vdf'", "'a', 'b' or 'c'".
    private static func alternatives(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        return quoted.count < 2 ? quoted.joined() : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}

extension Command {
    /// The exit status, or nil when help was asked for.
    fileprivate static func parseAndRun(_ arguments: [String], path: String) throws -> Int32? {
        switch try parse(arguments, commandPath: path) {
        case .help: return nil
        case .command(let command): return try command.run()
        }
    }
}
