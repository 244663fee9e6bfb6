extension ChunkDecoder {
    /// `pbze`: one LZFSE stream per chunk (`bvx$` ends it), decoded by `LZFSE.decode` into the
    /// chunk's declared size.
    static func unlzfse(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                        _ chunk: ContainerChunk) throws(AppleArchiveError) {
        let produced: Int
        do { produced = try LZFSE.decode(source, into: destination) } catch {
            throw bad(chunk, "in the chunk's LZFSE stream, \(error)")
        }
        guard produced == chunk.rawSize else {
            throw bad(chunk, "the LZFSE stream decodes to \(produced) bytes, not the declared \(chunk.rawSize)")
        }
    }
}
