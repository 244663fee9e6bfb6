import AssetPackFormat

/// Where things live under the storage root (docs/FORMAT.md, "Client storage"):
///
///     lock                             flock'd by the manager using the root; holds its pid
///     state.sqlite                     the client store (WAL)
///     packs/<id>/<version>-<digest16>/ an installed pack's files, made visible by one rename
///     staging/<id>-<digest16>/         a download in progress: index, segment-N, files/
///     agent.sock                       the agent's local API (AssetPackAgent), mode 0600
///     agent.sqlite                     the agent's queue of accepted requests
package struct StorageLayout: Sendable {
    package let root: String

    package init(root: String) { self.root = root }

    package var agentSocket: String { root + "/agent.sock" }
    package var agentDatabase: String { root + "/agent.sqlite" }

    var database: String { root + "/state.sqlite" }
    var packs: String { root + "/packs" }
    var staging: String { root + "/staging" }

    func installDirectory(id: String, version: Int, digest: SHA256Digest) -> String {
        "packs/\(id)/\(version)-\(digest.hex.prefix(16))"
    }

    func stagingDirectory(id: String, digest: SHA256Digest) -> String {
        "staging/\(id)-\(digest.hex.prefix(16))"
    }

    /// The folder a download assembles the pack's files in (`PackInstaller.filesDirectory`),
    /// renamed into `packs/` when it is complete.
    func stagedFiles(_ staging: String) -> String { staging + "/files" }

    func absolute(_ relative: String) -> String { root + "/" + relative }
}
