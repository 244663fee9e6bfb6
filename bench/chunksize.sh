#!/usr/bin/env bash
# How the average chunk size trades pack size against delta-update size. Packs a corpus (v1) and
# an edited copy (v2: bytes inserted into the model file, a few small files changed, text
# appended, one media file replaced) at several average chunk sizes, and prints for each: pack
# size against tar+zstd -3, the bytes a v1 client downloads to reach v2 (chunks it lacks), and
# the chunk count (index size). Usage: bench/chunksize.sh [SIZE_MIB=256]
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out; v1=$out/corpus-$size; v2=$out/corpus-$size-v2
[ -f "$v1/Manifest.json" ] || python3 bench/corpus.py "$v1" "$size"
rm -rf "$v2"; cp -a "$v1" "$v2"
python3 - "$v2/content" <<'PY'
import os, random, sys
root = sys.argv[1]; rng = random.Random(7)
def rewrite(rel, fn):
    p = os.path.join(root, rel); data = open(p, 'rb').read(); open(p, 'wb').write(fn(data))
rewrite('models/generator.weights', lambda d: d[:len(d)//3] + rng.randbytes(4096) + d[len(d)//3:])
rewrite('models/generator.weights', lambda d: d[:len(d)*2//3] + rng.randbytes(1 << 20) + d[len(d)*2//3 + (1 << 20):])
small = sorted(os.path.join(dp, f)[len(root)+1:] for dp, _, fs in os.walk(os.path.join(root, 'small')) for f in fs)
for rel in rng.sample(small, 10):
    rewrite(rel, lambda d: d.replace(b'a', b'A', 3))
rewrite('text/doc000.txt', lambda d: d + b'appended line\n' * 1000)
media = sorted(os.listdir(os.path.join(root, 'media')))
rewrite('media/' + media[0], lambda d: rng.randbytes(len(d)))
PY
(cd "$v1" && tar -cf - content | zstd -q -3 -T0 -f -o "$out/cs.tar.zst")
tarsize=$(stat -c %s "$out/cs.tar.zst")
printf '%-9s %10s %12s %14s %10s\n' average size/tar delta-bytes delta/v2-size chunks
for avg in 65536 131072 262144 524288 1048576; do
  (cd "$v1" && "$bin" package Manifest.json -o "$out/cs-v1.pack" --chunk-average $avg >/dev/null)
  (cd "$v2" && "$bin" package Manifest.json -o "$out/cs-v2.pack" --chunk-average $avg >/dev/null)
  python3 - "$out/cs-v1.pack" "$out/cs-v2.pack" "$tarsize" "$avg" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), 'bench'))
from packindex import chunks
old, new, tar, avg = chunks(sys.argv[1]), chunks(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
have = {d for d, _, _ in old}
delta = sum(c for d, c, _ in new if d not in have)
size = os.path.getsize(sys.argv[2])
print(f'{avg // 1024:>6} KiB {os.path.getsize(sys.argv[1]) / tar:>9.3f}x {delta:>12} {delta / size:>13.2%} {len(new):>10}')
import result
result.emit(runners={f'assetpack {avg // 1024} KiB chunks': {'bytes': os.path.getsize(sys.argv[1]), 'delta_bytes': delta, 'chunks': len(new)}},
            figures={f'size / tar+zstd at {avg // 1024} KiB': round(os.path.getsize(sys.argv[1]) / tar, 4),
                     f'delta / v2 size at {avg // 1024} KiB': round(delta / size, 4)})
PY
done
python3 bench/result.py --runner tar+zstd bytes="$tarsize"
python3 bench/result.py size_mib="$size"
