extension AssetPackManager {
    /// Who carries out a manager's work: this process, or the storage root's agent
    /// (`assetpack agent`, docs/AGENT.md). The API, its types, its errors and its status
    /// updates are the same either way. Apple's manager always works through the system's
    /// daemon; there is no choice there.
    public enum Delivery: Sendable, Equatable {
        /// The manager downloads and installs in this process: it holds the storage root's lock
        /// for its lifetime, and a download goes on only while the process runs (the default).
        case inProcess
        /// Everything goes through the agent listening on this Unix socket: the agent holds the
        /// root and owns every download, which goes on when this process ends. The manager
        /// takes no lock and opens nothing under the root; `repositoryURLs`, `publicKey` and
        /// the limits are the agent's own (the configuration's are not used).
        case agent(socketPath: String)
        /// Through the agent when one answers on the root's own socket
        /// (`STORAGE_ROOT/agent.sock`) when the manager is made, in process otherwise.
        case automatic
    }
}
