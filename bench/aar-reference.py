#!/usr/bin/env python3
"""The reference LZFSE encoder (lzfse/lzfse through its Python binding, liblzfse) on the same
AA01 stream as an archive `assetpack aar create` wrote, cut into the same blocks.
Usage: aar-reference.py ARCHIVE
Reads ARCHIVE's pbz* container chunk by chunk (decoding pbze chunks with the reference decoder),
re-encodes each block with the reference encoder (stored raw when that is not smaller, as our
writer does) and prints: our archive's size, the reference archive's size, and their ratio."""
import os, struct, sys
import liblzfse

def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    ours = os.path.getsize(path)
    with open(path, 'rb') as f:
        head = f.read(12)
        if head[:4] != b'pbze':
            sys.exit(f'{path}: not a pbze archive')
        reference = 12
        while True:
            sizes = f.read(16)
            if not sizes:
                break
            raw, stored = struct.unpack('>QQ', sizes)
            block = f.read(stored)
            if stored != raw:
                block = liblzfse.decompress(block)
            if len(block) != raw:
                sys.exit(f'{path}: a chunk decodes to {len(block)} bytes, not {raw}')
            encoded = liblzfse.compress(block)
            reference += 16 + min(len(encoded), raw)
    print(f'size: assetpack {ours} B, reference LZFSE {reference} B -> ratio {ours / reference:.3f}x')

main()
