#!/usr/bin/env python3
"""Generates the benchmark corpus (about SIZE_MIB, default 1024) deterministically:
text and JSON (~20 %), incompressible media-like files (~25 %), many small files (~5 %),
and one model-like file of half the total (bf16-like weights: random mantissas, narrow exponents).
Usage: corpus.py DIR [SIZE_MIB]. Writes DIR/Manifest.json selecting everything.
Environment: CORPUS_SEED (another seed, other bytes of the same shape), CORPUS_ID (the pack ID,
default bench-corpus)."""
import json, os, random, sys

def main():
    root = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    mib = 1 << 20
    rng = random.Random(int(os.environ.get('CORPUS_SEED', '20261130')))
    os.makedirs(root, exist_ok=True)
    words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(2, 10))) for _ in range(5000)]

    def text_block(n):
        out, size = [], 0
        while size < n:
            line = ' '.join(rng.choices(words, k=12)) + '\n'
            out.append(line); size += len(line)
        return ''.join(out)[:n].encode()

    def json_block(n):
        out, size = [], 0
        while size < n:
            rec = json.dumps({"id": rng.randint(0, 1 << 30), "name": rng.choice(words), "tags": rng.choices(words, k=3),
                              "score": round(rng.random(), 4), "enabled": rng.random() < 0.5}) + '\n'
            out.append(rec); size += len(rec)
        return ''.join(out)[:n].encode()

    def write(rel, data):
        path = os.path.join(root, 'content', rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)

    # Text and JSON: 20 %.
    budget = total * mib // 5
    i = 0
    while budget > 0:
        n = min(budget, rng.randint(1, 8) * mib)
        write(f'text/doc{i:03}.txt' if i % 2 == 0 else f'data/records{i:03}.json', text_block(n) if i % 2 == 0 else json_block(n))
        budget -= n; i += 1
    # Media-like (incompressible): 25 %.
    budget = total * mib // 4
    i = 0
    while budget > 0:
        n = min(budget, rng.randint(4, 32) * mib)
        write(f'media/clip{i:03}.bin', b''.join(rng.randbytes(min(16 * mib, n - o)) for o in range(0, n, 16 * mib)))
        budget -= n; i += 1
    # Many small files: 5 %, 1–8 KiB each.
    budget = total * mib // 20
    i = 0
    while budget > 0:
        n = rng.randint(1024, 8192)
        blob = json_block(n) if i % 3 == 0 else text_block(n)
        write(f'small/{i // 1000:02}/item{i:05}.{"json" if i % 3 == 0 else "txt"}', blob)
        budget -= n; i += 1
    # Model-like weights: half the corpus. bf16 pairs: low byte random, high byte in a narrow range.
    n = total * mib // 2
    raw = bytearray()
    while len(raw) < n:
        raw += rng.randbytes(min(16 * mib, n - len(raw)))
    table = bytes((0x3C + (b % 6)) | (0x80 if b & 0x40 else 0) for b in range(256))
    raw[1::2] = raw[1::2].translate(table)
    write('models/generator.weights', bytes(raw))
    with open(os.path.join(root, 'Manifest.json'), 'w') as f:
        json.dump({"assetPackID": os.environ.get('CORPUS_ID', 'bench-corpus'), "downloadPolicy": {"onDemand": {}},
                   "fileSelectors": [{"directory": "content"}], "platforms": ["iOS", "macOS"]}, f, indent=2)

if __name__ == '__main__':
    main()
