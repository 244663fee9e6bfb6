#!/usr/bin/env bash
# A crowd of clients against `assetpack serve` and against nginx, side by side on the same
# repository and machine:
#   1. CLIENTS (default 100) `assetpack install` processes started at once, each into a storage
#      root of its own, from each server in turn: wall time until the last one ends, failures,
#      and whether every installed tree equals the source content byte for byte;
#   2. CONNECTIONS (default 1,000) concurrent keep-alive connections of wrk sending random
#      aligned 64 KiB Range requests for DURATION seconds: requests/s, MB/s, wrk's errors by kind
#      (connect — refused or reset on connect —, read, write, non-2xx status, timeout).
# Each server is started afresh for each part of each round (default 3, the two servers
# alternating), and its peak resident memory (VmHWM; for nginx the sum over its master and
# workers) is read once the part ends. Times are medians over the rounds.
#
#   bench/crowds.sh [--clients N] [--connections N] [--duration SECONDS] [--pack-mib N] [--rounds N]
#
# `assetpack serve` runs with its defaults (4096 connections, 1024 from one address); nginx with
# the server block of docs/HOSTING.md, `worker_processes` = cores and `worker_connections` 4096
# (nginx's default, 512, cannot hold 1,000 connections on two workers). Both write an access log.
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=100 connections=1000 duration=10 pack_mib=8 rounds=3
while (($#)); do
  case "$1" in
    --clients) clients=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --pack-mib) pack_mib=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "bench/crowds.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh --bench
for tool in wrk nginx python3 curl; do command -v "$tool" >/dev/null || { echo "error: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }; done
# wrk and both servers need a descriptor per connection, and the clients a few each.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

out="$PWD/bench/out/crowds"
rm -rf "$out"; mkdir -p "$out/content/textures" "$out/nginx"
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi

# Content: one essential pack of about $pack_mib MiB — half incompressible, half text, some small files.
head -c $((pack_mib * 524288)) /dev/urandom > "$out/content/textures/atlas.bin"
python3 - "$out/content" "$pack_mib" <<'PY'
import os, sys
root, mib = sys.argv[1], int(sys.argv[2])
lines = ''.join(f'level {i}: spawn {i * 7 % 101} enemies at ({i % 64}, {i * 13 % 64})\n' for i in range(20000))
with open(os.path.join(root, 'levels.txt'), 'w') as f:
    while f.tell() < mib * 524288:
        f.write(lines)
os.makedirs(os.path.join(root, 'config'), exist_ok=True)
for i in range(200):
    with open(os.path.join(root, 'config', f'item{i:03}.json'), 'w') as f:
        f.write('{"item": %d, "price": %d, "name": "item number %d"}\n' % (i, i * 37 % 1000, i))
PY
cat > "$out/Manifest.json" <<JSON
{"assetPackID": "Crowd", "downloadPolicy": {"essential": {"installationEventTypes": ["firstInstallation"]}},
 "fileSelectors": [{"directory": "."}], "platforms": ["iOS"], "sourceRoot": "content"}
JSON
"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$out" && "$bin" publish Manifest.json --repo "$out/repo" --key "$out/key" >/dev/null)
pack=$(cd "$out/repo" && find packs -name '*.pack' | head -1)
pack_bytes=$(stat -c %s "$out/repo/$pack")

source bench/nginx.sh
serve_pid="" serve_port=""
start_serve() {
  "$bin" serve "$out/repo" --port 0 --access-log "$out/serve-access.log" > "$out/serve.out" 2> "$out/serve.err" & serve_pid=$!
  for _ in $(seq 200); do grep -q '^Serving' "$out/serve.out" 2>/dev/null && break; sleep 0.05; done
  serve_port=$(sed -n 's|^Serving .* at http://127.0.0.1:\([0-9]*\)/$|\1|p' "$out/serve.out")
  [ -n "$serve_port" ] || { echo "error: assetpack serve did not start: $(cat "$out/serve.err")" >&2; exit 1; }
}
stop_serve() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null; serve_pid=""; }
trap 'stop_serve; stop_nginx' EXIT
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }  # KiB
serve_peak() { echo $(( $(hwm "$serve_pid") / 1024 )); }
nginx_peak() {  # master and workers (NGINX_PID is the `timeout` that runs the master), MiB
  local kib=0 p master
  master=$(pgrep -P "$NGINX_PID" | head -1)
  for p in "$master" $(pgrep -P "$master"); do kib=$((kib + $(hwm "$p"))); done
  echo $((kib / 1024))
}
NGINX_WORKER_CONNECTIONS=4096

# Part 1: the install crowd. Prints "wall_s failures inexact".
crowd_install() {  # URL NAME
  local url=$1 name=$2 i pid start end failures=0 inexact=0 pids=()
  rm -rf "$out/roots"; mkdir -p "$out/roots"
  start=$(date +%s.%N)
  for i in $(seq "$clients"); do
    "$bin" install --root "$out/roots/$i" --repo "$url" --public-key "$out/key.pub" > "$out/roots/$i.log" 2>&1 & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failures=$((failures + 1)); done
  end=$(date +%s.%N)
  for i in $(seq "$clients"); do
    diff -rq "$out/content" "$(echo "$out/roots/$i"/packs/Crowd/*/)" > /dev/null 2>&1 || inexact=$((inexact + 1))
  done
  if ((failures)); then echo "$name: $failures installs failed, e.g. $(grep -hi error "$out"/roots/*.log | head -1)" >&2; fi
  echo "$(python3 -c "print(round($end - $start, 3))") $failures $inexact"
}

# Part 2: wrk with $connections connections of 64 KiB ranges. Prints "req/s MB/s connect read write status timeout".
cat > "$out/ranges.lua" <<LUA
local chunks = math.floor($pack_bytes / 65536)
request = function()
  local off = math.random(0, chunks - 1) * 65536
  return wrk.format("GET", "/$pack", {["Range"] = "bytes=" .. off .. "-" .. (off + 65535)})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    e.connect, e.read, e.write, e.status, e.timeout))
end
LUA
crowd_ranges() {  # PORT
  wrk -t2 -c"$connections" -d"${duration}s" --timeout 10s -s "$out/ranges.lua" "http://127.0.0.1:$1" > "$out/wrk.txt" 2>&1 || true
  awk '/^RESULT/ { printf "%.1f %.1f %d %d %d %d %d\n", $2 / ($4 / 1e6), $3 / $4, $5, $6, $7, $8, $9 }' "$out/wrk.txt"
}

echo "crowds: assetpack serve vs nginx $(nginx -v 2>&1 | sed 's|.*/||'); $rounds rounds; pack $pack_bytes bytes; $clients installs at once; $connections connections × ${duration}s of 64 KiB ranges; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Each round runs both servers, one after the other, the first one alternating, so that the
# machine's other load hits both alike; times are medians, failures and errors sums, RSS the peak.
: > "$out/install-serve.txt"; : > "$out/install-nginx.txt"; : > "$out/ranges-serve.txt"; : > "$out/ranges-nginx.txt"
for r in $(seq "$rounds"); do
  for server in $( ((r % 2)) && echo "serve nginx" || echo "nginx serve"); do
    if [ "$server" = serve ]; then
      start_serve; echo "$(crowd_install "http://127.0.0.1:$serve_port/" serve) $(serve_peak)" >> "$out/install-serve.txt"; stop_serve
      start_serve; echo "$(crowd_ranges "$serve_port") $(serve_peak)" >> "$out/ranges-serve.txt"; stop_serve
    else
      start_nginx "$out/repo" "$out/nginx"; echo "$(crowd_install "http://127.0.0.1:$NGINX_PORT/" nginx) $(nginx_peak)" >> "$out/install-nginx.txt"; stop_nginx
      start_nginx "$out/repo" "$out/nginx"; echo "$(crowd_ranges "$NGINX_PORT") $(nginx_peak)" >> "$out/ranges-nginx.txt"; stop_nginx
    fi
  done
done
col_median() { cut -d' ' -f"$2" "$1" | median; }
col_sum() { awk -v c="$2" '{ s += $c } END { print s + 0 }' "$1"; }
col_max() { awk -v c="$2" '$c > m { m = $c } END { print m + 0 }' "$1"; }

printf '%-34s %8s %9s %9s %14s\n' "$clients installs at once" "wall s" failures inexact "peak RSS MiB"
for server in serve nginx; do
  f="$out/install-$server.txt"
  read -r wall fail inexact rss <<< "$(col_median "$f" 1) $(col_sum "$f" 2) $(col_sum "$f" 3) $(col_max "$f" 4)"
  name=$([ "$server" = serve ] && echo "assetpack serve" || echo nginx)
  printf '%-34s %8s %9s %9s %14s\n' "$name" "$wall" "$fail" "$inexact" "$rss"
  python3 bench/result.py --runner "$name: $clients installs" wall_s="$wall" failures="$fail" inexact="$inexact" peak_rss_mib="$rss"
  eval "${server}_wall=$wall ${server}_bad=$((fail + inexact))"
done
printf '%-34s %9s %8s %8s %6s %6s %7s %8s %14s\n' "$connections connections, ranges" "req/s" "MB/s" connect read write status timeout "peak RSS MiB"
for server in serve nginx; do
  f="$out/ranges-$server.txt"
  read -r rq mb conn rd wr st to rss <<< "$(col_median "$f" 1) $(col_median "$f" 2) $(col_sum "$f" 3) $(col_sum "$f" 4) $(col_sum "$f" 5) $(col_sum "$f" 6) $(col_sum "$f" 7) $(col_max "$f" 8)"
  name=$([ "$server" = serve ] && echo "assetpack serve" || echo nginx)
  printf '%-34s %9s %8s %8s %6s %6s %7s %8s %14s\n' "$name" "$rq" "$mb" "$conn" "$rd" "$wr" "$st" "$to" "$rss"
  python3 bench/result.py --runner "$name: $connections connections" req_s="$rq" mb_s="$mb" connect_errors="$conn" \
    read_errors="$rd" write_errors="$wr" status_errors="$st" timeouts="$to" peak_rss_mib="$rss"
  eval "${server}_rq=$rq ${server}_errors=$((conn + rd + wr + st + to))"
done
python3 bench/result.py "install wall assetpack serve / nginx=$(python3 -c "print(round($serve_wall / $nginx_wall, 3))")" \
  "req/s assetpack serve / nginx at $connections connections=$(python3 -c "print(round($serve_rq / $nginx_rq, 3) if $nginx_rq else 0)")" \
  "serve failures+inexact+errors=$((serve_bad + serve_errors))" "nginx failures+inexact+errors=$((nginx_bad + nginx_errors))"
python3 bench/result.py size_mib="$(python3 -c "print(round($pack_bytes / 1048576, 2))")"
