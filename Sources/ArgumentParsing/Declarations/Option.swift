import AssetPackFormat

/// An option with a value, declared once with its type:
///
///     @Option("-o", "--output", value: "DIR", help: "Where to write.") var output: String      // required
///     @Option("--threads", value: "N", help: "Worker threads.") var threads: Int?             // optional
///     @Option("--level", value: "N", help: "Level.", default: 3) var level: Int32             // with a default
///     @Option("--repo", value: "URL", help: "A mirror; repeatable.") var repos: [String]      // repeatable
///
/// Values arrive as `--output DIR`, `--output=DIR` or `-o DIR`; a non-repeatable option given
/// twice is a usage error. A numeric option declares the range it allows once, and every value
/// is checked against it:
///
///     @Option("--threads", value: "N", help: "Worker threads.", range: 1...64) var threads: Int?
@propertyWrapper
public struct Option<Value: ArgumentStorage>: DeclarationProvider {
    private let box = ValueBox<Value>()
    let declaration: Declared

    public init(_ names: String..., value valueName: String, help: String, default defaultValue: Value? = nil) {
        self.init(names: names, valueName: valueName, help: help, default: defaultValue) { _, _ throws(CLIError) in }
    }

    /// An option whose every value must lie in `range` (`reason`, if given, says why it stops
    /// there): "--threads must be from 1 to 8 (4 × the 2 cores), got 100000" is a usage error.
    /// The help says the range.
    public init(_ names: String..., value valueName: String, help: String, default defaultValue: Value? = nil,
                range: ClosedRange<Value.Item>, reason: String? = nil) where Value.Item: BoundedArgumentValue {
        let note = " Range: \(range.lowerBound.boundText) to \(range.upperBound.boundText)\(reason.map { " (\($0))" } ?? "")."
        self.init(names: names, valueName: valueName, help: help + note, default: defaultValue) { value, display throws(CLIError) in
            if let problem = SettingBounds.problem(display, value, in: range, reason: reason, describe: \.boundText) { throw .usage(problem) }
        }
    }

    private init(names: [String], valueName: String, help: String, default defaultValue: Value?,
                 check: @escaping (Value.Item, String) throws(CLIError) -> Void) {
        let box = self.box
        let display = names.max { $0.count < $1.count } ?? ""
        let note = Value.Item.helpNote.map { " " + $0 } ?? ""
        declaration = .option(OptionDeclaration(names: names, valueName: valueName, help: help + note,
                                                isRepeatable: Value.isRepeatable) { texts throws(CLIError) in
            if texts.isEmpty, let defaultValue {
                box.value = defaultValue
                return
            }
            let values: [Value.Item] = try convert(texts, for: display)
            for value in values { try check(value, display) }
            guard let assembled = Value.assemble(values) else { throw .usage("missing required option \(display)") }
            box.value = assembled
        })
    }

    public var wrappedValue: Value {
        guard let value = box.value else { preconditionFailure("option read before the command line was parsed") }
        return value
    }
}
