#!/usr/bin/env bash
# Seeds: a pack installed into an empty root while an older copy of its content lies on disk,
# side by side in one run with casync (`casync extract --seed`, 64 KiB average chunks).
#
#   bench/seeds.sh [ROUNDS=3] [RATE]
#
# RATE (nginx's limit_rate, bytes per second per response, e.g. 10m) stands for a slower link
# than loopback; without it the server is as fast as the machine.
#
# The content is bench/update-corpus.py's "edits" workload: v1 (a 64 MiB database-like file, a
# 64 MiB model-like file, 200 small JSON files) on disk as the seed, v2 (300 records rewritten,
# 4 KiB inserted and 256 KiB rewritten in the model, 20 JSON files edited, one added, one removed)
# published and served by nginx. Each round, alternately: `assetpack ensure` of v2 into an empty
# root without a seed and with `--seed v1`, and `casync extract` of v2 without and with
# `--seed=v1`. Bytes fetched are nginx's $body_bytes_sent over every request (catalog, index,
# frames; casync's index and chunks); times are wall-clock, medians over the rounds.
# Reported: bytes fetched with a seed ÷ without (ours and casync's), our seeded bytes ÷ casync's,
# and our seeded time ÷ casync's seeded time. Every result tree is compared with v2.
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; rate=${2:-0}
scripts/install-deps.sh
if ! command -v casync >/dev/null; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends casync >/dev/null
fi
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
source bench/nginx.sh
trap stop_nginx EXIT

out=$PWD/bench/out/seeds
if [ ! -f "$out/changed" ]; then
  rm -rf "$out"; mkdir -p "$out"
  python3 bench/update-corpus.py edits "$out" > "$out/changed"
fi
(cd "$out" && rm -rf site peers root-* casync-* nginx* key key.pub results)
echo '{"assetPackID": "Seeded", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}' > "$out/v2/Manifest.json"
"$bin" keygen -o "$out/key" >/dev/null 2>&1
mkdir -p "$out/site" "$out/peers"
(cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache >/dev/null)
casync make --chunk-size=65536 --store="$out/site/repo/castore" "$out/site/repo/v2.caidx" "$out/v2/content" >/dev/null
start_nginx "$out/site/repo" "$out/nginx" "$rate"
url=http://127.0.0.1:$NGINX_PORT

seconds() { python3 -c 'import subprocess, sys, time; t = time.perf_counter(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); print(f"{time.perf_counter() - t:.3f}")' "$@"; }
served() { awk '{ s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG"; }
measure() {  # NAME COMMAND...: appends "NAME SECONDS BYTES" to the results
  local name=$1; shift
  sync; : > "$NGINX_LOG"
  local s; s=$(seconds "$@")
  echo "$name $s $(served)" >> "$out/results"
}
same() { diff -r "$out/v2/content" "$1" >/dev/null || { echo "FAIL: $1 differs from v2" >&2; exit 1; }; }
for r in $(seq "$rounds"); do
  rm -rf "$out"/root-* "$out"/casync-*
  measure ours "$bin" ensure Seeded --root "$out/root-plain" --repo "$url" --public-key "$out/key.pub"
  same "$(ls -d "$out"/root-plain/packs/Seeded/*)/content"
  measure ours-seed "$bin" ensure Seeded --root "$out/root-seed" --repo "$url" --public-key "$out/key.pub" --seed "$out/v1/content"
  same "$(ls -d "$out"/root-seed/packs/Seeded/*)/content"
  measure casync casync extract --store="$url/castore" "$url/v2.caidx" "$out/casync-plain"
  same "$out/casync-plain"
  measure casync-seed casync extract --store="$url/castore" --seed="$out/v1/content" "$url/v2.caidx" "$out/casync-seed"
  same "$out/casync-seed"
done
python3 - "$out/results" "$(cat "$out/changed")" "$(du -sb "$out/v2/content" | cut -f1)" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, s, b = line.split()
    rows.setdefault(name, []).append((float(s), int(b)))
med = {n: (statistics.median(s for s, _ in v), statistics.median(b for _, b in v)) for n, v in rows.items()}
mb = lambda b: f'{b / 1e6:.2f} MB'
for n in ['ours', 'ours-seed', 'casync', 'casync-seed']:
    print(f'{n:12} {med[n][0]:7.2f} s  {mb(med[n][1])} fetched')
print(f'bytes fetched with seed / without: assetpack {med["ours-seed"][1] / med["ours"][1]:.3f}, casync {med["casync-seed"][1] / med["casync"][1]:.3f}')
print(f'seeded bytes fetched, assetpack / casync: {med["ours-seed"][1] / med["casync-seed"][1]:.3f}')
print(f'seeded time, assetpack / casync: {med["ours-seed"][0] / med["casync-seed"][0]:.3f}; unseeded: {med["ours"][0] / med["casync"][0]:.3f}')
print(f'seeded time / unseeded time: assetpack {med["ours-seed"][0] / med["ours"][0]:.3f}, casync {med["casync-seed"][0] / med["casync"][0]:.3f}')
sys.path.insert(0, 'bench')
import result
names = {'ours': 'assetpack', 'ours-seed': 'assetpack --seed', 'casync': 'casync', 'casync-seed': 'casync --seed'}
result.emit(runners={names[n]: {'wall_s': med[n][0], 'bytes': int(med[n][1])} for n in names},
            figures={'seeded bytes assetpack / casync': round(med["ours-seed"][1] / med["casync-seed"][1], 4),
                     'seeded time assetpack / casync': round(med["ours-seed"][0] / med["casync-seed"][0], 4),
                     'bytes with seed / without assetpack': round(med["ours-seed"][1] / med["ours"][1], 4)},
            size_mib=int(sys.argv[3]) >> 20)
PY
