#!/usr/bin/env python3
"""Generates the benchmark corpus (about SIZE_MIB, default 1024) deterministically:
text and JSON (~20 %), incompressible media-like files (~25 %), many small files (~5 %),
and one model-like file of half the total (bf16-like weights: random mantissas, narrow exponents).
With SIZE `small`: the small-files corpus instead (see small_files below); `small300` and
`small1m`: the same kind of corpus with 300,000 and 1,000,000 files (each begins with the files of
the smaller ones).
With SIZE `packs`: the same 100,000 files split into 100 packs of 1,000 (see packs below).
Usage: corpus.py DIR [SIZE_MIB|small|small300|small1m|packs]. Writes DIR/Manifest.json selecting everything
(for `packs`, DIR/packNN.json, one per pack).
Environment (SIZE_MIB corpora): CORPUS_SEED (another seed, other bytes of the same shape),
CORPUS_ID (the pack ID, default bench-corpus)."""
import json, os, random, sys

# Files of each small-files corpus.
SMALL_FILES = {'small': 100_000, 'small300': 300_000, 'small1m': 1_000_000, 'packs': 100_000}

def small_files(count):
    """`count` JSON files, ~80 MB a 100,000, as a game's or an app's data folder: 4 top folders,
    2 levels of nested folders below them (50 files a folder), sizes from ~200 B to ~4 KiB (most
    under 1 KiB), records with repeated keys and varied values. Yields (relative path, bytes) in
    a fixed order; a larger count yields the smaller one's files first."""
    rng = random.Random(20261201)
    words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(3, 9))) for _ in range(3000)]
    kinds = ['levels', 'items', 'dialogue', 'locales']
    def record(i):
        r = {"id": f"{rng.choice(words)}-{i}", "type": rng.choice(words[:40]), "name": ' '.join(rng.choices(words, k=rng.randint(1, 3))),
             "position": {"x": round(rng.uniform(-500, 500), 2), "y": round(rng.uniform(-500, 500), 2), "z": round(rng.uniform(0, 50), 2)},
             "tags": rng.choices(words[:200], k=rng.randint(0, 4)), "enabled": rng.random() < 0.8}
        if rng.random() < 0.5:
            r["stats"] = {"hp": rng.randint(1, 999), "speed": round(rng.random() * 10, 3), "level": rng.randint(1, 60)}
        if rng.random() < 0.3:
            r["text"] = ' '.join(rng.choices(words, k=rng.randint(4, 20)))
        return r
    for i in range(count):
        kind = kinds[i % 4]
        n = i // 4
        rel = f'{kind}/{kind[:-1]}-{n // 2500:02}/{(n // 50) % 50:02}/{kind[:-1]}-{n:05}.json'
        target = min(4096, 180 + int(rng.expovariate(1 / 440)))
        doc = {"schema": kind, "version": rng.randint(1, 9), "records": []}
        while True:
            doc["records"].append(record(i))
            text = json.dumps(doc, indent=1)
            if len(text) >= target or len(doc["records"]) > 40:
                break
        yield rel, text.encode()

def write_manifest(path, pack_id, directories):
    with open(path, 'w') as f:
        json.dump({"assetPackID": pack_id, "downloadPolicy": {"onDemand": {}},
                   "fileSelectors": [{"directory": d} for d in directories], "platforms": ["iOS", "macOS"]}, f, indent=2)

def small(root, kind):
    """`small`, `small300`, `small1m`: one pack of all the files. `packs`: the 100,000 files of `small` in
    100 packs, pack NN holding content/pNN/… (1,000 files each), for the namespace benchmark."""
    packs = kind == 'packs'
    for i, (rel, data) in enumerate(small_files(SMALL_FILES[kind])):
        path = os.path.join(root, 'content', f'p{i % 100:02}' if packs else '', rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    if packs:
        for p in range(100):
            write_manifest(os.path.join(root, f'pack{p:02}.json'), f'pack{p:02}', [f'content/p{p:02}'])
    else:
        write_manifest(os.path.join(root, 'Manifest.json'), 'bench-corpus', ['content'])

USAGE = 'usage: corpus.py DIR [SIZE_MIB|small|small300|small1m|packs]'

def main():
    args = sys.argv[1:]
    if args and args[0] in ('-h', '--help'):
        print(__doc__)
        return
    if not 1 <= len(args) <= 2 or args[0].startswith('-'):
        sys.exit(f'corpus.py: {USAGE}' + (f" (a folder is named, not an option: '{args[0]}')" if args and args[0].startswith('-') else ''))
    root = args[0]
    if len(args) > 1 and args[1] in SMALL_FILES:
        small(root, args[1])
        return
    if len(args) > 1 and not (args[1].isdigit() and int(args[1]) > 0):
        sys.exit(f"corpus.py: the size is a number of MiB or one of {', '.join(SMALL_FILES)}, not '{args[1]}'; {USAGE}")
    total = int(args[1]) if len(args) > 1 else 1024
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
    # Written 16 MiB at a time (an even length, so the pairs stay aligned): memory stays flat at
    # any corpus size, and the bytes are those of the whole file made at once.
    n = total * mib // 2
    table = bytes((0x3C + (b % 6)) | (0x80 if b & 0x40 else 0) for b in range(256))
    path = os.path.join(root, 'content', 'models', 'generator.weights')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        written = 0
        while written < n:
            raw = bytearray(rng.randbytes(min(16 * mib, n - written)))
            raw[1::2] = raw[1::2].translate(table)
            f.write(raw)
            written += len(raw)
    with open(os.path.join(root, 'Manifest.json'), 'w') as f:
        json.dump({"assetPackID": os.environ.get('CORPUS_ID', 'bench-corpus'), "downloadPolicy": {"onDemand": {}},
                   "fileSelectors": [{"directory": "content"}], "platforms": ["iOS", "macOS"]}, f, indent=2)

if __name__ == '__main__':
    main()
