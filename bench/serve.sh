#!/usr/bin/env bash
# Benchmarks `assetpack serve` against nginx on the same repository and machine with wrk:
# 1 MiB Range requests and whole-pack downloads, at 4 and 64 connections, several rounds with
# the two servers alternating. Prints req/s and MB/s for each, and the ratio ours/nginx of the
# medians (target ≥ 0.8).
#
#   bench/serve.sh [--rounds N] [--duration SECONDS] [--packs N] [--pack-mib N]
#
# The repository is plain random files named like packs (the server only serves files). nginx
# runs the server block from docs/HOSTING.md with `worker_processes` = cores; assetpack serve
# runs its default thread per connection. Both write an access log. The machine's other load
# moves both servers' numbers; the rounds alternate so that it hits both alike.
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 duration=5 packs=4 pack_mib=16
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --packs) packs=$2; shift 2 ;;
    --pack-mib) pack_mib=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
scripts/install-deps.sh --bench
for tool in wrk nginx python3; do command -v "$tool" >/dev/null || { echo "error: $tool not found (scripts/install-deps.sh, or apt-get install $tool)" >&2; exit 1; }; done

out="$PWD/bench/out/serve"
rm -rf "$out"; mkdir -p "$out/repo/packs" "$out/nginx/tmp"
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi

# Repository: catalog plus $packs pack files of $pack_mib MiB.
echo '{"version": 1, "packs": []}' > "$out/repo/catalog.json"
paths=()
for i in $(seq 0 $((packs - 1))); do
  head -c $((pack_mib * 1048576)) /dev/urandom > "$out/repo/packs/p$i.pack"
  paths+=("\"/packs/p$i.pack\"")
done

# wrk script: a random pack, either a random aligned 1 MiB range or the whole file.
cat > "$out/bench.lua" <<LUA
local packs = {$(IFS=,; echo "${paths[*]}")}
local chunks = $pack_mib
local mode = os.getenv("MODE")
request = function()
  local p = packs[math.random(#packs)]
  if mode == "range" then
    local off = math.random(0, chunks - 1) * 1048576
    return wrk.format("GET", p, {["Range"] = "bytes=" .. off .. "-" .. (off + 1048575)})
  end
  return wrk.format("GET", p)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout))
end
LUA

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/catalog.json" && return 0; sleep 0.05; done; echo "error: nothing listening on $1" >&2; return 1; }

# nginx with the documented server block.
nginx_port=$(free_port)
block=$(awk '/^```nginx$/{on=1; next} /^```$/{if(on){exit}} on' docs/HOSTING.md \
  | sed -e "s|/srv/assetpacks/repo|$out/repo|" -e "s|127.0.0.1:8080|127.0.0.1:$nginx_port|")
user=""; [ "$(id -u)" -eq 0 ] && user="user root;"
cat > "$out/nginx/nginx.conf" <<CONF
$user
daemon off;
worker_processes $(nproc);
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log $out/nginx/access.log;
    keepalive_requests 100000;
    client_body_temp_path $out/nginx/tmp/body;
    proxy_temp_path $out/nginx/tmp/proxy;
    fastcgi_temp_path $out/nginx/tmp/fastcgi;
    uwsgi_temp_path $out/nginx/tmp/uwsgi;
    scgi_temp_path $out/nginx/tmp/scgi;
$block
}
CONF
nginx -p "$out/nginx" -c "$out/nginx/nginx.conf" -e "$out/nginx/error.log" & nginx_pid=$!
"$bin" serve "$out/repo" --port 0 --access-log "$out/serve-access.log" > "$out/serve.out" & serve_pid=$!
trap 'kill $serve_pid $nginx_pid 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q '^Serving' "$out/serve.out" 2>/dev/null && break; sleep 0.05; done
serve_port=$(sed -n 's|^Serving .* at http://127.0.0.1:\([0-9]*\)/$|\1|p' "$out/serve.out")
wait_port "$nginx_port"; wait_port "$serve_port"

# Sanity: both serve the same bytes for a range.
cmp <(curl -s -r 1048576-2097151 "http://127.0.0.1:$serve_port/packs/p0.pack") \
    <(curl -s -r 1048576-2097151 "http://127.0.0.1:$nginx_port/packs/p0.pack") || { echo "error: servers disagree" >&2; exit 1; }

run() {  # run MODE CONNECTIONS PORT → "req/s MB/s errors"
  MODE=$1 wrk -t2 -c"$2" -d"${duration}s" --timeout 10s -s "$out/bench.lua" "http://127.0.0.1:$3" \
    | awk '/^RESULT/ { printf "%.1f %.1f %d\n", $2 / ($4 / 1e6), $3 / $4, $5 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "assetpack serve vs nginx $(nginx -v 2>&1 | sed 's|.*/||'): $packs packs × $pack_mib MiB, $rounds rounds × ${duration}s, $(nproc) cores"
printf '%-16s %12s %12s %10s %10s %8s %8s\n' scenario "ours req/s" "nginx req/s" "ours MB/s" "nginx MB/s" "req×" "MB×"
for mode in range whole; do
  for c in 4 64; do
    : > "$out/ours.txt"; : > "$out/nginx.txt"
    for r in $(seq "$rounds"); do
      run "$mode" "$c" "$serve_port" >> "$out/ours.txt"
      run "$mode" "$c" "$nginx_port" >> "$out/nginx.txt"
    done
    oe=$(awk '{ s += $3 } END { print s }' "$out/ours.txt"); ne=$(awk '{ s += $3 } END { print s }' "$out/nginx.txt")
    oq=$(cut -d' ' -f1 "$out/ours.txt" | median); nq=$(cut -d' ' -f1 "$out/nginx.txt" | median)
    ob=$(cut -d' ' -f2 "$out/ours.txt" | median); nb=$(cut -d' ' -f2 "$out/nginx.txt" | median)
    label="$([ "$mode" = range ] && echo "1MiB-range" || echo "whole-pack") c$c"
    awk -v l="$label" -v oq="$oq" -v nq="$nq" -v ob="$ob" -v nb="$nb" -v oe="$oe" -v ne="$ne" 'BEGIN {
      printf "%-16s %12.1f %12.1f %10.1f %10.1f %7.2fx %7.2fx%s\n", l, oq, nq, ob, nb, oq / nq, ob / nb,
        (oe + ne > 0 ? "  (errors: ours " oe ", nginx " ne ")" : "") }'
    python3 bench/result.py --runner "assetpack serve $label" req_s="$oq" mb_s="$ob" errors="$oe"
    python3 bench/result.py --runner "nginx $label" req_s="$nq" mb_s="$nb" errors="$ne"
    python3 bench/result.py "MB/s assetpack serve / nginx $label=$(python3 -c "print(round($ob / $nb, 4))")"
  done
done
python3 bench/result.py size_mib="$((packs * pack_mib))"
