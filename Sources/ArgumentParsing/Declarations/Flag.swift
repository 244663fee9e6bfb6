/// An option without a value: true when given.
///
///     @Flag("--json", help: "Print JSON.") var json: Bool
@propertyWrapper
public struct Flag: DeclarationProvider {
    private let box = ValueBox<Bool>()
    let declaration: Declared

    public init(_ names: String..., help: String) {
        let box = self.box
        declaration = .option(OptionDeclaration(names: names, valueName: nil, help: help, isRepeatable: true) { occurrences throws(CLIError) in
            box.value = !occurrences.isEmpty
        })
    }

    public var wrappedValue: Bool {
        guard let value = box.value else { preconditionFailure("flag read before the command line was parsed") }
        return value
    }
}
