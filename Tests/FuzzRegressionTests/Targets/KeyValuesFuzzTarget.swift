import AssetPackMigration

/// The Steam KeyValues parser that reads depot build scripts for `convert vdf`.
enum KeyValuesFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        do {
            _ = try KeyValuesParser.parse(bytes)
        } catch {
            _ = error.description
        }
    }
}
