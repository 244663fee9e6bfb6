/// Where the bytes of a pack's install came from, source by source: each mirror of the
/// repository (pack frames, and patch frames apart), each seed folder, and the copy already on
/// disk (the installed previous version). Every byte is trusted only once its chunk's SHA-256
/// matched the signed index, whichever source sent it. Not in Apple's API.
///
/// The figures are those of the manager's latest run of the pack's install (a run that resumes
/// counts what it moved itself); the index and the patch table, fetched before the chunks, are
/// not in them.
public struct AssetPackSources: Sendable, Equatable, Codable {
    /// The kinds of source.
    public enum Kind: String, Sendable, Codable, CaseIterable, Comparable {
        /// Frames of the pack file from a mirror (`location`: its base URL).
        case mirror
        /// Frames of a patch file from a mirror (`location`: its base URL).
        case patch
        /// Chunks from a LAN peer (`location`: its base URL), uncompressed, each verified.
        case peer
        /// Chunks read from a seed folder (`location`: the folder).
        case seed
        /// Chunks already on disk: the installed previous version (copied or linked).
        case local

        /// Whether the bytes crossed the network.
        public var isNetwork: Bool { self == .mirror || self == .patch || self == .peer }

        public static func < (a: Kind, b: Kind) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// What one source delivered.
    public struct Entry: Sendable, Equatable, Codable {
        public var kind: Kind
        /// The mirror's or peer's base URL or the seed folder; nil for `local`.
        public var location: String?
        /// Mirrors and patches: bytes received (compressed frames). Peers and disk sources: chunk
        /// bytes taken (uncompressed), each verified.
        public var bytes: UInt64
        /// Peers and disk sources: the repository bytes they spared (the compressed frames of
        /// their chunks).
        public var savedBytes: UInt64
        /// Peers: why the manager stopped asking this one (a bad chunk, a redirect, a stall, too
        /// many misses, too slow), when it did — during this install or an earlier one of the
        /// manager's lifetime; nil while it is still asked.
        public var demotion: String?

        public init(kind: Kind, location: String?, bytes: UInt64, savedBytes: UInt64 = 0, demotion: String? = nil) {
            self.kind = kind
            self.location = location
            self.bytes = bytes
            self.savedBytes = savedBytes
            self.demotion = demotion
        }
    }

    public var assetPackID: String
    public var version: Int
    /// By kind (mirror, patch, peer, seed, local), then location.
    public var entries: [Entry]

    public init(assetPackID: String, version: Int, entries: [Entry]) {
        self.assetPackID = assetPackID
        self.version = version
        self.entries = entries
    }

    /// Bytes received from the network (mirrors, patches and LAN peers).
    public var fetchedBytes: UInt64 { entries.filter { $0.kind.isNetwork }.reduce(0) { $0 + $1.bytes } }
    /// Repository bytes spared by peers and sources on disk.
    public var savedBytes: UInt64 { entries.reduce(0) { $0 + $1.savedBytes } }

    /// The bytes the sources of `kind` delivered, together.
    public func bytes(from kind: Kind) -> UInt64 { entries.filter { $0.kind == kind }.reduce(0) { $0 + $1.bytes } }
    /// The network bytes the sources of `kind` spared, together.
    public func savedBytes(by kind: Kind) -> UInt64 { entries.filter { $0.kind == kind }.reduce(0) { $0 + $1.savedBytes } }
}
