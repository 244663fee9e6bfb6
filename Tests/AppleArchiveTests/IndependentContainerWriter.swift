import Foundation
import TestSupport

/// Writes `pbz*` containers with Python's zlib and lzma and the `lz4` module's block API: an
/// encoder that shares no code with the reader. LZ4 chunks are cut into 64 KiB blocks in Apple's
/// framing: `bv41` blocks, some compressed against the 64 KiB before them, every third stored
/// as `bv4-`, then `bv4$`.
enum IndependentContainerWriter {
    static let script = #"""
import sys, zlib, lzma, struct
import lz4.block
codec, block, store_every, src, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
data = open(src, 'rb').read()
out = bytearray(b'pbz' + codec.encode() + struct.pack('>Q', block))
for n, i in enumerate(range(0, len(data), block)):
    raw = data[i:i + block]
    if codec == 'z':
        c = zlib.compress(raw, 6)
    elif codec == 'x':
        c = lzma.compress(raw, format=lzma.FORMAT_XZ)
    else:
        c = bytearray()
        for k, j in enumerate(range(0, len(raw), 65536)):
            piece = raw[j:j + 65536]
            if k % 3 == 2:
                c += b'bv4-' + struct.pack('<I', len(piece)) + piece
            else:
                prefix = bytes(raw[max(0, j - 65536):j]) if k % 3 == 1 else b''
                b = lz4.block.compress(piece, store_size=False, dict=prefix) if prefix else lz4.block.compress(piece, store_size=False)
                c += b'bv41' + struct.pack('<II', len(piece), len(b)) + b
        c += b'bv4$'
    if (store_every and n % store_every == 0) or len(c) >= len(raw):
        c = raw
    out += struct.pack('>QQ', len(raw), len(c)) + c
open(dst, 'wb').write(out)
"""#

    /// Writes `input` (an AA01 stream) as a container with codec letter `codec`, `blockSize`
    /// uncompressed bytes per chunk, every `storeEvery`-th chunk stored raw (0: none).
    static func write(codec: Character, blockSize: Int, storeEvery: Int = 0, input: String, output: String) throws {
        let result = try ChildProcess.runBlocking("/usr/bin/env", ["python3", "-c", script, String(codec), String(blockSize), String(storeEvery), input, output])
        guard result.status == 0 else { throw TreeError("the Python container writer failed: \(result.stderr)") }
    }
}
