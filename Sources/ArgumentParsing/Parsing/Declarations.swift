/// The options and arguments a command declares, found by reflection on a fresh value of it
/// (its `@Option`, `@Flag` and `@Argument` properties, and those of its `ParsableArguments`
/// properties), in declaration order.
struct Declarations {
    var options: [OptionDeclaration] = []
    var arguments: [ArgumentDeclaration] = []

    init(of value: any ParsableArguments) {
        collect(from: value)
    }

    private mutating func collect(from value: Any) {
        for child in Mirror(reflecting: value).children {
            if let provider = child.value as? any DeclarationProvider {
                switch provider.declaration {
                case .option(let o): options.append(o)
                case .argument(let a): arguments.append(a)
                }
            } else if let group = child.value as? any ParsableArguments {
                collect(from: group)
            }
        }
    }

    /// The options by every spelling. Two declarations of one name are a programming error.
    var byName: [String: OptionDeclaration] {
        var names: [String: OptionDeclaration] = [:]
        for o in options {
            for n in o.names {
                precondition(names[n] == nil && n != "-h" && n != "--help", "option \(n) is declared twice")
                names[n] = o
            }
        }
        return names
    }

    /// How many positionals the arguments take together.
    var positionalCount: ClosedRange<Int> {
        let lower = arguments.reduce(0) { $0 + $1.count.lowerBound }
        let upper = arguments.reduce(0) { $0 > Int.max - $1.count.upperBound ? Int.max : $0 + $1.count.upperBound }
        return lower...upper
    }

    /// `PACKFILE`, `DIR s3://BUCKET/PREFIX`, `MANIFEST...`.
    var usage: String { arguments.map(\.usageName).joined(separator: " ") }
}
