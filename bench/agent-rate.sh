#!/usr/bin/env bash
# Agent rate benchmark: `assetpack agent --max-rate RATE` from nginx on loopback.
#
#   bench/agent-rate.sh [ROUNDS=3] [SIZE_MIB=96] [RATE=8M]
#
# 1. Background pace: a detached request (background class) for one pack, followed on the
#    agent's status stream (GET /v1/events?pack=ID); each `downloading` event is timestamped,
#    and the rate over the middle of the download (after its first second, up to 95 % of the
#    pack) is compared with the cap. Target: within ±10 % of RATE.
# 2. Foreground share: a waited-for `ensure` of a second pack of the same shape, alone and
#    beside the background download (started a second before), alternating, ROUNDS rounds.
#    The foreground's share of the link is (time alone) ÷ (time beside the background); the
#    link is loopback, so "the link" is what the foreground gets alone on this machine.
#    Target: ≥ 0.80.
#
# ASSETPACK=path/to/assetpack runs that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; size=${2:-96}; rate=${3:-8M}
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/agent-rate
corpora=$PWD/bench/out/corpus-$size-rate   # back/ and fore/: two corpora of the same shape, other bytes
for part in back:1 fore:2; do
  id=bench-${part%:*}; dir=$corpora/${part%:*}
  [ -f "$dir/Manifest.json" ] || CORPUS_SEED=${part#*:} CORPUS_ID=$id python3 bench/corpus.py "$dir" "$size"
  sed "s|\"content\"|\"${part%:*}/content\"|" "$dir/Manifest.json" > "$corpora/$id.json"
done
rm -rf "$out"; mkdir -p "$out/repo"
"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$corpora" && "$bin" publish bench-back.json bench-fore.json --repo "$out/repo" --key "$out/key" >/dev/null)
back_size=$(stat -c %s "$out"/repo/packs/bench-back/*.pack)
fore_size=$(stat -c %s "$out"/repo/packs/bench-fore/*.pack)
cat "$out"/repo/packs/*/*.pack > /dev/null   # the sources in the page cache

source bench/nginx.sh
agent_pid=""
trap 'stop_nginx; [ -z "$agent_pid" ] || kill -TERM "$agent_pid" 2>/dev/null || true' EXIT
start_nginx "$out/repo" "$out/nginx"
url=http://127.0.0.1:$NGINX_PORT
"$bin" status --root "$out/root" --repo "$url/" --public-key "$out/key.pub" >/dev/null
"$bin" agent --root "$out/root" --max-rate "$rate" 2> "$out/agent.log" &
agent_pid=$!
sock=$out/root/agent.sock
for _ in $(seq 1 500); do curl -sf --unix-socket "$sock" http://agent/v1/status >/dev/null 2>&1 && break; sleep 0.01; done
cap=$(python3 -c "
import re
m = re.fullmatch(r'(\d+(?:\.\d+)?)([KMG]?)(i?B)?', '$rate'.upper().replace('IB', 'iB'))
print(int(float(m.group(1)) * (1024 if m.group(3) == 'iB' else 1000) ** ' KMG'.index(m.group(2) or ' ')))")
echo "packs: background $back_size B, foreground $fore_size B; cap $rate = $cap B/s; $(nproc) cores"

# 1. Background pace.
python3 - "$sock" "$back_size" "$cap" <<'PY'
import json, subprocess, sys, time
sock, size, cap = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
stream = subprocess.Popen(['curl', '-sN', '--unix-socket', sock, 'http://agent/v1/events?pack=bench-back'],
                          stdout=subprocess.PIPE, text=True)
assert stream.stdout.readline().startswith(': subscribed')
subprocess.run(['curl', '-sf', '-X', 'POST', '--unix-socket', sock, 'http://agent/v1/packs/bench-back/ensure?detach=1',
                '-o', '/dev/null'], check=True)
start, rows, event = time.monotonic(), [], {}
for line in stream.stdout:
    if not line.startswith('data: '): continue
    event = json.loads(line[6:])
    if event['event'] == 'downloading': rows.append((time.monotonic() - start, event['completed']))
    if event['event'] in ('finished', 'failed'): break
stream.kill()
if event.get('event') != 'finished': sys.exit(f'background download did not finish: {event}')
mid = [(t, b) for t, b in rows if t >= 1.0 and b <= 0.95 * size]
if len(mid) < 2: sys.exit('background: too few progress events in the middle of the download (raise SIZE_MIB)')
(t0, b0), (t1, b1) = mid[0], mid[-1]
r = (b1 - b0) / (t1 - t0)
print(f'background pace: {r:,.0f} B/s over {t1 - t0:.1f} s ({len(mid)} progress events) = {r / cap:.3f}x the cap '
      f'(target 0.90-1.10); the whole request {size / (time.monotonic() - start):,.0f} B/s')
sys.path.insert(0, 'bench')
import result
result.emit(figures={'background pace / cap': round(r / cap, 4)}, size_mib=round(size / 2**20))
PY

# 2. Foreground share: alone vs beside the background download.
python3 bench/measure.py --setup "
  curl -sf -X DELETE --unix-socket '$sock' http://agent/v1/packs/bench-fore >/dev/null || true
  curl -sf -X DELETE --unix-socket '$sock' http://agent/v1/packs/bench-back >/dev/null || true
  sync
  if [ \$1 = beside-background ]; then
    curl -sf -X POST --unix-socket '$sock' 'http://agent/v1/packs/bench-back/ensure?detach=1' -o /dev/null; sleep 1
  fi" "$rounds" \
  beside-background "curl -sf -X POST --unix-socket '$sock' http://agent/v1/packs/bench-fore/ensure -o /dev/null" \
  alone "curl -sf -X POST --unix-socket '$sock' http://agent/v1/packs/bench-fore/ensure -o /dev/null"
echo "the foreground's share of the link = 1 / the ratio above (target >= 0.80)"
