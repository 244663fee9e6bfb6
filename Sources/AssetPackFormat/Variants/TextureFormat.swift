/// The GPU texture compression formats a device variant can target (a manifest's
/// `variant.textureFormat`, a client's preference list).
public enum TextureFormat: String, Sendable, CaseIterable, Codable, Hashable {
    case astc, bc7, bc6h, etc2, pvrtc, dxt, s3tc

    /// `astc, bc7, bc6h, etc2, pvrtc, dxt, s3tc`: for messages that list the valid values.
    public static var validList: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
