#!/usr/bin/env bash
# Client install benchmark: a fresh `assetpack ensure` of the ~1 GiB benchmark pack from nginx on
# loopback against `curl -s URL | zstd -d | tar -x` of the same content as .tar.zst, both into
# fresh folders on the same disk, alternating, several rounds. Prints the median wall-time ratio
# (target <= 1.0x) and our peak RSS (target <= 128 MiB), then checks the installed tree against
# the corpus.
#
#   bench/install.sh [ROUNDS=3] [SIZE_MIB=1024|small|small300|packs] [sealed]
#
# `sealed` times, instead of the peers, the same install of the pack published sealed
# (`publish --encrypt`, every chunk frame AES-256-GCM) against the unencrypted one, alternating:
# both from nginx, the sealed one also asking `assetpack key-server` on loopback for its key
# (a fresh root each round, so every sealed install asks). Target: sealed ≤ 1.05× unencrypted.
#
# SIZE `small` installs the small-files corpus instead (one pack of 100,000 JSON files, ~80 MB),
# `small300` the one of 300,000 files (~240 MB); `packs` the 100,000 files as 100 packs of 1,000
# (`assetpack ensure` of all 100 against the one .tar.zst). After the rounds these three time the
# namespace, process start included: `assetpack ls` of every path against `find -type f` over
# the installed tree (target: no slower) and `assetpack cat PATH` against `cat` of the installed
# file (target: milliseconds); for `packs` also `assetpack status` (the catalog from nginx)
# against `curl` of catalog.json (target: each under 100 ms).
#
# ASSETPACK=path/to/assetpack runs that binary instead of building (to compare two builds).
#
# Conditions, all untimed and the same for every runner (the benchmark VM is noisy):
# - before each run the runner's previous output is moved aside, `sync` flushes dirty pages, so
#   that no tool pays for another's writeback, and the moved outputs leave the page cache
#   (bench/evict.py), so that memory does not fill up from round to round;
# - then the disk rests 5 s: the VM's disk writes ~1.5 GB/s in bursts of ~2 GB, then ~350 MB/s;
# - then 4 GiB of memory are touched through /dev/shm and freed: on the VM, memory the guest
#   has not used for a few seconds goes back to the host and costs ~2 s per GB to touch again,
#   which would charge each tool for its page cache in a way no device does;
# - outputs are deleted only at the end, and a new run waits until 6 minutes have passed since:
#   ext4 without a journal (as on the VM) skips inodes freed in the last 1-6 minutes when it
#   allocates new ones, so deleting ~12,000 files makes creating the next ~12,000 much slower.
# - every runner runs once, untimed, before the rounds (measure.py --warmup): whichever runs
#   first after the script's set-up is 0.2-0.7 s slower, and in round 1 that is ours.
# The served pack and .tar.zst are read once beforehand and stay in the page cache for all.
# `assetpack ensure` leaves the files to the kernel's writeback, as tar does (a crash of the
# system before it is found at the next start: docs/CLIENT.md, "Durability"); the durable pair
# is measured too, for information: `ensure --flush`, which flushes before it commits, against
# `tar+zstd+sync`, the same pipeline followed by `sync`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; size=${2:-1024}; variant=${3:-}
[ -z "$variant" ] || [ "$variant" = sealed ] || { echo "usage: bench/install.sh [ROUNDS] [SIZE_MIB|small|small300|packs] [sealed]" >&2; exit 2; }
[ "$variant" != sealed ] || [ "$size" != packs ] || { echo "sealed takes one pack: SIZE_MIB, small or small300" >&2; exit 2; }
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/install; corpus=$PWD/bench/out/corpus-$size
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"

source bench/deleted.sh
wait_for_deleted_inodes

# Repository: one pack (or the 100 of `packs`), signed with a fresh key, and the peer's .tar.zst beside it.
rm -rf "$out"; mkdir -p "$out/repo" "$out/dst" "$out/old"
"$bin" keygen -o "$out/key" >/dev/null 2>&1
if [ "$size" = packs ]; then
  (cd "$corpus" && "$bin" publish pack*.json --repo "$out/repo" --key "$out/key" >/dev/null)
  ids=$(cd "$corpus" && ls pack*.json | sed 's/\.json$//' | tr '\n' ' ')
else
  (cd "$corpus" && "$bin" publish Manifest.json --repo "$out/repo" --key "$out/key" >/dev/null)
  ids=bench-corpus
fi
(cd "$corpus" && tar -cf - content | zstd -q -3 -T0 -o "$out/repo/bench.tar.zst")
if [ "$variant" = sealed ]; then
  # The same pack sealed, in a repository served beside the plain one (/sealed/), its key in a
  # key store outside both and handed out by a key server on loopback for the token "bench".
  rm -f "$out/keys.json"
  (cd "$corpus" && "$bin" publish Manifest.json --repo "$out/repo/sealed" --key "$out/key" --encrypt bench-corpus --key-store "$out/keys.json" >/dev/null)
  echo '{"format": "assetpack-grants", "version": 1, "tokens": {"bench": {"packs": ["bench-corpus"]}}}' > "$out/grants.json"
  "$bin" key-server --key-store "$out/keys.json" --grants "$out/grants.json" --port 0 --rate-limit 1000 > "$out/keyserver.out" 2> "$out/keyserver.log" &
  keyserver_pid=$!
  for _ in $(seq 100); do grep -q '^Serving' "$out/keyserver.out" && break; sleep 0.1; done
  keyserver=$(sed -n 's/^Serving content keys at //p' "$out/keyserver.out")
  [ -n "$keyserver" ] || { echo "the key server did not start: $(cat "$out/keyserver.log")" >&2; exit 1; }
fi

source bench/nginx.sh
trap 'stop_nginx; [ -z "${keyserver_pid:-}" ] || kill "$keyserver_pid"; rm -rf "$out/old" "$out/dst"; record_deletion' EXIT
start_nginx "$out/repo" "$out/nginx"
url=http://127.0.0.1:$NGINX_PORT
packs=$(find "$out/repo/packs" -name '*.pack' | sort)
packbytes=$(cat $packs | wc -c)
cat $packs "$out/repo/bench.tar.zst" > /dev/null   # both sources in the page cache

echo "corpus: $(du -sh "$corpus/content" | cut -f1), $(find "$corpus/content" -type f | wc -l) files;" \
     "pack(s) $packbytes B, tar.zst $(stat -c %s "$out/repo/bench.tar.zst") B; $(nproc) cores"
warm=/dev/shm/assetpack-bench-warm
# Moved-aside outputs stay (see above) while the disk has room for 3 more installs of the content;
# past that they go, so that 8 GiB runs (3 runners × rounds × the content) fit on the disk.
room=0; [[ $size =~ ^[0-9]+$ ]] && room=$((3 * size))
aside="[ \$(df -BM --output=avail '$out' | tail -1 | tr -dc 0-9) -gt $room ] || rm -rf '$out/old/'*"
if [ "$variant" = sealed ]; then
  sealedbytes=$(cat "$out"/repo/sealed/packs/*/*.pack | wc -c)
  echo "sealed pack $sealedbytes B ($(python3 -c "print(f'{$sealedbytes / $packbytes:.5f}')")x the plain pack's bytes)"
  python3 bench/measure.py --setup "[ ! -e '$out/dst/'\$1 ] || mv '$out/dst/'\$1 '$out/old/'\$1.\$(date +%s%N); sync; $aside;
    python3 bench/evict.py '$out/old'; sleep 5; head -c 4G /dev/zero > $warm 2>/dev/null; rm -f $warm" --warmup "$rounds" \
    assetpack-sealed "'$bin' ensure $ids --root '$out/dst/assetpack-sealed' --repo $url/sealed --public-key '$out/key.pub' --entitlement bench --key-server $keyserver --json > '$out/ensure-sealed.log'" \
    assetpack "'$bin' ensure $ids --root '$out/dst/assetpack' --repo $url --public-key '$out/key.pub' --json > '$out/ensure.log'"
  diff -r "$corpus/content" "$(echo "$out"/dst/assetpack-sealed/packs/bench-corpus/*/)content" \
    && diff -r "$corpus/content" "$(echo "$out"/dst/assetpack/packs/bench-corpus/*/)content" && echo "verify: both installed trees equal the corpus"
  echo "key server decisions: $(grep -c ' 200 granted' "$out/keyserver.log") granted, $(grep -vc ' 200 granted' "$out/keyserver.log") other"
  python3 bench/result.py size_mib="$(($(du -sb "$corpus/content" | cut -f1) >> 20))" \
    "bytes assetpack-sealed / assetpack=$(python3 -c "print(round($sealedbytes / $packbytes, 5))")"
  python3 bench/result.py --runner assetpack-sealed bytes="$sealedbytes"
  python3 bench/result.py --runner assetpack bytes="$packbytes"
  exit 0
fi
python3 bench/measure.py --setup "[ ! -e '$out/dst/'\$1 ] || mv '$out/dst/'\$1 '$out/old/'\$1.\$(date +%s%N); sync; $aside;
  python3 bench/evict.py '$out/old'; sleep 5; head -c 4G /dev/zero > $warm 2>/dev/null; rm -f $warm" --warmup "$rounds" \
  assetpack "'$bin' ensure $ids --root '$out/dst/assetpack' --repo $url --public-key '$out/key.pub' --json > '$out/ensure.log'" \
  tar+zstd "mkdir -p '$out/dst/tar+zstd' && curl -s $url/bench.tar.zst | zstd -q -d | tar -x -C '$out/dst/tar+zstd'" \
  assetpack-flush "'$bin' ensure $ids --root '$out/dst/assetpack-flush' --repo $url --public-key '$out/key.pub' --flush --json > '$out/ensure-flush.log'" \
  tar+zstd+sync "mkdir -p '$out/dst/tar+zstd+sync' && curl -s $url/bench.tar.zst | zstd -q -d | tar -x -C '$out/dst/tar+zstd+sync' && sync" \
  | tee "$out/measure.out"
# The durable install against the durable pipeline (measure.py puts the first runner against each other).
python3 - "$out/measure.out" <<'PY'
import json, subprocess, sys
line = [l for l in open(sys.argv[1]) if l.startswith('@result ')][-1]
runners = json.loads(line[len('@result '):])['runners']
ratio = round(runners["assetpack-flush"]['wall_s'] / runners['tar+zstd+sync']['wall_s'], 4)
print(f'ratio assetpack-flush / tar+zstd+sync: {ratio:.2f}x')
subprocess.run(['python3', 'bench/result.py', f'time assetpack-flush / tar+zstd+sync={ratio}'], check=True)
PY

# The last installed tree must equal the corpus (and so must the peer's).
if [ "$size" = packs ]; then
  merged=$out/merged; rm -rf "$merged"; mkdir -p "$merged/content"
  for p in "$out"/dst/assetpack/packs/*/*/content/*; do ln -s "$p" "$merged/content/"; done
  installed=$merged/
else
  installed=$(echo "$out"/dst/assetpack/packs/bench-corpus/*/)
fi
diff -r "$corpus/content" "$installed/content" && diff -r "$corpus/content" "$out/dst/tar+zstd/content" \
  && { [ "$size" = packs ] || diff -r "$corpus/content" "$(echo "$out"/dst/assetpack-flush/packs/bench-corpus/*/)content"; } \
  && echo "verify: installed tree equals the corpus"
fetched=$(awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")
runs=$(grep -c '/catalog.json ' "$NGINX_LOG")
echo "pack bytes served per install: $((fetched / runs)) B ($packbytes B of pack files)"
python3 bench/result.py --runner assetpack bytes="$((fetched / runs))"
python3 bench/result.py --runner tar+zstd bytes="$(stat -c %s "$out/repo/bench.tar.zst")"
python3 bench/result.py size_mib="$(($(du -sb "$corpus/content" | cut -f1) >> 20))" files="$(find "$corpus/content" -type f | wc -l)"
# The namespace: each command 20 times, alternating with its peer, process start included.
root=$out/dst/assetpack; tree=$root/packs
case "$size" in
  packs) file=content/p42/dialogue/dialogu-04/49/dialogu-12485.json; installedfile=$(echo "$tree"/pack42/*/"$file") ;;
  small|small300) file=content/dialogue/dialogu-04/49/dialogu-12485.json; installedfile=$(echo "$tree"/bench-corpus/*/"$file") ;;
  *) exit 0 ;;
esac
echo "namespace: $("$bin" ls --root "$root" | wc -l) paths in $(ls "$root/packs" | wc -l) pack(s)"
python3 bench/measure.py 20 \
  "assetpack ls" "'$bin' ls --root '$root' > /dev/null" \
  "find -type f" "find '$tree' -type f > /dev/null"
python3 bench/measure.py 20 \
  "assetpack cat" "'$bin' cat '$file' --root '$root' > /dev/null" \
  "cat" "cat '$installedfile' > /dev/null"
if [ "$size" = packs ]; then
  python3 bench/measure.py 20 \
    "assetpack status" "'$bin' status --root '$root' > /dev/null" \
    "curl catalog" "curl -s $url/catalog.json > /dev/null"
fi
