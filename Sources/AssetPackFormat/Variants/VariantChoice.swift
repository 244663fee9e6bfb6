/// Which variant of a pack a device takes, and why (docs/CLIENT.md, "Device variants").
///
/// The rule, deterministic: among the variants whose every condition holds on the device,
/// 1. the one whose texture format comes first in the device's preference order (a variant
///    naming no texture format after every one that names a preferred format);
/// 2. then the most demanding memory tier (the highest `minimumMemory`; none counts as 0);
/// 3. then the one naming architectures, fewer first (the more specific);
/// 4. then the catalog's order.
/// When no variant's conditions hold, the default (the pack entry's own file).
public struct VariantChoice: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The chosen variant's conditions; nil for the default.
    public var conditions: VariantConditions?
    /// Why: `matched` (a variant's conditions hold), `noMatch` (none holds: the default).
    public var reason: Reason
    /// The device the choice was made for.
    public var device: DeviceCapabilities
    /// Every file of the pack by variant name (the default's too), so that an installed pack
    /// digest can be named (`name(of:)`).
    public var digests: [String: SHA256Digest] = [:]

    /// The name of the variant whose pack digest is `digest`; nil when none of this version has it.
    public func name(of digest: SHA256Digest) -> String? { digests.first { $0.value == digest }?.key }

    public enum Reason: String, Sendable, Codable { case matched, noMatch }

    /// The variant's name (`VariantConditions.name`), or `default`.
    public var name: String { conditions?.name ?? "default" }

    /// Chooses among `variants` for `device` by the rule above; nil when there are no variants.
    public static func choose(_ variants: [VariantConditions], for device: DeviceCapabilities) -> (index: Int?, choice: VariantChoice)? {
        guard !variants.isEmpty else { return nil }
        let candidates = variants.indices.filter { variants[$0].hold(on: device) }
        func rank(_ i: Int) -> (Int, UInt64, Int, Int, Int) {
            let c = variants[i]
            let format = c.textureFormat.flatMap { t in device.textureFormats.firstIndex { $0.rawValue == t } } ?? device.textureFormats.count
            return (format, UInt64.max - (c.minimumMemory ?? 0), c.architectures == nil ? 1 : 0, c.architectures?.count ?? 0, i)
        }
        guard let best = candidates.min(by: { rank($0) < rank($1) }) else {
            return (nil, VariantChoice(conditions: nil, reason: .noMatch, device: device))
        }
        return (best, VariantChoice(conditions: variants[best], reason: .matched, device: device))
    }

    /// `astc-4GiB: its conditions hold (texture astc, memory ≥ 4GiB) and rank first for this
    /// device (textures astc, etc2; memory 8GiB; arm64)`, or `default: no variant's conditions
    /// hold on this device (…)`.
    public var description: String {
        switch reason {
        case .matched:
            return "\(name): its conditions hold (\(conditions?.description ?? "")) and rank first for this device (\(device))"
        case .noMatch:
            return "default: no variant's conditions hold on this device (\(device))"
        }
    }
}
