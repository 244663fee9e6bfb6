/// A positional argument, declared with its type; the arity follows from it:
///
///     @Argument("PACKFILE") var pack: String                   // exactly one
///     @Argument("DIR") var directory: String?                  // shown as [DIR]: zero or one
///     @Argument("MANIFEST", atLeast: 1) var manifests: [String] // shown as MANIFEST...
///
/// Arguments take the command line's positionals in declaration order; only the last may be
/// optional or variadic. Everything after `--` is positional, even `-h`.
@propertyWrapper
public struct Argument<Value: ArgumentStorage>: DeclarationProvider {
    private let box = ValueBox<Value>()
    let declaration: Declared

    /// `atLeast` applies to variadic (`[T]`) arguments.
    public init(_ name: String, atLeast minimum: Int = 1) {
        let box = self.box
        let required = Value.assemble([]) == nil
        let count: ClosedRange<Int> = Value.isRepeatable ? minimum...Int.max : required ? 1...1 : 0...1
        let usage = Value.isRepeatable ? "\(name)..." : required ? name : "[\(name)]"
        declaration = .argument(ArgumentDeclaration(usageName: usage, count: count) { texts throws(CLIError) in
            let values: [Value.Item] = try convert(texts, for: name)
            guard let assembled = Value.assemble(values) else { throw .usage("missing argument \(name)") }
            box.value = assembled
        })
    }

    public var wrappedValue: Value {
        guard let value = box.value else { preconditionFailure("argument read before the command line was parsed") }
        return value
    }
}
