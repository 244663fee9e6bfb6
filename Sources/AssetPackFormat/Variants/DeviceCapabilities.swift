/// What a device offers that a pack's variants can ask for: the texture formats its GPU decodes
/// (in order of preference), its memory and its CPU architecture.
public struct DeviceCapabilities: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The texture formats the device decodes, the preferred first; empty when none is known
    /// (then no variant that names a texture format is chosen).
    public var textureFormats: [TextureFormat]
    /// The device's memory in bytes.
    public var memory: UInt64
    /// The CPU architecture as `uname -m` spells it, `aarch64` written `arm64` (Apple's word).
    public var architecture: String

    public init(textureFormats: [TextureFormat], memory: UInt64, architecture: String) {
        self.textureFormats = textureFormats
        self.memory = memory
        self.architecture = Self.normalizedArchitecture(architecture)
    }

    /// `arm64` for `aarch64` and `arm64e`, `x86_64` for `amd64`; others as given, lowercased.
    public static func normalizedArchitecture(_ name: String) -> String {
        switch name.lowercased() {
        case "aarch64", "arm64", "arm64e": return "arm64"
        case "amd64", "x86_64", "x86-64": return "x86_64"
        case let other: return other
        }
    }

    /// `textures astc, etc2; memory 8GiB; arm64`.
    public var description: String {
        let formats = textureFormats.isEmpty ? "none" : textureFormats.map(\.rawValue).joined(separator: ", ")
        return "textures \(formats); memory \(VariantConditions.memoryName(memory)); \(architecture)"
    }
}
