/// A set of declared options and arguments: a command, or a group of options several commands
/// share (a stored property of a `ParsableArguments` type inside a command is searched too).
///
///     struct RootOptions: ParsableArguments {
///         @Option("--root", value: "DIR", help: "The storage root.") var root: String
///         init() {}
///     }
public protocol ParsableArguments {
    init()
}

/// A command of a command-line tool: its description, its declared options and arguments
/// (`@Option`, `@Flag`, `@Argument` properties, read in `run` through the declarations
/// themselves, so that a misspelt option does not compile), and what it does. A command with
/// `subcommands` only dispatches: its first argument names the subcommand.
public protocol Command: ParsableArguments {
    static var configuration: CommandConfiguration { get }
    /// Runs the command after its arguments are parsed; returns the exit status. Throws
    /// `CLIError` to end with a message (usage errors exit 2, failures 1); any other error
    /// exits 1 with its description.
    func run() throws -> Int32
}

extension Command {
    /// A group of subcommands is never run itself.
    public func run() throws -> Int32 {
        throw CLIError.usage("'\(Self.configuration.name)' needs a command")
    }
}

/// What a command says about itself in help and errors.
public struct CommandConfiguration {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var subcommands: [any Command.Type]
    /// Left out of the group's help: a command the tool runs for itself, not one for people.
    public var isHidden: Bool

    public init(name: String, abstract: String, discussion: String = "", subcommands: [any Command.Type] = [], isHidden: Bool = false) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.isHidden = isHidden
    }
}
