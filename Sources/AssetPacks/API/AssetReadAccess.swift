/// How `contents(at:…access:)`, `descriptor(for:…access:)` and `url(for:…access:)` reach a
/// file. Not in Apple's API: Apple's calls read installed packs only, which is `.installed`
/// here, and what the calls without `access:` do.
///
/// `.progressive` also reads a file of a pack that is not installed yet, or is downloading:
/// the file's chunks are fetched ahead of the rest of the pack (on a connection of their own),
/// each verified by SHA-256, and the complete file is placed before the call returns. The pack
/// itself stays `downloading` (or not installed) until its download has every file; a
/// progressive read is always of one pack version, byte for byte. `.progressive(range:)` needs
/// only the bytes of `range`: only the chunks covering them are fetched.
public struct AssetReadAccess: Sendable, Hashable, CustomStringConvertible {
    /// Whether a file of a pack that is not installed is fetched for the call.
    public let isProgressive: Bool
    /// The bytes of the file the caller needs (offsets in the file, end exclusive); nil for all.
    public let range: Range<UInt64>?

    private init(isProgressive: Bool, range: Range<UInt64>?) {
        self.isProgressive = isProgressive
        self.range = range
    }

    /// Installed packs only (Apple's semantics): a path no installed pack holds is `fileNotFound`.
    public static let installed = AssetReadAccess(isProgressive: false, range: nil)
    /// An installed file as it is; otherwise the file is fetched first from the pack being
    /// downloaded (or named by `searchingInAssetPackWithID`), verified and placed.
    public static let progressive = AssetReadAccess(isProgressive: true, range: nil)

    /// `.progressive` for the bytes of `range` only: the chunks that hold them are fetched, and
    /// no others. `contents(at:…)` returns those bytes (cut at the file's end); a descriptor is
    /// of a private copy of the file holding them at their offsets (the rest reads as zeros); a
    /// URL always names a whole file, so `url(for:…)` fetches the whole file.
    public static func progressive(range: Range<UInt64>) -> AssetReadAccess {
        AssetReadAccess(isProgressive: true, range: range)
    }

    public var description: String {
        guard isProgressive else { return "installed" }
        return range.map { "progressive(\($0.lowerBound)..<\($0.upperBound))" } ?? "progressive"
    }
}
