/// The platforms Apple's manifests name. iPadOS is not one: iOS covers iPad.
public enum Platform: String, Sendable, Codable, CaseIterable, Comparable {
    case iOS, macOS, tvOS, visionOS
    public static func < (a: Platform, b: Platform) -> Bool { a.rawValue < b.rawValue }
}
