#!/usr/bin/env bash
# Publish benchmark: what the publish cache saves. On the ~1 GiB corpus (bench/corpus.py), split
# into one pack per top-level folder (text, data, media, small, models), each round times:
#   first      a publish into an empty repository (packages every pack; writes the cache)
#   unchanged  the same publish again (every pack reused from the repository)
#   touched    again after `touch` of one text file (only the text pack is packaged)
#   no-cache   again with --no-cache (every pack packaged: what every publish cost before)
# and the peer, `tar -cf - content | zstd -3 -T0`. Prints median times and the median per-round
# ratios to the first publish and to tar+zstd.
# Usage: bench/publish.sh [SIZE_MIB=1024] [ROUNDS=2]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}; rounds=${2:-2}
. bench/corpus-setup.sh
folders="text data media small models"
for f in $folders; do
  cat > "publish-$f.json" <<EOF
{"assetPackID": "Bench.$f", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content/$f"}], "platforms": ["iOS"]}
EOF
done
[ -f "$out/publish-key.pem" ] || "$bin" keygen -o "$out/publish-key.pem" >/dev/null
repo=$out/publish-repo; cache=$out/.publish-repo.publish-cache.json
touched=$(find content/text -type f | sort | head -1)
echo "corpus: $(du -sh content | cut -f1), $(find content -type f | wc -l) files in 5 packs; $(nproc) cores; touching $touched"

now() { date +%s.%N; }
# Runs a command, prints and returns (in $elapsed) its wall time in seconds.
timed() {
  local name=$1; shift
  local start; start=$(now)
  "$@" >/dev/null
  elapsed=$(python3 -c "print(f'{$(now) - $start:.3f}')")
  printf '  %-10s %7.2f s\n' "$name" "$elapsed"
}
publish() { "$bin" publish publish-*.json --repo "$repo" --key "$out/publish-key.pem" --cache "$cache" "$@"; }
reused() { publish --json | python3 -c 'import json,sys; print(sum(p["reused"] for p in json.load(sys.stdin)["packaging"]))'; }

results=()
for r in $(seq "$rounds"); do
  echo "round $r"
  rm -rf "$repo" "$cache"; sync
  timed first publish; first=$elapsed
  timed unchanged publish; unchanged=$elapsed
  touch "$touched"
  timed touched publish; touch_t=$elapsed
  timed no-cache publish --no-cache; nocache=$elapsed
  timed tar+zstd sh -c "tar -cf - content | zstd -q -3 -T0 -f -o $out/publish-peer.tar.zst"; peer=$elapsed
  results+=("$first $unchanged $touch_t $nocache $peer")
done
echo "packs reused by one more unchanged publish: $(reused) of 5"
BENCH_DIR=$OLDPWD/bench CONTENT_MIB=$(($(du -sb content | cut -f1) >> 20)) python3 - "${results[@]}" <<'PY'
import os, sys, statistics
rows = [list(map(float, arg.split())) for arg in sys.argv[1:]]
names = ["first publish", "unchanged re-publish", "one file touched", "--no-cache re-publish", "tar | zstd -3 -T0"]
print(f"medians over {len(rows)} round(s); ratios per round, then the median:")
print(" " * 22 + f"{'time':>9}  {'/ first':>8}  {'/ tar+zstd':>10}")
for i, name in enumerate(names):
    t = statistics.median(r[i] for r in rows)
    first = statistics.median(r[i] / r[0] for r in rows)
    peer = statistics.median(r[i] / r[4] for r in rows)
    print(f"{name:22}{t:8.2f}s  {first:7.3f}x  {peer:9.3f}x")
sys.path.insert(0, os.environ["BENCH_DIR"])
import result
keys = ["first", "unchanged", "touched", "no-cache", "tar+zstd"]
result.emit(runners={("assetpack publish " + k if k != "tar+zstd" else k): {"wall_s": round(statistics.median(r[i] for r in rows), 4)}
                     for i, k in enumerate(keys)},
            figures={f"time {k} / first": round(statistics.median(r[i] / r[0] for r in rows), 4) for i, k in enumerate(keys[1:4], 1)}
            | {f"time {k} / tar+zstd": round(statistics.median(r[i] / r[4] for r in rows), 4) for i, k in enumerate(keys[:4])},
            size_mib=int(os.environ["CONTENT_MIB"]))
PY
