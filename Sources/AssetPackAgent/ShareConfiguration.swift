/// How an agent run with `--share` serves the chunks of its installed packs to LAN peers
/// (`ChunkShareServer`, docs/AGENT.md "Sharing with LAN peers").
public struct ShareConfiguration: Sendable, Equatable {
    /// The address to listen on: 127.0.0.1 (the default) reaches only this machine; a LAN
    /// address or 0.0.0.0 shares with the network.
    public var bindAddress: String
    /// The TCP port; 0 picks a free one (`AgentService.sharePort` says which).
    public var port: UInt16
    /// Requests per second one client address may make (a burst of twice as many is let
    /// through); more get 429 with Retry-After.
    public var requestsPerSecond: Int
    /// Connections open at once, all clients together; one client address may hold a quarter
    /// of them. Further ones are closed as they arrive.
    public var maxConnections: Int

    public static let defaultPort: UInt16 = 7460

    public init(bindAddress: String = "127.0.0.1", port: UInt16 = ShareConfiguration.defaultPort, requestsPerSecond: Int = 2000, maxConnections: Int = 64) {
        self.bindAddress = bindAddress
        self.port = port
        self.requestsPerSecond = requestsPerSecond
        self.maxConnections = maxConnections
    }
}
