#!/usr/bin/env bash
# Updates at the patch floor: one installed version updated to the next, side by side in one run
# with casync (64 KiB chunks, the installed tree as --seed), zsync (v2.tar against v1.tar) and the
# floor, `zstd -19 --long --patch-from=v1.tar v2.tar` (only its size: no tool fetches less).
#
#   bench/update.sh [WORKLOAD=edits|model|both|memory] [MODEL_MIB=2047] [ROUNDS=1]
#   bench/update.sh files [FILES=100000] [ROUNDS=1]
#   bench/update.sh sealed [edits|model] [MODEL_MIB=2047]
#
# sealed: a workload (edits by default, or model at MODEL_MIB) published twice,
# unencrypted and sealed (`publish --encrypt`: every chunk frame, the index, every patch frame and
# the patch table AES-256-GCM), v1 installed from each, then each updated to v2: bytes fetched
# (nginx) and time, sealed ÷ unencrypted. The sealed update asks no key server (its key is cached
# with v1). Target: sealed update bytes ≤ 1.02× the unencrypted ones.
#
# edits: 300 scattered 16-byte record rewrites in a 64 MiB database-like file, 4 KiB inserted and
#        256 KiB rewritten in a 64 MiB model-like file, 20 small JSON files edited, one added, one
#        removed (bench/update-corpus.py). model: one MODEL_MIB model file with 1 % of its 4 KiB
#        pages rewritten. 2047 MiB by default: zstd refuses --patch-from for files over 2 GiB, so
#        the floor's v1.tar must stay below 2^31 bytes.
# Bytes fetched are nginx's $body_bytes_sent over every request of the update (catalog, indexes,
# patch tables, frames; casync's index and chunks; zsync's control file and ranges). Our update
# is `assetpack update` with v1 installed; its time is set against a fresh `assetpack ensure` of
# v2 into an empty root, its peak RSS is wait4's, and its writes are /proc/self/io's write_bytes
# of the reaped process (write amplification = bytes written ÷ bytes of the changed files).
# With ROUNDS above 1, our update and fresh install are measured that many times, alternating,
# and their medians compared. Targets: fetched ≤ 1.2× the floor and below casync and zsync;
# update time ≤ fresh install; peak RSS ≤ 256 MiB. ASSETPACK=path/to/assetpack runs that binary
# instead of building.
# files: FILES small JSON files (bench/corpus.py's small-files corpus) with 100 edited, 10 removed
#        and 10 added. Small files share chunks, so an edit also rewrites its chunk's neighbours;
#        the rest are linked from the installed version. Every tool starts with the page cache
#        emptied (as root), as on a device where the installed version was written long ago:
#        the update's cost then lies in what it must read of the installed version.
# memory: the model workload at MODEL_MIB (default 4096, past what zstd --patch-from and so the
# floor can take) for our update alone: its peak RSS while it applies patches to a file that size
# (target ≤ 256 MiB), bytes fetched and the tree checked against v2.
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:-both}; sealed_kind=edits
if [ "$workload" = sealed ] && { [ "${2:-}" = edits ] || [ "${2:-}" = model ]; }; then sealed_kind=$2; shift; fi
model_mib=${2:-$(case "${1:-}" in memory) echo 4096 ;; files) echo 100000 ;; *) echo 2047 ;; esac)}
rounds=${3:-1}
scripts/install-deps.sh
missing=(); for t in casync zsync; do command -v $t >/dev/null || missing+=("$t"); done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
source bench/nginx.sh
trap stop_nginx EXIT
# Not within 6 minutes of another benchmark's mass deletion (bench/deleted.sh). This script
# deletes few files itself (a workload's trees hold at most a few dozen), so it records none.
source bench/deleted.sh
wait_for_deleted_inodes

# Runs a command; prints "SECONDS MAXRSS_KIB WRITE_BYTES" of it (children included).
# `assetpack update` returns at its commit and a detached `assetpack delete-retired` frees the
# old version behind it; the untimed set-up of the next measurement waits until that is done.
retired_deleted() {
  while [ -n "$(ls -A "$1/retired" 2>/dev/null)" ]; do sleep 0.05; done
}

# The files workload empties the page cache before each measured command (root only).
cold() {
  if [ "$kind_measured" = files ] && [ -w /proc/sys/vm/drop_caches ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
}

measured() {
  cold
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
def io():
    return {k: int(v) for k, v in (l.split(': ') for l in open('/proc/self/io'))}
before = io()
start = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
elapsed = time.perf_counter() - start
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(f'command failed: {sys.argv[1:]}')
print(f'{elapsed:.3f} {usage.ru_maxrss} {io()["write_bytes"] - before["write_bytes"]}')
PY
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
served() { awk '{ s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG"; }
requests() { wc -l < "$NGINX_LOG"; }

kind_measured=""
run_workload() {
  local kind=$1 out=$PWD/bench/out/update-$1
  kind_measured=$kind
  echo "== workload $kind"
  # The content is kept between runs (it is deterministic); everything else starts afresh.
  if [ ! -f "$out/changed" ] || [ "$(cat "$out/size" 2>/dev/null)" != "$model_mib" ]; then
    rm -rf "$out"; mkdir -p "$out"
    python3 bench/update-corpus.py "$kind" "$out" "$model_mib" > "$out/changed"
    echo "$model_mib" > "$out/size"
  fi
  (cd "$out" && rm -rf site root fresh peers casync-out zsync-out.tar nginx-* key key.pub)
  changed=$(cat "$out/changed")
  local manifest='{"assetPackID": "Update", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}'
  for v in v1 v2; do echo "$manifest" > "$out/$v/Manifest.json"; done
  for v in v1 v2; do [ -f "$out/$v.tar" ] || tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$out/$v" -cf "$out/$v.tar" content; done

  # The floor.
  local level=19; [ "$kind" = model ] && level=9   # level 19 over 2 GiB takes too long on a shared 2-core machine
  [ "$kind" = files ] && [ ! -f "$out/floor.zst" ] && echo "  (the floor, zstd -19 over the whole tar, takes a few minutes)"
  [ -f "$out/floor.zst" ] || zstd -q -T0 -$level --long=31 --patch-from="$out/v1.tar" "$out/v2.tar" -o "$out/floor.zst" 2>/dev/null
  floor=$(stat -c %s "$out/floor.zst")

  # AssetPacks: publish v1 (its repository kept aside as repo-v1), then v2 with patches. Each
  # round installs v1 into an empty root (nginx serving repo-v1 through the link `current`),
  # updates it from the repository of v2, and installs v2 afresh beside; update and fresh install
  # alternate round by round, and the medians are compared.
  "$bin" keygen -o "$out/key" >/dev/null 2>&1
  mkdir -p "$out/site"
  (cd "$out/v1" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache >/dev/null)
  cp -a "$out/site/repo" "$out/site/repo-v1"
  local publish_start; publish_start=$(date +%s.%N)
  (cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache) | sed 's/^/  publish: /'
  publish_s=$(python3 -c "print(f'{$(date +%s.%N) - $publish_start:.1f}')")
  ln -sfn repo-v1 "$out/site/current"
  start_nginx "$out/site/current" "$out/nginx-ours"
  local url=http://127.0.0.1:$NGINX_PORT r updates=() freshes=()
  for ((r = 1; r <= rounds; r++)); do
    rm -rf "$out/root" "$out/fresh"
    ln -sfn repo-v1 "$out/site/current"
    "$bin" ensure Update --root "$out/root" --repo "$url" --public-key "$out/key.pub" >/dev/null
    retired_deleted "$out/root"
    ln -sfn repo "$out/site/current"
    sync; : > "$NGINX_LOG"
    read -r update_s update_rss update_written <<< "$(measured "$bin" update --root "$out/root")"
    retired_deleted "$out/root"
    ours=$(served); ours_requests=$(requests)
    diff -r "$out/v2/content" "$out/root/packs/Update/"*/content >/dev/null || { echo "FAIL: the updated tree differs from v2" >&2; exit 1; }
    sync; : > "$NGINX_LOG"
    read -r fresh_s fresh_rss _ <<< "$(measured "$bin" ensure Update --root "$out/fresh" --repo "$url" --public-key "$out/key.pub")"
    fresh_bytes=$(served)
    updates+=("$update_s"); freshes+=("$fresh_s")
    if ((rounds > 1)); then echo "  round $r: update $update_s s, fresh install $fresh_s s"; fi
  done
  update_s=$(median "${updates[@]}"); fresh_s=$(median "${freshes[@]}")
  stop_nginx

  # casync: v1 and v2 chunked into one store (64 KiB average); extract v2 with the v1 tree as seed.
  mkdir -p "$out/peers"
  casync make --chunk-size=65536 --store="$out/peers/store" "$out/peers/v2.caidx" "$out/v2/content" >/dev/null
  start_nginx "$out/peers" "$out/nginx-peers"
  url=http://127.0.0.1:$NGINX_PORT
  : > "$NGINX_LOG"
  read -r casync_s casync_rss _ <<< "$(measured casync extract --store="$url/store" --seed="$out/v1/content" "$url/v2.caidx" "$out/casync-out")"
  casync_bytes=$(served)
  diff -r "$out/v2/content" "$out/casync-out" >/dev/null || { echo "FAIL: casync's tree differs from v2" >&2; exit 1; }

  # zsync: v2.tar's control file; the client has v1.tar.
  cp "$out/v2.tar" "$out/peers/v2.tar"
  (cd "$out/peers" && zsyncmake -u "$url/v2.tar" -o v2.tar.zsync v2.tar >/dev/null 2>&1)
  : > "$NGINX_LOG"
  read -r zsync_s zsync_rss _ <<< "$(cd "$out" && measured zsync -q -i "$out/v1.tar" -o "$out/zsync-out.tar" "$url/v2.tar.zsync")"
  zsync_bytes=$(served)
  cmp -s "$out/v2.tar" "$out/zsync-out.tar" || { echo "FAIL: zsync's tar differs from v2.tar" >&2; exit 1; }
  stop_nginx

  python3 - "$kind" "$floor" "$ours" "$ours_requests" "$casync_bytes" "$zsync_bytes" "$update_s" "$fresh_s" "$update_rss" \
    "$update_written" "$changed" "$casync_s" "$zsync_s" "$fresh_bytes" "$publish_s" "$level" <<'PY'
import sys
kind = sys.argv[1]
floor, ours, reqs, casync, zsync = map(int, sys.argv[2:7])
update_s, fresh_s = float(sys.argv[7]), float(sys.argv[8])
rss, written, changed = int(sys.argv[9]), int(sys.argv[10]), int(sys.argv[11])
casync_s, zsync_s, fresh_bytes, publish_s, level = float(sys.argv[12]), float(sys.argv[13]), int(sys.argv[14]), sys.argv[15], sys.argv[16]
mb = lambda b: f'{b / 1e6:.3f} MB'
print(f'bytes fetched: assetpack {mb(ours)} in {reqs} requests; casync {mb(casync)}; zsync {mb(zsync)}; floor (zstd -{level} --long=31 --patch-from) {mb(floor)}; fresh install {mb(fresh_bytes)}')
print(f'ratios: assetpack/floor {ours / floor:.2f}x, assetpack/casync {ours / casync:.3f}x, assetpack/zsync {ours / zsync:.3f}x')
print(f'time: update {update_s:.2f} s, fresh install {fresh_s:.2f} s (update/fresh {update_s / fresh_s:.2f}x); casync {casync_s:.2f} s, zsync {zsync_s:.2f} s; publish of v2 with patches {publish_s} s')
print(f'update peak RSS {rss / 1024:.1f} MiB; bytes written {mb(written)} for {mb(changed)} of changed files: write amplification {written / changed:.2f}')
checks = [('fetched <= 1.2x floor', ours <= 1.2 * floor), ('below casync', ours < casync), ('below zsync', ours < zsync),
          ('update time <= fresh install', update_s <= fresh_s), ('peak RSS <= 256 MiB', rss <= 256 * 1024)]
print('targets: ' + ', '.join(f'{n} {"PASS" if ok else "FAIL"}' for n, ok in checks))
sys.path.insert(0, 'bench')
import result
result.emit(runners={'assetpack update': {'wall_s': update_s, 'bytes': ours, 'peak_rss_mib': round(rss / 1024, 1)},
                     'assetpack fresh install': {'wall_s': fresh_s, 'bytes': fresh_bytes},
                     'casync': {'wall_s': casync_s, 'bytes': casync}, 'zsync': {'wall_s': zsync_s, 'bytes': zsync},
                     'floor (zstd --patch-from)': {'bytes': floor}},
            figures={'bytes assetpack / floor': round(ours / floor, 4), 'bytes assetpack / casync': round(ours / casync, 4),
                     'bytes assetpack / zsync': round(ours / zsync, 4), 'time update / fresh install': round(update_s / fresh_s, 4),
                     'write amplification': round(written / changed, 4)}
                    | {'target ' + n: 'PASS' if ok else 'FAIL' for n, ok in checks})
PY
  python3 bench/result.py size_mib="$(( $(du -sb "$out/v2/content" | cut -f1) >> 20 ))"
}

# Our update alone on a model file too large for the floor and the peers (see above).
run_memory() {
  local out=$PWD/bench/out/update-memory
  echo "== workload memory ($model_mib MiB model file)"
  if [ ! -f "$out/changed" ] || [ "$(cat "$out/size" 2>/dev/null)" != "$model_mib" ]; then
    rm -rf "$out"; mkdir -p "$out"
    python3 bench/update-corpus.py model "$out" "$model_mib" > "$out/changed"
    echo "$model_mib" > "$out/size"
  fi
  (cd "$out" && rm -rf site root nginx-* key key.pub)
  local manifest='{"assetPackID": "Update", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}'
  for v in v1 v2; do echo "$manifest" > "$out/$v/Manifest.json"; done
  "$bin" keygen -o "$out/key" >/dev/null 2>&1
  mkdir -p "$out/site"
  (cd "$out/v1" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache >/dev/null)
  start_nginx "$out/site/repo" "$out/nginx-ours"
  "$bin" ensure Update --root "$out/root" --repo "http://127.0.0.1:$NGINX_PORT" --public-key "$out/key.pub" >/dev/null
  (cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache) | sed 's/^/  publish: /'
  sync; : > "$NGINX_LOG"
  read -r update_s update_rss _ <<< "$(measured "$bin" update --root "$out/root")"
  retired_deleted "$out/root"
  local ours; ours=$(served)
  stop_nginx
  diff -r "$out/v2/content" "$out/root/packs/Update/"*/content >/dev/null || { echo "FAIL: the updated tree differs from v2" >&2; exit 1; }
  python3 -c "
rss = $update_rss / 1024
print(f'update of a $model_mib MiB file: {$ours / 1e6:.3f} MB fetched, {$update_s:.2f} s, peak RSS {rss:.1f} MiB; '
      f'target peak RSS <= 256 MiB {\"PASS\" if rss <= 256 else \"FAIL\"}; the tree equals v2')"
  python3 bench/result.py --runner "assetpack update" wall_s="$update_s" bytes="$ours" peak_rss_mib="$((update_rss / 1024))"
  python3 bench/result.py size_mib="$model_mib"
}

# A workload (edits or model), unencrypted and sealed side by side.
run_sealed() {
  local kind=$sealed_kind out=$PWD/bench/out/update-sealed-$sealed_kind
  echo "== workload sealed (the $kind workload$([ "$kind" = model ] && echo ", $model_mib MiB"), unencrypted and sealed)"
  if [ ! -f "$out/changed" ] || { [ "$kind" = model ] && [ "$(cat "$out/size" 2>/dev/null)" != "$model_mib" ]; }; then
    rm -rf "$out"; mkdir -p "$out"
    python3 bench/update-corpus.py "$kind" "$out" "$model_mib" > "$out/changed"
    echo "$model_mib" > "$out/size"
  fi
  (cd "$out" && rm -rf site root-* nginx-* key key.pub keys.json keyserver.*)
  local manifest='{"assetPackID": "Update", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}'
  for v in v1 v2; do echo "$manifest" > "$out/$v/Manifest.json"; done
  "$bin" keygen -o "$out/key" >/dev/null 2>&1
  mkdir -p "$out/site"
  (cd "$out/v1" && "$bin" publish Manifest.json --repo "$out/site/plain" --key "$out/key" --no-cache >/dev/null)
  (cd "$out/v1" && "$bin" publish Manifest.json --repo "$out/site/sealed" --key "$out/key" --no-cache --encrypt Update --key-store "$out/keys.json" >/dev/null)
  echo '{"format": "assetpack-grants", "version": 1, "tokens": {"bench": {"packs": ["Update"]}}}' > "$out/grants.json"
  "$bin" key-server --key-store "$out/keys.json" --grants "$out/grants.json" --port 0 > "$out/keyserver.out" 2> "$out/keyserver.log" &
  local keyserver_pid=$! keyserver=""
  for _ in $(seq 100); do grep -q '^Serving' "$out/keyserver.out" && break; sleep 0.1; done
  keyserver=$(sed -n 's/^Serving content keys at //p' "$out/keyserver.out")
  start_nginx "$out/site" "$out/nginx"
  local url=http://127.0.0.1:$NGINX_PORT
  "$bin" ensure Update --root "$out/root-plain" --repo "$url/plain" --public-key "$out/key.pub" >/dev/null
  "$bin" ensure Update --root "$out/root-sealed" --repo "$url/sealed" --public-key "$out/key.pub" --entitlement bench --key-server "$keyserver" >/dev/null
  (cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/plain" --key "$out/key" --no-cache) | sed 's/^/  publish plain: /'
  (cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/sealed" --key "$out/key" --no-cache --key-store "$out/keys.json") | sed 's/^/  publish sealed: /'
  sync; : > "$NGINX_LOG"
  read -r plain_s plain_rss _ <<< "$(measured "$bin" update --root "$out/root-plain")"
  retired_deleted "$out/root-plain"
  local plain; plain=$(served)
  sync; : > "$NGINX_LOG"
  read -r sealed_s sealed_rss _ <<< "$(measured "$bin" update --root "$out/root-sealed")"
  retired_deleted "$out/root-sealed"
  local sealed; sealed=$(served)
  stop_nginx
  kill "$keyserver_pid"
  diff -r "$out/v2/content" "$out/root-plain/packs/Update/"*/content >/dev/null || { echo "FAIL: the plain update differs from v2" >&2; exit 1; }
  diff -r "$out/v2/content" "$out/root-sealed/packs/Update/"*/content >/dev/null || { echo "FAIL: the sealed update differs from v2" >&2; exit 1; }
  python3 -c "
plain, sealed = $plain, $sealed
print(f'update bytes fetched: unencrypted {plain / 1e6:.3f} MB, sealed {sealed / 1e6:.3f} MB: sealed/unencrypted {sealed / plain:.4f}x '
      f'(target <= 1.02x {\"PASS\" if sealed <= 1.02 * plain else \"FAIL\"})')
print(f'update time: unencrypted {$plain_s:.2f} s, sealed {$sealed_s:.2f} s ({$sealed_s / $plain_s:.2f}x); peak RSS {$plain_rss / 1024:.1f} / {$sealed_rss / 1024:.1f} MiB')
print('key server requests during the updates: ' + str(sum(1 for l in open('$out/keyserver.log') if ' GET /v1/keys/' in l) - 1) + ' (the key is cached with v1)')"
  python3 bench/result.py --runner "assetpack update" wall_s="$plain_s" bytes="$plain" peak_rss_mib="$((plain_rss / 1024))"
  python3 bench/result.py --runner "assetpack update, sealed" wall_s="$sealed_s" bytes="$sealed" peak_rss_mib="$((sealed_rss / 1024))"
  python3 bench/result.py size_mib="$(( $(du -sb "$out/v2/content" | cut -f1) >> 20 ))" \
    "bytes sealed / unencrypted=$(python3 -c "print(round($sealed / $plain, 5))")"
}

case $workload in
  sealed) run_sealed ;;
  edits|model|files) run_workload "$workload" ;;
  both) run_workload edits; run_workload model ;;
  memory) run_memory ;;
  *) echo "usage: bench/update.sh [edits|model|both|memory] [MODEL_MIB] [ROUNDS] | bench/update.sh files [FILES] [ROUNDS] | bench/update.sh sealed [edits|model] [MODEL_MIB]" >&2; exit 2 ;;
esac
