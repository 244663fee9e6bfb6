#!/usr/bin/env python3
"""Reads a pack's chunk table following docs/FORMAT.md (an independent reader of the format).
As a module: chunks(path) -> list of (sha256 hex, compressed size, uncompressed size);
read_index(path) -> (that list, the content-stream sequence, the index's length)."""
import struct, sys

def read_index(path):
    """The chunk table (sha256 hex, compressed size, uncompressed size), the content-stream
    sequence (chunk numbers) and the index's length in bytes."""
    with open(path, 'rb') as f:
        f.seek(-64, 2)
        index_offset, index_length = struct.unpack('<QQ', f.read(16))
        f.seek(index_offset)
        index = f.read(index_length)
    assert index[:8] == b'APKINDEX', 'bad index magic'
    pos = 12
    (meta_len,) = struct.unpack_from('<I', index, pos)
    pos += 4 + meta_len + 12
    (count,) = struct.unpack_from('<Q', index, pos)
    pos += 8
    table = []
    for _ in range(count):
        digest = index[pos:pos + 32].hex()
        _, csize, usize = struct.unpack_from('<QII', index, pos + 32)
        table.append((digest, csize, usize))
        pos += 48
    (seq_count,) = struct.unpack_from('<Q', index, pos)
    pos += 8
    sequence = struct.unpack_from(f'<{seq_count}I', index, pos)
    return table, sequence, index_length

def chunks(path):
    return read_index(path)[0]


if __name__ == '__main__':
    for d, c, u in chunks(sys.argv[1]):
        print(d, c, u)
