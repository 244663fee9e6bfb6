#!/usr/bin/env bash
# Transport benchmark: GET of one large file (default 1 GiB) from nginx on loopback into a file,
# through AssetPackTransport (`assetpack fetch`, libcurl with our callbacks writing to a file
# descriptor) against the curl CLI (`curl -s -o FILE URL`, the same libcurl writing with stdio).
# Alternates the two, ROUNDS rounds (default 3), and prints the median wall-time ratio ours/curl
# (below 1.0 means faster than curl). Environment: SIZE_MIB, ROUNDS; ASSETPACK=path/to/assetpack
# runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${SIZE_MIB:-1024}
rounds=${ROUNDS:-3}
out=$PWD/bench/out/transport
mkdir -p "$out/www" "$out/nginx/tmp"

if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi

blob=$out/www/blob.bin
if [ ! -f "$blob" ] || [ "$(stat -c %s "$blob")" -ne $((size_mib << 20)) ]; then
  echo "writing ${size_mib} MiB test file"
  head -c "$((size_mib << 20))" /dev/urandom > "$blob"
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user=""; [ "$(id -u)" -eq 0 ] && user="user root root;"
cat > "$out/nginx/nginx.conf" <<CONF
$user
worker_processes 1;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $out/nginx/tmp; proxy_temp_path $out/nginx/tmp; fastcgi_temp_path $out/nginx/tmp;
    uwsgi_temp_path $out/nginx/tmp; scgi_temp_path $out/nginx/tmp;
    default_type application/octet-stream;
    sendfile on;
    server { listen 127.0.0.1:$port; root $out/www; }
}
CONF
timeout 1800 nginx -p "$out/nginx" -e "$out/nginx/error.log" -c "$out/nginx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; rm -f "$out/ours.bin" "$out/curl.bin"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

url=http://127.0.0.1:$port/blob.bin
curl -s -o /dev/null "$url"   # warm the page cache with the source file

seconds() { local start end; start=$(date +%s%N); "$@"; end=$(date +%s%N); awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }'; }
ours=(); theirs=()
for round in $(seq "$rounds"); do
  rm -f "$out/ours.bin" "$out/curl.bin"
  if ((round % 2)); then
    t_ours=$(seconds "$bin" fetch "$url" -o "$out/ours.bin" 2>/dev/null)
    t_curl=$(seconds curl -s -o "$out/curl.bin" "$url")
  else
    t_curl=$(seconds curl -s -o "$out/curl.bin" "$url")
    t_ours=$(seconds "$bin" fetch "$url" -o "$out/ours.bin" 2>/dev/null)
  fi
  cmp -s "$out/ours.bin" "$blob" || { echo "round $round: downloaded bytes differ from the source" >&2; exit 1; }
  ours+=("$t_ours"); theirs+=("$t_curl")
  printf 'round %d: assetpack fetch %.3f s, curl %.3f s\n' "$round" "$t_ours" "$t_curl"
done

python3 - "$size_mib" "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
size = int(sys.argv[1])
ours = [float(x) for x in sys.argv[2].split()]
curl = [float(x) for x in sys.argv[3].split()]
mo, mc = statistics.median(ours), statistics.median(curl)
print(f"transport GET {size} MiB from nginx on loopback to a file, {len(ours)} rounds")
print(f"median wall: assetpack fetch {mo:.3f} s ({size / mo:.0f} MiB/s), curl {mc:.3f} s ({size / mc:.0f} MiB/s)")
print(f"ratio ours/curl: {mo / mc:.2f}x (target <= 1.10x)")
sys.path.insert(0, "bench")
import result
result.emit(runners={"assetpack fetch": {"wall_s": mo, "mb_s": round(size * 1.048576 / mo, 1)},
                     "curl": {"wall_s": mc, "mb_s": round(size * 1.048576 / mc, 1)}},
            figures={"time assetpack fetch / curl": round(mo / mc, 4)}, size_mib=size)
PY
