import Foundation

/// The bodies the agent's API answers besides packs and events (docs/AGENT.md).

/// `GET /v1/namespace`: one path of the merged namespace and the installed packs holding it.
public struct AgentNamespaceEntry: Sendable, Codable, Equatable {
    public var path: String
    public var packs: [String]
    public init(path: String, packs: [String]) {
        self.path = path
        self.packs = packs
    }
}

/// `POST /v1/update`: the packs updated and the IDs of those removed as obsolete.
public struct AgentUpdateResult: Sendable, Codable, Equatable {
    public var updated: [AgentPackDescription]
    public var removed: [String]
    public init(updated: [AgentPackDescription], removed: [String]) {
        self.updated = updated
        self.removed = removed
    }
}

/// `GET /v1/files/PATH?location=1`: where the file of the namespace is on disk.
public struct AgentFileLocation: Sendable, Codable, Equatable {
    public var path: String
    public init(path: String) { self.path = path }
}

/// One request in the agent's durable queue.
public struct AgentRequestRecord: Sendable, Codable, Equatable {
    public var id: String
    /// `queued` (waiting or downloading), `paused` (cancelled) or `failed`.
    public var state: String
    public var requireLatestVersion: Bool
    /// Why the last attempt failed (`failed`, or `queued` waiting to try again).
    public var error: String?
    /// When a request that failed for a passing reason (the network) is tried again.
    public var nextAttempt: Date?
    public init(id: String, state: String, requireLatestVersion: Bool, error: String? = nil, nextAttempt: Date? = nil) {
        self.id = id
        self.state = state
        self.requireLatestVersion = requireLatestVersion
        self.error = error
        self.nextAttempt = nextAttempt
    }
}

/// `GET /v1/status`: the agent itself.
public struct AgentStatusReport: Sendable, Codable, Equatable {
    public var pid: Int32
    public var root: String
    public var socket: String
    public var maxParallel: Int
    /// Packs downloading now.
    public var running: [String]
    public var requests: [AgentRequestRecord]
    /// Open event streams.
    public var subscribers: Int
    /// Bytes the agent has fetched from the network since it started (absent from older agents).
    public var fetchedBytes: UInt64?
    public init(pid: Int32, root: String, socket: String, maxParallel: Int, running: [String], requests: [AgentRequestRecord], subscribers: Int,
                fetchedBytes: UInt64? = nil) {
        self.pid = pid
        self.root = root
        self.socket = socket
        self.maxParallel = maxParallel
        self.running = running
        self.requests = requests
        self.subscribers = subscribers
        self.fetchedBytes = fetchedBytes
    }
}

/// `POST /v1/packs/ID/ensure` with `detach`: the request was queued (and persisted).
public struct AgentAcceptance: Sendable, Codable, Equatable {
    public var accepted: String
    public init(accepted: String) { self.accepted = accepted }
}

/// `POST /v1/installation-events/EVENT`: the packs the install step queued.
public struct AgentInstallationPlan: Sendable, Codable, Equatable {
    public var essential: [String]
    public var prefetch: [String]
    public init(essential: [String], prefetch: [String]) {
        self.essential = essential
        self.prefetch = prefetch
    }
}

/// `GET` and `PUT /v1/packs/ID/preservation-priority`: an installed pack's preservation priority.
public struct AgentPreservationPriority: Sendable, Codable, Equatable {
    /// The pack.
    public var id: String
    /// 0…1; packs of lower priority are evicted first by the storage budget.
    public var preservationPriority: Double
    /// The priority of pack `id`.
    public init(id: String, preservationPriority: Double) {
        self.id = id
        self.preservationPriority = preservationPriority
    }
}
