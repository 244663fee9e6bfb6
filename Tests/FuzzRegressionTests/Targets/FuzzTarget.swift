/// The fuzz targets: each takes arbitrary bytes, runs them through one parser exactly as the
/// product does, and checks what the parser promises. A throw is a correct answer to bad input;
/// a trap (a failed `precondition`, an out-of-bounds index, an overflow) is a bug. The libFuzzer
/// entry point (`Fuzz/FuzzEntry.swift`, built by `scripts/fuzz.sh`) and the regression replay
/// test (`FuzzRegressionReplayTests`) both go through `run(_:)`, so a saved crash replays in CI
/// without the fuzzer.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// JSONParser and ManifestDecoder (Apple's manifest JSON).
    case manifest
    /// A pack file: trailer, header, PackIndex.decode, PackReader and its chunks.
    case packIndex = "pack-index"
    /// The signed catalog envelope (SignedCatalog, CatalogVerifier) and its payload (CatalogCoding).
    case catalog
    /// Root and timestamp files (SignedEnvelope, TrustedRoot, RootMetadata, TimestampMetadata).
    case trust
    /// The OpenStep property list parser (project.pbxproj).
    case plist
    /// The Steam KeyValues parser (depot build scripts, .vdf).
    case keyvalues
    /// The server's request-target and Range handling (RequestTargetBytes, RepositoryRoot,
    /// ByteRangeRequest, FileResponder).
    case http
    /// The zstd frame decoder as chunks use it (ZstdDecompressor with an expected size, ChunkVerifier).
    case zstd
    /// A patch file: PatchTable.decode and PatchApplier (bases, bombs, results).
    case patch
    /// A sealed pack's index region and sealed frames (SealedIndex, SealedFrame).
    case sealed
    /// The LZFSE codec: LZFSE.decode into a bounded destination, and LZFSE.encode round trips.
    case lzfse
    /// An Apple Archive: the pbz* container, its codecs, AA01 entries and their data (AppleArchiveReader).
    case aar

    /// Runs one input through the target.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .manifest: ManifestFuzzTarget.run(bytes)
        case .packIndex: PackFuzzTarget.run(bytes)
        case .catalog: CatalogFuzzTarget.run(bytes)
        case .trust: TrustFuzzTarget.run(bytes)
        case .plist: PropertyListFuzzTarget.run(bytes)
        case .keyvalues: KeyValuesFuzzTarget.run(bytes)
        case .http: HTTPFuzzTarget.run(bytes)
        case .zstd: ZstdFuzzTarget.run(bytes)
        case .patch: PatchFuzzTarget.run(bytes)
        case .sealed: SealedFuzzTarget.run(bytes)
        case .lzfse: LZFSEFuzzTarget.run(bytes)
        case .aar: AppleArchiveFuzzTarget.run(bytes)
        }
    }
}
