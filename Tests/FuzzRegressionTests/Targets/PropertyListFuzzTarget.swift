import AssetPackMigration

/// The OpenStep property list parser that reads project.pbxproj for the audit and the ODR converter.
enum PropertyListFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        do {
            _ = try OpenStepPropertyListParser.parse(bytes)
        } catch {
            _ = error.description
        }
    }
}
