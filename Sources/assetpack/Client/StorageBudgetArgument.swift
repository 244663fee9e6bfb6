import ArgumentParsing
import AssetPackFormat

/// The value of `--storage-budget`: a size, or `none`.
enum StorageBudgetArgument: ArgumentValue {
    case none
    case bytes(UInt64)

    init?(argument: String) {
        if argument.lowercased() == "none" { self = .none; return }
        guard let size = ByteSize(argument: argument) else { return nil }
        self = .bytes(size.bytes)
    }

    static var expectation: String { "a size in \(ByteCount.grammar), or 'none'" }
    static var helpNote: String? { ByteSize.helpNote }
}
