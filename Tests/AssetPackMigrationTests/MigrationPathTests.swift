@testable import AssetPackMigration
import Testing

@Suite struct MigrationPathTests {
    @Test(arguments: [
        (BuildPlatform.iOS, "26.0", MigrationPath.managed), (.iOS, "27", .managed), (.iOS, "16.1", .unmanaged), (.iOS, "16.0", .stayOnODR),
        (.iOS, "15.0", .stayOnODR), (.macOS, "13.0", .unmanaged), (.macOS, "12.7", .stayOnODR), (.tvOS, "18.4", .unmanaged),
        (.tvOS, "18.3", .stayOnODR), (.tvOS, "26.0", .managed), (.visionOS, "2.4", .unmanaged), (.visionOS, "2.3", .stayOnODR),
        (.visionOS, "26.1", .managed), (.watchOS, "26.0", .noReplacement), (.iOS, "not a version", .unknown),
    ])
    func decides(platform: BuildPlatform, version: String, expected: MigrationPath) {
        #expect(MigrationPath.decide(platform: platform, deploymentTarget: version) == expected)
    }

    @Test func versionsCompareByComponent() {
        #expect(OSVersion(parsing: "16.10")! > OSVersion(parsing: "16.9")!)
        #expect(OSVersion(parsing: "26")! == OSVersion(parsing: "26.0.0")!)
        #expect(OSVersion(parsing: "1.x") == nil)
    }
}
