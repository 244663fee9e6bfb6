import Foundation

/// An option a command accepts: a flag (no value) or an option with a value.
public struct OptionSpec: Sendable {
    public var names: [String]
    /// The value's placeholder (`FILE`), or nil for a flag.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given more than once.
    public var repeatable: Bool

    public static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help, repeatable: false)
    }

    public static func option(_ names: String..., value: String, help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(names: names, valueName: value, help: help, repeatable: repeatable)
    }

    /// The canonical name (the longest spelling) under which values are stored.
    public var key: String { names.max { $0.count < $1.count }! }
}

/// A subcommand of `assetpack`: its help text, options, positional arity and what it does.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    /// Positional arguments as shown in the usage line, e.g. `MANIFEST...`.
    public var arguments: String
    public var discussion: String
    public var options: [OptionSpec]
    public var positionalCount: ClosedRange<Int>
    public var run: @Sendable (ParsedArguments) throws -> Int32

    public init(name: String, abstract: String, arguments: String = "", discussion: String = "",
                options: [OptionSpec] = [], positionalCount: ClosedRange<Int> = 0...0,
                run: @escaping @Sendable (ParsedArguments) throws -> Int32) {
        self.name = name
        self.abstract = abstract
        self.arguments = arguments
        self.discussion = discussion
        self.options = options
        self.positionalCount = positionalCount
        self.run = run
    }

    public var help: String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: assetpack \(name)\(arguments.isEmpty ? "" : " " + arguments)\(options.isEmpty ? "" : " [options]")"]
        if !discussion.isEmpty { lines += ["", discussion] }
        lines += ["", "OPTIONS:"]
        for o in options + [.flag("-h", "--help", help: "Show this help.")] {
            let spelled = o.names.joined(separator: ", ") + (o.valueName.map { " \($0)" } ?? "")
            lines.append("  " + spelled.padding(toLength: max(spelled.count, 30), withPad: " ", startingAt: 0) + "  " + o.help)
        }
        return lines.joined(separator: "\n")
    }
}

/// A command line after parsing against a `CommandSpec`.
public struct ParsedArguments: Sendable {
    public var positionals: [String] = []
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of a required option, or a usage error naming it.
    public func required(_ name: String) throws(CLIError) -> String {
        guard let v = value(name) else { throw .usage("missing required option \(name)") }
        return v
    }
}

/// How a command ends when it does not succeed: usage errors exit 2, failures exit 1.
public enum CLIError: Error, CustomStringConvertible {
    case usage(String)
    case failure(String)

    public var description: String {
        switch self { case .usage(let m), .failure(let m): return m }
    }

    public var exitCode: Int32 {
        switch self { case .usage: return 2; case .failure: return 1 }
    }
}
