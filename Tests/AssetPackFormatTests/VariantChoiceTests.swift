import AssetPackFormat
import Testing

/// The documented rule for choosing a pack's device variant (docs/CLIENT.md, "Device
/// variants"), case by case: conditions that hold, the texture format first in the device's
/// preference order, then the highest memory tier that fits, then the more specific
/// architectures, then the default when nothing holds.
@Suite struct VariantChoiceTests {
    static let gib: UInt64 = 1 << 30
    /// A group as a publisher would make it: ASTC in two memory tiers, BC7 for x86_64, ETC2, and
    /// an arm64-only build for any texture format.
    static let group: [VariantConditions] = [
        VariantConditions(textureFormat: "astc"),
        VariantConditions(textureFormat: "astc", minimumMemory: 6 * gib),
        VariantConditions(textureFormat: "bc7", architectures: ["x86_64"]),
        VariantConditions(textureFormat: "etc2"),
        VariantConditions(architectures: ["arm64"]),
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var formats: [TextureFormat]; var memory: UInt64; var architecture: String; var expected: String
        var testDescription: String { "\(formats.map(\.rawValue)) \(memory >> 30)GiB \(architecture) → \(expected)" }
    }

    static let cases: [Case] = [
        // The first preferred format a variant has wins, whatever the order in the catalog.
        Case(formats: [.astc, .etc2], memory: 4 * gib, architecture: "arm64", expected: "astc"),
        Case(formats: [.etc2, .astc], memory: 4 * gib, architecture: "arm64", expected: "etc2"),
        // Then the most demanding memory tier that fits.
        Case(formats: [.astc], memory: 8 * gib, architecture: "arm64", expected: "astc-6GiB"),
        Case(formats: [.astc], memory: 6 * gib, architecture: "arm64", expected: "astc-6GiB"),
        Case(formats: [.astc], memory: 6 * gib - 1, architecture: "arm64", expected: "astc"),
        // A condition that fails rules a variant out: BC7 is for x86_64 only.
        Case(formats: [.bc7], memory: 16 * gib, architecture: "x86_64", expected: "bc7-x86_64"),
        Case(formats: [.bc7], memory: 16 * gib, architecture: "arm64", expected: "arm64"),
        // A variant naming a preferred format beats one naming none.
        Case(formats: [.bc7, .etc2], memory: 2 * gib, architecture: "arm64", expected: "etc2"),
        // Nothing holds: the default.
        Case(formats: [.bc7], memory: 16 * gib, architecture: "riscv64", expected: "default"),
        Case(formats: [], memory: 1 * gib, architecture: "x86_64", expected: "default"),
        // No texture format known: only variants without one can hold.
        Case(formats: [], memory: 1 * gib, architecture: "aarch64", expected: "arm64"),
    ]

    @Test(arguments: cases) func choice(_ c: Case) {
        let device = DeviceCapabilities(textureFormats: c.formats, memory: c.memory, architecture: c.architecture)
        let chosen = VariantChoice.choose(Self.group, for: device)
        #expect(chosen?.choice.name == c.expected)
        #expect(chosen?.index.map { Self.group[$0].name } ?? "default" == c.expected)
        // The choice holds on the device, or is the default because nothing does.
        if let i = chosen?.index { #expect(Self.group[i].hold(on: device)) } else { #expect(!Self.group.contains { $0.hold(on: device) }) }
        // The same whatever order the catalog lists the variants in.
        let reversed = VariantChoice.choose(Array(Self.group.reversed()), for: device)
        #expect(reversed?.choice.name == c.expected)
    }

    @Test func morePreciseArchitecturesWinTies() {
        let group = [VariantConditions(textureFormat: "astc", architectures: ["arm64", "x86_64"]), VariantConditions(textureFormat: "astc", architectures: ["arm64"]),
                     VariantConditions(textureFormat: "astc")]
        let device = DeviceCapabilities(textureFormats: [.astc], memory: Self.gib, architecture: "arm64")
        #expect(VariantChoice.choose(group, for: device)?.choice.name == "astc-arm64")
    }

    @Test func noVariantsIsNoChoiceAndReasonsSaySo() {
        let device = DeviceCapabilities(textureFormats: [.astc, .etc2], memory: 8 * Self.gib, architecture: "arm64")
        #expect(VariantChoice.choose([], for: device) == nil)
        let matched = VariantChoice.choose(Self.group, for: device)!.choice
        #expect(matched.reason == .matched)
        #expect(matched.description == "astc-6GiB: its conditions hold (texture astc, memory ≥ 6GiB) and rank first for this device (textures astc, etc2; memory 8GiB; arm64)")
        let none = VariantChoice.choose([VariantConditions(textureFormat: "bc7")], for: device)!.choice
        #expect(none.reason == .noMatch && none.conditions == nil)
        #expect(none.description == "default: no variant's conditions hold on this device (textures astc, etc2; memory 8GiB; arm64)")
    }

    @Test func namesAreExactSoThatTiersNeverShareOne() {
        let names = [UInt64(4) << 30, 512 << 20, 4_000_000_000, 1_500_000_000, 1_500_000_001, 64 << 10].map { VariantConditions(minimumMemory: $0).name }
        #expect(names == ["4GiB", "512MiB", "4GB", "1500MB", "1500000001B", "64KiB"])
        #expect(VariantConditions(textureFormat: "bc7", minimumMemory: 2 << 30, architectures: ["x86_64", "arm64"]).name == "bc7-2GiB-arm64+x86_64")
    }

    @Test func architectureNamesAreNormalized() {
        #expect(DeviceCapabilities(textureFormats: [], memory: 1, architecture: "aarch64").architecture == "arm64")
        #expect(DeviceCapabilities(textureFormats: [], memory: 1, architecture: "AMD64").architecture == "x86_64")
        #expect(DeviceCapabilities(textureFormats: [], memory: 1, architecture: "riscv64").architecture == "riscv64")
    }
}
