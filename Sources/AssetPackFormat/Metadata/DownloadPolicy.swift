/// When the system (or our client) downloads a pack: Apple's three policies.
public enum DownloadPolicy: Sendable, Equatable, Codable {
    /// Downloaded during the install step; the app waits for it.
    case essential(installationEventTypes: [InstallationEventType])
    /// Started during the install step, continued in the background.
    case prefetch(installationEventTypes: [InstallationEventType])
    /// Only when the app asks for it.
    case onDemand

    /// `essential`, `prefetch` or `onDemand`, as the JSON key spells it.
    public var name: String {
        switch self {
        case .essential: return "essential"
        case .prefetch: return "prefetch"
        case .onDemand: return "onDemand"
        }
    }

    /// The installation events this policy applies to (empty for on-demand packs).
    public var installationEventTypes: [InstallationEventType] {
        switch self {
        case .essential(let e), .prefetch(let e): return e
        case .onDemand: return []
        }
    }

    private enum Key: String, CodingKey { case essential, prefetch, onDemand }
    private struct Events: Codable { var installationEventTypes: [InstallationEventType] }
    private struct Empty: Codable {}

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let e = try c.decodeIfPresent(Events.self, forKey: .essential) {
            self = .essential(installationEventTypes: e.installationEventTypes)
        } else if let e = try c.decodeIfPresent(Events.self, forKey: .prefetch) {
            self = .prefetch(installationEventTypes: e.installationEventTypes)
        } else {
            _ = try c.decode(Empty.self, forKey: .onDemand)
            self = .onDemand
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .essential(let e): try c.encode(Events(installationEventTypes: e), forKey: .essential)
        case .prefetch(let e): try c.encode(Events(installationEventTypes: e), forKey: .prefetch)
        case .onDemand: try c.encode(Empty(), forKey: .onDemand)
        }
    }
}

/// The install-time events that essential and prefetch packs respond to.
public enum InstallationEventType: String, Sendable, Codable, CaseIterable, Comparable {
    case firstInstallation, subsequentUpdate
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
