import Foundation

/// What a device must have for a variant of a pack to be chosen: every condition given must
/// hold (docs/FORMAT.md, "Device variants"). A pack's default has none.
///
/// In a catalog the texture format is any short token, so that a newer publisher may name a
/// format this client does not know (such a variant is never chosen); a manifest must name one
/// of `TextureFormat`'s.
public struct VariantConditions: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The texture format the variant's textures are compressed in; the device must support it.
    public var textureFormat: String?
    /// The memory the device must have, in bytes (a memory tier).
    public var minimumMemory: UInt64?
    /// The CPU architectures the variant is for (`arm64`, `x86_64`, …); the device's must be one.
    public var architectures: [String]?

    public init(textureFormat: String? = nil, minimumMemory: UInt64? = nil, architectures: [String]? = nil) {
        self.textureFormat = textureFormat
        self.minimumMemory = minimumMemory
        self.architectures = architectures
    }

    /// The most architectures one variant may name.
    public static let maximumArchitectures = 16

    /// Why these conditions cannot be a variant's, naming the key under `key`; nil when sound:
    /// at least one condition; a texture format and each architecture a token (1–32 of `a-z`,
    /// `0-9`, `_`); a memory above 0; a non-empty list of architectures with none twice.
    public func problem(key: String) -> String? {
        guard textureFormat != nil || minimumMemory != nil || architectures != nil else {
            return "\(key): names no condition (textureFormat, minimumMemory or architectures); a variant needs at least one"
        }
        if let t = textureFormat, !Self.isToken(t) { return "\(key).textureFormat: \"\(t)\" is not a format name (1 to 32 of a-z, 0-9, _)" }
        if let m = minimumMemory, m == 0 { return "\(key).minimumMemory: must be above 0" }
        if let list = architectures {
            guard !list.isEmpty, list.count <= Self.maximumArchitectures else {
                return "\(key).architectures: must name 1 to \(Self.maximumArchitectures) architectures, found \(list.count)"
            }
            var seen = Set<String>()
            for (i, a) in list.enumerated() {
                guard Self.isToken(a) else { return "\(key).architectures[\(i)]: \"\(a)\" is not an architecture name (1 to 32 of a-z, 0-9, _)" }
                guard seen.insert(a).inserted else { return "\(key).architectures[\(i)]: \"\(a)\" is listed twice" }
            }
        }
        return nil
    }

    /// Whether `device` meets every condition.
    public func hold(on device: DeviceCapabilities) -> Bool {
        if let t = textureFormat, !device.textureFormats.contains(where: { $0.rawValue == t }) { return false }
        if let m = minimumMemory, device.memory < m { return false }
        if let list = architectures, !list.contains(device.architecture) { return false }
        return true
    }

    /// The same conditions in canonical form: architectures sorted (their order means nothing).
    public var canonical: VariantConditions {
        VariantConditions(textureFormat: textureFormat, minimumMemory: minimumMemory, architectures: architectures?.sorted())
    }

    /// The variant's name, from its conditions (distinct conditions, distinct names): `astc`,
    /// `astc-4GiB`, `bc7-x86_64`, `2GiB-arm64+x86_64`.
    public var name: String {
        var parts: [String] = []
        if let textureFormat { parts.append(textureFormat) }
        if let minimumMemory { parts.append(Self.exactMemoryName(minimumMemory)) }
        if let architectures { parts.append(architectures.sorted().joined(separator: "+")) }
        return parts.joined(separator: "-")
    }

    /// `texture astc, memory ≥ 4 GiB, architecture arm64`.
    public var description: String {
        var parts: [String] = []
        if let textureFormat { parts.append("texture \(textureFormat)") }
        if let minimumMemory { parts.append("memory ≥ \(Self.exactMemoryName(minimumMemory))") }
        if let architectures { parts.append("architecture \(architectures.sorted().joined(separator: " or "))") }
        return parts.joined(separator: ", ")
    }

    /// The catalog's order of a pack's variants: by name, then memory, so that it depends on the
    /// conditions alone.
    public static func < (a: VariantConditions, b: VariantConditions) -> Bool {
        (a.name, a.minimumMemory ?? 0) < (b.name, b.minimumMemory ?? 0)
    }

    /// `4GiB`, `512MiB`, `4GB`, `1500MB`, `64KiB`, else `1500000001B`: exact, so that two tiers
    /// never share a name.
    static func exactMemoryName(_ bytes: UInt64) -> String {
        for (unit, size) in [("GiB", UInt64(1) << 30), ("MiB", 1 << 20), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KiB", 1 << 10)] where bytes % size == 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)B"
    }

    /// `4GiB` when a whole number of GiB or MiB, else the byte count as `ByteCount` writes it.
    static func memoryName(_ bytes: UInt64) -> String {
        if bytes % (1 << 30) == 0 { return "\(bytes >> 30)GiB" }
        if bytes % (1 << 20) == 0 { return "\(bytes >> 20)MiB" }
        return ByteCount.format(bytes).replacingOccurrences(of: " ", with: "")
    }

    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 32 && s.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }
}
