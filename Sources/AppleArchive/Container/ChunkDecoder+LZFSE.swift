extension ChunkDecoder {
    /// `pbze`: one LZFSE stream per chunk.
    static func unlzfse(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                        _ chunk: ContainerChunk) throws(AppleArchiveError) {
        throw AppleArchiveError(.unsupported, chunk.region, at: chunk.offset, "LZFSE (pbze) decoding is not built in yet")
    }
}
