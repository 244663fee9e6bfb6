/// The help a command prints for `-h`/`--help`, made from its declarations.
enum HelpText {
    /// A command that runs: overview, usage, discussion, options.
    static func command(_ type: any Command.Type, path: String) -> String {
        let configuration = type.configuration
        let declarations = Declarations(of: type.init())
        let usage = declarations.usage
        var lines = ["OVERVIEW: \(configuration.abstract)", "",
                     "USAGE: \(path)\(usage.isEmpty ? "" : " " + usage)\(declarations.options.isEmpty ? "" : " [options]")"]
        if !configuration.discussion.isEmpty { lines += ["", configuration.discussion] }
        lines += ["", "OPTIONS:"]
        for o in declarations.options {
            lines.append(row(o.names.joined(separator: ", ") + (o.valueName.map { " \($0)" } ?? ""), o.help))
        }
        lines.append(row("-h, --help", "Show this help."))
        return lines.joined(separator: "\n")
    }

    /// A group of subcommands. The tool itself (a path of one word) opens with its abstract.
    static func group(_ type: any Command.Type, path: String) -> String {
        let configuration = type.configuration
        let isTool = !path.contains(" ")
        var lines = isTool ? [configuration.abstract] : ["OVERVIEW: \(configuration.abstract)"]
        lines += ["", "USAGE: \(path) <command> [options]"]
        if !configuration.discussion.isEmpty { lines += ["", configuration.discussion] }
        lines += ["", "COMMANDS:"]
        for c in configuration.subcommands where !c.configuration.isHidden {
            lines.append("  " + c.configuration.name.padding(toLength: 16, withPad: " ", startingAt: 0) + c.configuration.abstract)
        }
        lines += ["", "See '\(path) <command> --help' for a command's options."]
        return lines.joined(separator: "\n")
    }

    static func any(_ type: any Command.Type, path: String) -> String {
        type.configuration.subcommands.isEmpty ? command(type, path: path) : group(type, path: path)
    }

    /// The usage line shown after a usage error.
    static func usageLine(_ type: any Command.Type, path: String) -> String {
        if !type.configuration.subcommands.isEmpty { return "usage: \(path) <command> [options]; see '\(path) --help'" }
        let usage = Declarations(of: type.init()).usage
        return "usage: \(path)\(usage.isEmpty ? "" : " " + usage) [options]; see '\(path) --help'"
    }

    private static func row(_ spelled: String, _ help: String) -> String {
        "  " + spelled.padding(toLength: max(spelled.count, 30), withPad: " ", startingAt: 0) + "  " + help
    }
}
