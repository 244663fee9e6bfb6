/// Fixed parts of the patch file format (docs/FORMAT.md, "Patch file"): the header, the table
/// preamble and the bounds a reader holds a patch to. All integers are little-endian.
public enum PatchLayout {
    /// The format version of a patch file of an unsealed pack.
    public static let formatVersion: UInt32 = 1
    /// The format version of a patch file of a sealed pack: its frames and its table are sealed
    /// (docs/FORMAT.md, "Patches of a sealed pack"). A table that declares it is read only out of
    /// a sealed patch table (`SealedPatchTable`).
    public static let sealedFormatVersion: UInt32 = 2
    /// The format version of a patch file of an unsealed pack whose table ends with an index
    /// patch (`IndexPatch`): the table of version 1 followed by it.
    public static let indexPatchFormatVersion: UInt32 = 3
    /// `\x89APT\r\n\x1A\n`, as the pack header but for patches.
    public static let headerMagic: [UInt8] = [0x89, 0x41, 0x50, 0x54, 0x0D, 0x0A, 0x1A, 0x0A]
    public static let headerSize = 16
    public static let tableMagic: [UInt8] = Array("APKPATCH".utf8)
    /// Magic, version, reserved, from digest, to digest, entry count.
    public static let tablePreambleSize = 8 + 4 + 4 + 32 + 32 + 8
    /// Bytes per table entry: chunk digest, frame offset, frame size, chunk size, base offset,
    /// base length, base digest.
    public static let entrySize = 32 + 8 + 4 + 4 + 8 + 4 + 32
    /// No base is longer than this (a patch's reference bytes are read into memory whole).
    public static let maximumBaseLength = 64 << 20
    /// No table is larger than this (about 2.9 million entries).
    public static let maximumTableSize = 256 << 20
    /// The largest window a patch frame may ask for (2^27 = 128 MiB: a base and its chunk, or
    /// the two expanded indexes of an index patch).
    public static let windowLogMax: Int32 = 27
    /// No index patch makes an expanded index longer than this (the window must hold it).
    public static let maximumExpandedIndexLength = 1 << windowLogMax

    /// The header of a patch file whose table declares `version`.
    package static func header(version: UInt32 = formatVersion) -> [UInt8] {
        var w = ByteWriter()
        w.append(headerMagic)
        w.append(version)
        w.append(UInt32(0))
        return w.bytes
    }

    /// The largest frame a patch for a chunk of `size` bytes may be: the bound a pack holds its
    /// own frames to (a patch larger than the chunk's frame is never stored), plus a sealed
    /// frame's nonce and tag when the patch file is sealed.
    public static func maximumFrameSize(forChunkOf size: UInt32, sealed: Bool = false) -> UInt64 {
        UInt64(size) + UInt64(size) / 128 + 512 + (sealed ? UInt64(SealedFrame.overhead) : 0)
    }
}
