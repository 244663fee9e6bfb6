/// What an extraction wrote: counts by entry type, the file bytes, and the entries it skipped
/// (metadata entries, `TYP` `M`, which describe the archive rather than a file of the tree).
public struct AppleArchiveExtractionSummary: Sendable {
    public var files = 0
    public var directories = 0
    public var symbolicLinks = 0
    /// Bytes of file data written.
    public var bytes: UInt64 = 0
    public var skipped: [AppleArchiveEntry] = []

    public var entryCount: Int { files + directories + symbolicLinks + skipped.count }
}
