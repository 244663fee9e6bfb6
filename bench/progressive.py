#!/usr/bin/env python3
"""Helpers of bench/progressive.sh.
  progressive.py corpus DIR SIZE_MIB FILES   writes DIR/content/Levels/World<k>/level<j>.bin, FILES
                                             files of SIZE_MIB/FILES MiB each (incompressible,
                                             seeded), and DIR/Manifest.json (on demand) selecting them
  progressive.py paths DIR                   the pack paths in content-stream (byte-wise) order
  progressive.py chunks PACK DIR PATH        compressed bytes of the chunks that hold PATH (from the
                                             pack's chunk table and sequence, read independently
                                             of the client, and the files' sizes in DIR), and the
                                             index's length"""
import json, os, random, sys
from packindex import read_index

def corpus(root, size_mib, files):
    each = size_mib * (1 << 20) // files
    rng = random.Random(20261213)
    for j in range(files):
        path = os.path.join(root, 'content', 'Levels', f'World{j * 10 // files:02d}', f'level{j:05d}.bin')
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(rng.randbytes(each))
    manifest = {"assetPackID": "Progressive", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "Levels"}],
                "platforms": ["iOS"], "sourceRoot": "content"}
    with open(os.path.join(root, 'Manifest.json'), 'w') as f:
        json.dump(manifest, f)

def paths(root):
    base = os.path.join(root, 'content')
    out = []
    for d, _, names in os.walk(base):
        for n in names:
            out.append(os.path.relpath(os.path.join(d, n), base))
    return sorted(out, key=lambda p: p.encode())

def chunks(pack, root, target):
    table, sequence, index_length = read_index(pack)
    start = 0
    for p in paths(root):
        size = os.path.getsize(os.path.join(root, 'content', p))
        if p == target:
            break
        start += size
    else:
        sys.exit(f'{target}: not in the corpus')
    end = start + size
    offset, used = 0, set()
    for c in sequence:
        u = table[c][2]
        if offset < end and offset + u > start:
            used.add(c)
        offset += u
    print(sum(table[c][1] for c in used), index_length)

if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'corpus': corpus(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == 'paths': print('\n'.join(paths(sys.argv[2])))
    elif cmd == 'chunks': chunks(sys.argv[2], sys.argv[3], sys.argv[4])
    else: sys.exit(__doc__)
