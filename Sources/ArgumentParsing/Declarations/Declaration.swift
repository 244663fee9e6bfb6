/// What the parser sees of a declared option or flag: its spelling, its help, and where its
/// values go. Each `@Option` and `@Flag` holds one; the parser finds them by reflection.
final class OptionDeclaration {
    /// Every spelling, e.g. ["-o", "--output"].
    let names: [String]
    /// The value's placeholder (`FILE`), or nil for a flag.
    let valueName: String?
    let help: String
    let isRepeatable: Bool
    /// Stores the values given (one empty string per occurrence of a flag); throws a usage
    /// error naming the option when one does not convert or a required option is missing.
    let assign: ([String]) throws(CLIError) -> Void

    init(names: [String], valueName: String?, help: String, isRepeatable: Bool,
         assign: @escaping ([String]) throws(CLIError) -> Void) {
        precondition(!names.isEmpty && names.allSatisfy { $0.hasPrefix("-") && $0.count >= 2 }, "option names start with - or --")
        self.names = names
        self.valueName = valueName
        self.help = help
        self.isRepeatable = isRepeatable
        self.assign = assign
    }

    /// The name errors use: the longest spelling.
    var displayName: String { names.max { $0.count < $1.count }! }
}

/// What the parser sees of a declared positional argument.
final class ArgumentDeclaration {
    /// As shown in the usage line: `PACKFILE`, `MANIFEST...`, `[DIR]`.
    let usageName: String
    /// How many command-line arguments it takes.
    let count: ClosedRange<Int>
    let assign: ([String]) throws(CLIError) -> Void

    init(usageName: String, count: ClosedRange<Int>, assign: @escaping ([String]) throws(CLIError) -> Void) {
        self.usageName = usageName
        self.count = count
        self.assign = assign
    }
}

/// A property wrapper the parser collects.
protocol DeclarationProvider {
    var declaration: Declared { get }
}

enum Declared {
    case option(OptionDeclaration)
    case argument(ArgumentDeclaration)
}

/// Where a declaration keeps its value once parsed: shared between the property wrapper (in the
/// command value) and the declaration (in the parser).
final class ValueBox<Value> {
    var value: Value?
}

/// Converts every text to `Element`, or throws a usage error naming `name`.
func convert<Element: ArgumentValue>(_ texts: [String], for name: String) throws(CLIError) -> [Element] {
    var values: [Element] = []
    for text in texts {
        guard let v = Element(argument: text) else { throw .usage("\(name) takes \(Element.expectation), got '\(text)'") }
        values.append(v)
    }
    return values
}
