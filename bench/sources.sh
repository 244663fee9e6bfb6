#!/usr/bin/env bash
# Where the bytes come from: N clients (N = 1, 4, 8, at once, each into a fresh root) install the
# benchmark pack (a) from the origin alone (nginx on loopback, the server block of
# docs/HOSTING.md), (b) from the origin with one LAN peer (`assetpack agent --share` on a root that
# installed the pack beforehand, untimed and not counted), given to every client with --peer, and
# (c) through Varnish with the VCL of docs/HOSTING.md in front of the same origin (a fresh edge,
# cold, for each N). For each it prints the origin's body bytes (nginx access log) and the wall
# time until the last of the N clients is done, and checks every client's installed tree against
# the corpus. Every client reaches the peer from 127.0.0.1, so the sharer runs with limits for a
# whole classroom on one address (--share-rate 100000 --share-connections 256). Targets with a peer: origin bytes <= 5 % of the pack per additional client, time <=
# 1.1x the origin-only install of the same N.
#
#   bench/sources.sh [SIZE_MIB=1024] [ROUNDS=1] [NS="1 4 8"]
#
# ASSETPACK=path/to/assetpack runs that binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}; rounds=${2:-1}; ns=${3:-"1 4 8"}
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/sources; corpus=$PWD/bench/out/corpus-$size
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"

source bench/deleted.sh
rm -rf "$out"; mkdir -p "$out/repo" "$out/clients"
wait_for_deleted_inodes
"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$corpus" && "$bin" publish Manifest.json --repo "$out/repo" --key "$out/key" >/dev/null)
pack=$(find "$out/repo/packs" -name '*.pack'); packbytes=$(stat -c %s "$pack")

source bench/nginx.sh
agent_pid=""; varnish_pid=""
stop_all() {
  [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null; agent_pid=""
  [ -n "$varnish_pid" ] && kill "$varnish_pid" 2>/dev/null && wait "$varnish_pid" 2>/dev/null; varnish_pid=""
  stop_nginx
}
trap 'stop_all; rm -rf "$out/clients" "$out/sharer"; record_deletion' EXIT
start_nginx "$out/repo" "$out/nginx"
origin=http://127.0.0.1:$NGINX_PORT
cat "$pack" > /dev/null   # the pack in the page cache for every scenario

# The sharer: installs the pack from the origin (not counted), then shares it.
"$bin" ensure bench-corpus --root "$out/sharer" --repo "$origin" --public-key "$out/key.pub" > /dev/null
"$bin" agent --root "$out/sharer" --share --share-port 0 --share-rate 100000 --share-connections 256 2> "$out/agent.log" & agent_pid=$!
for _ in $(seq 200); do grep -q 'sharing chunks on' "$out/agent.log" && break; sleep 0.05; done
peer=$(sed -n 's|.*sharing chunks on \(http://[^/]*\)/chunks/.*|\1|p' "$out/agent.log")
[ -n "$peer" ] || { echo "error: the sharing agent did not start (see $out/agent.log)" >&2; exit 1; }

# A Varnish edge in front of the origin, cold: start_varnish sets EDGE.
start_varnish() {
  local work=$out/varnish port
  rm -rf "$work"; mkdir -p "$work"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  awk '/^```vcl$/{on=1; next} /^```$/{if(on){exit}} on' docs/HOSTING.md | sed "s|.port = \"8080\"|.port = \"$NGINX_PORT\"|" > "$work/edge.vcl"
  varnishd -F -j none -T none -a "127.0.0.1:$port" -f "$work/edge.vcl" -n "$work/instance" -s "malloc,$((packbytes / 1048576 * 2 + 256))m" \
    > "$work/varnishd.log" 2>&1 & varnish_pid=$!
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$port/catalog.json" && break; sleep 0.05; done
  EDGE=http://127.0.0.1:$port
}
stop_varnish() { [ -n "$varnish_pid" ] && kill "$varnish_pid" 2>/dev/null && wait "$varnish_pid" 2>/dev/null; varnish_pid=""; }

origin_bytes() { awk '{ s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG"; }

# run NAME N URL [EXTRA...]: N clients at once, each into a fresh root of its own; prints
# "NAME N seconds origin_bytes". Nothing is deleted between runs: on ext4 without a journal (the
# VM's disk) inodes freed in the last minutes are skipped when new ones are allocated, so a run
# right after the previous run's roots were deleted creates its files much more slowly (the
# first runs of an earlier version of this script, which deleted between runs, were the only
# ones that did not pay it). Before each run, untimed: the earlier roots' pages are written and
# dropped from the page cache, the disk rests, and memory is touched (as in bench/install.sh).
run() {
  local name=$1 n=$2 url=$3; shift 3
  local before start end pids=() k dir=$out/clients/$name-$n-r$round
  mkdir -p "$dir"; sync; python3 bench/evict.py "$out/clients"; sleep 5
  head -c 4G /dev/zero > /dev/shm/assetpack-bench-warm 2>/dev/null; rm -f /dev/shm/assetpack-bench-warm
  before=$(origin_bytes); start=$(date +%s.%N)
  for k in $(seq "$n"); do
    "$bin" ensure bench-corpus --root "$dir/$k" --repo "$url" --public-key "$out/key.pub" "$@" > "$dir/$k.log" 2>&1 & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || { echo "error: a client failed ($name, N=$n): see $dir/" >&2; exit 1; }; done
  end=$(date +%s.%N)
  for k in $(seq "$n"); do
    diff -rq "$corpus/content" "$(echo "$dir/$k"/packs/bench-corpus/*/)content" > /dev/null \
      || { echo "error: client $k's tree differs from the corpus ($name, N=$n)" >&2; exit 1; }
  done
  echo "$name $n $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') $(( $(origin_bytes) - before ))"
}

echo "pack $packbytes B ($(du -sh "$corpus/content" | cut -f1) of content); peer $peer; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
results=$out/results.txt; : > "$results"
# Each round keeps (1 + 1 + 1) x the sum of NS roots of the unpacked corpus until its end.
need=$(( $(du -sk "$corpus/content" | cut -f1) * 3 * $(echo $ns | tr ' ' '+') ))
free=$(df -k --output=avail "$out" | tail -1)
(( need < free )) || { echo "error: a round needs $((need / 1048576)) GiB free in $out, there are $((free / 1048576))" >&2; exit 1; }
for round in $(seq "$rounds"); do
  if (( round > 1 )); then
    rm -rf "$out/clients"; record_deletion; wait_for_deleted_inodes
  fi
  for n in $ns; do
    run origin "$n" "$origin" | tee -a "$results"
    run peer "$n" "$origin" --peer "$peer" | tee -a "$results"
    start_varnish
    run varnish "$n" "$EDGE" | tee -a "$results"
    stop_varnish
  done
done

# Medians per scenario and N, and the ratios against the origin alone.
python3 - "$results" "$packbytes" "$size" <<'PY'
import statistics, sys
sys.path.insert(0, 'bench')
import result
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
pack = int(sys.argv[2])
data = {}
for name, n, t, b in rows:
    data.setdefault((name, int(n)), []).append((float(t), int(b)))
print(f"{'N':>2} {'scenario':<8} {'time s':>8} {'÷ origin':>9} {'origin bytes':>14} {'÷ pack':>8} {'per client ÷ pack':>18}")
for n in sorted({k[1] for k in data}):
    base = statistics.median(t for t, _ in data[('origin', n)])
    for name in ('origin', 'peer', 'varnish'):
        if (name, n) not in data: continue
        t = statistics.median(t for t, _ in data[(name, n)])
        b = statistics.median(b for _, b in data[(name, n)])
        print(f"{n:>2} {name:<8} {t:8.2f} {t / base:8.2f}x {b:14.0f} {b / pack:7.2%} {b / n / pack:17.2%}")
        result.emit(runners={f'{name} N={n}': {'wall_s': t, 'bytes': int(b)}},
                    figures={f'time {name} / origin N={n}': round(t / base, 4),
                             f'origin bytes per client / pack {name} N={n}': round(b / n / pack, 4)})
result.emit(size_mib=int(sys.argv[3]))
PY
