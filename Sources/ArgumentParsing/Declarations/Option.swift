/// An option with a value, declared once with its type:
///
///     @Option("-o", "--output", value: "DIR", help: "Where to write.") var output: String      // required
///     @Option("--threads", value: "N", help: "Worker threads.") var threads: Int?             // optional
///     @Option("--level", value: "N", help: "Level.", default: 3) var level: Int32             // with a default
///     @Option("--repo", value: "URL", help: "A mirror; repeatable.") var repos: [String]      // repeatable
///
/// Values arrive as `--output DIR`, `--output=DIR` or `-o DIR`; a non-repeatable option given
/// twice is a usage error.
@propertyWrapper
public struct Option<Value: ArgumentStorage>: DeclarationProvider {
    private let box = ValueBox<Value>()
    let declaration: Declared

    public init(_ names: String..., value valueName: String, help: String, default defaultValue: Value? = nil) {
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
            guard let assembled = Value.assemble(values) else { throw .usage("missing required option \(display)") }
            box.value = assembled
        })
    }

    public var wrappedValue: Value {
        guard let value = box.value else { preconditionFailure("option read before the command line was parsed") }
        return value
    }
}
