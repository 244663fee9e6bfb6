#!/usr/bin/env python3
"""Makes the two versions of an update benchmark's content, deterministically (seeded).
Usage: update-corpus.py edits|model|files OUT [MODEL_MIB|FILES]
  edits: v1 = db.bin (64 MiB, database-like records), model.bin (64 MiB), 200 small JSON files;
         v2 = 300 scattered 16-byte records rewritten in db.bin; 4 KiB inserted and 256 KiB
         rewritten in model.bin; 20 JSON files edited, one added, one removed.
  model: v1 = one MODEL_MIB model file (default 2048); v2 = 1 % of its 4 KiB pages rewritten.
  files: v1 = the FILES small JSON files of bench/corpus.py's small-files corpus (default 100,000);
         v2 = 100 of them edited in place (a value changed), 10 removed, 10 added.
Writes OUT/v1/content and OUT/v2/content and prints the bytes of the files that differ between
them (changed and added), the denominator of write amplification."""
import os, random, sys

def rand(r, n):
    return r.randbytes(n)

def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)

def stream_copy_with_pages(src, dst, pages, r, page=4096):
    """Copies src to dst, replacing the 4 KiB pages in `pages` (sorted) with new random bytes."""
    with open(src, 'rb') as i, open(dst, 'wb') as o:
        n = 0
        targets = set(pages)
        while True:
            block = i.read(page)
            if not block:
                break
            o.write(rand(r, len(block)) if n in targets else block)
            n += 1

def main():
    kind, out = sys.argv[1], sys.argv[2]
    v1, v2 = f'{out}/v1/content', f'{out}/v2/content'
    r = random.Random(12)
    changed = 0
    if kind == 'edits':
        # A database-like file: 64-byte records of a few fields, partly compressible.
        records = bytearray()
        for k in range(1 << 20):
            records += k.to_bytes(8, 'little') + rand(r, 24) + b'name-%08d-pad\0\0\0\0\0\0\0\0\0\0\0' % (k % 99991)
        db = bytes(records[:64 << 20])
        model = rand(r, 64 << 20)
        write(f'{v1}/data/db.bin', db)
        write(f'{v1}/models/model.bin', model)
        jsons = {}
        for i in range(200):
            jsons[f'config/item-{i:03d}.json'] = ('{"id": %d, "name": "item %d", "weights": [%s]}\n' % (
                i, i, ', '.join(str(r.randint(0, 999)) for _ in range(r.randint(20, 400))))).encode()
        for p, b in jsons.items():
            write(f'{v1}/{p}', b)
        db2 = bytearray(db)
        for _ in range(300):
            o = r.randrange(0, len(db2) // 64) * 64 + 8
            db2[o:o + 16] = rand(r, 16)
        model2 = bytearray(model)
        model2[40 << 20:(40 << 20) + (256 << 10)] = rand(r, 256 << 10)
        model2[20 << 20:20 << 20] = rand(r, 4096)
        write(f'{v2}/data/db.bin', bytes(db2))
        write(f'{v2}/models/model.bin', bytes(model2))
        changed += len(db2) + len(model2)
        names = sorted(jsons)
        edited = set(r.sample(names[1:], 20))
        for p in names[1:]:
            b = jsons[p]
            if p in edited:
                b = b.replace(b'"name": "item', b'"name": "edited item')
                changed += len(b)
            write(f'{v2}/{p}', b)
        added = b'{"id": 999, "name": "new item"}\n'
        write(f'{v2}/config/item-new.json', added)
        changed += len(added)
    elif kind == 'model':
        size = int(sys.argv[3] if len(sys.argv) > 3 else 2048) << 20
        os.makedirs(f'{v1}/models', exist_ok=True)
        with open(f'{v1}/models/generator.bin', 'wb') as f:
            left = size
            while left:
                n = min(left, 16 << 20)
                f.write(rand(r, n))
                left -= n
        pages = sorted(r.sample(range(size // 4096), size // 4096 // 100))
        os.makedirs(f'{v2}/models', exist_ok=True)
        stream_copy_with_pages(f'{v1}/models/generator.bin', f'{v2}/models/generator.bin', pages, r)
        changed += size
    elif kind == 'files':
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import corpus
        count = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
        paths = []
        for rel, data in corpus.small_files(count):
            write(f'{v1}/{rel}', data)
            paths.append(rel)
        picked = r.sample(paths, 120)
        edited, removed = set(picked[:100]), set(picked[100:110])
        for rel in paths:
            if rel in removed:
                continue
            if rel in edited:
                with open(f'{v1}/{rel}', 'rb') as f:
                    data = f.read().replace(b'"version": ', b'"version": 1', 1)
                write(f'{v2}/{rel}', data)
                changed += len(data)
            else:
                os.makedirs(os.path.dirname(f'{v2}/{rel}'), exist_ok=True)
                os.link(f'{v1}/{rel}', f'{v2}/{rel}')
        for i, rel in enumerate(picked[110:]):
            data = b'{"schema": "added", "id": %d, "text": "%s"}\n' % (i, rand(r, 600).hex().encode())
            write(f'{v2}/{rel[:-5]}-added.json', data)
            changed += len(data)
    else:
        sys.exit(__doc__)
    print(changed)

if __name__ == '__main__':
    main()
