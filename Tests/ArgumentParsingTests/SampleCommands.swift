import ArgumentParsing

/// Options several sample commands share.
struct SharedOptions: ParsableArguments {
    @Option("--root", value: "DIR", help: "The root.")
    var root: String
    @Option("--wait", value: "SECONDS", help: "How long to wait.", default: .seconds(30))
    var wait: Duration
    init() {}
}

/// A command with one of each kind of declaration.
struct CopyCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "copy", abstract: "Copy things.", discussion: "A sample command.")
    }

    @Argument("SOURCE")
    var source: String
    @Argument("DEST")
    var destination: String?
    @Option("-o", "--output", value: "FILE", help: "Where to write.")
    var output: String
    @Option("--level", value: "N", help: "A level.", default: 3)
    var level: Int
    @Option("--mirror", value: "URL", help: "A mirror; repeatable.")
    var mirrors: [String]
    @Option("--budget", value: "SIZE", help: "A size.")
    var budget: ByteSize?
    @Option("--expires", value: "DURATION", help: "A duration with a unit.")
    var expires: DurationWithUnit?
    @Option("--latency", value: "MS", help: "Milliseconds.")
    var latency: DurationInMilliseconds?
    @Option("--rate", value: "P", help: "A probability.")
    var rate: Probability?
    @Option("--port", value: "N", help: "A port.", default: 8080)
    var port: UInt16
    @Flag("--json", help: "Print JSON.")
    var json: Bool
    var shared = SharedOptions()

    init() {}

    func run() throws -> Int32 {
        if source == "fail" { throw CLIError.failure("it failed") }
        if source == "misuse" { throw CLIError.usage("bad use") }
        if source == "other" { throw SampleError() }
        return 0
    }
}

struct SampleError: Error, CustomStringConvertible {
    var description: String { "something else went wrong" }
}

/// A command that takes any number of arguments, at least one, and no options.
struct ListCommand: Command {
    static var configuration: CommandConfiguration { CommandConfiguration(name: "list", abstract: "List.") }
    @Argument("ITEM", atLeast: 1)
    var items: [String]
    init() {}
    func run() throws -> Int32 { 0 }
}

/// A command without arguments.
struct PingCommand: Command {
    static var configuration: CommandConfiguration { CommandConfiguration(name: "ping", abstract: "Ping.") }
    @Flag("--loud", help: "Loudly.")
    var loud: Bool
    init() {}
    func run() throws -> Int32 { loud ? 3 : 0 }
}

/// A group with two subcommands.
struct ConvertGroup: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "convert", abstract: "Convert.", subcommands: [ListCommand.self, PingCommand.self])
    }
    init() {}
}

/// The tool.
struct Tool: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "tool", abstract: "tool — a sample.", subcommands: [CopyCommand.self, ConvertGroup.self, PingCommand.self])
    }
    init() {}
}

/// Runs `arguments` against `Tool`, collecting what it prints.
func runTool(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
    var output: [String] = [], errors: [String] = []
    let status = CommandRunner.run(arguments, root: Tool.self, output: { output.append($0) }, errorOutput: { errors.append($0) })
    return (status, output.joined(separator: "\n"), errors.joined(separator: "\n"))
}

/// Parses `arguments` as `copy`; the command, or nil when help was asked for.
func parseCopy(_ arguments: [String]) throws(CLIError) -> CopyCommand? {
    switch try CopyCommand.parse(arguments, commandPath: "tool copy") {
    case .command(let c): return c
    case .help: return nil
    }
}

/// A command whose numeric options declare the ranges they allow.
struct PoolCommand: Command {
    static var configuration: CommandConfiguration { CommandConfiguration(name: "pool", abstract: "Bounded options.") }

    @Option("--threads", value: "N", help: "Workers.", range: 1...8, reason: "4 × the 2 cores")
    var threads: Int?
    @Option("--level", value: "N", help: "A level.", default: 3, range: 1...19)
    var level: Int32
    @Option("--cache", value: "SIZE", help: "A cache.", range: ByteSize(bytes: 1000)...ByteSize(bytes: 1 << 30))
    var cache: ByteSize?
    @Option("--weight", value: "N", help: "Weights; repeatable.", range: 0...1)
    var weights: [Double]

    init() {}
    func run() throws -> Int32 { 0 }
}

func parsePool(_ arguments: [String]) throws(CLIError) -> PoolCommand? {
    switch try PoolCommand.parse(arguments, commandPath: "tool pool") {
    case .command(let c): return c
    case .help: return nil
    }
}
