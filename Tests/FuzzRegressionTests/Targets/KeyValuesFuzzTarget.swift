import AssetPackMigration

/// The Steam KeyValues parser that reads depot build scripts for `convert vdf`.
enum KeyValuesFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        do {
            let document = try KeyValuesParser.parse(bytes)
            _ = String(describing: document)
        } catch {
            _ = error.description
        }
    }
}
