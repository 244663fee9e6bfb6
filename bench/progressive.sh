#!/usr/bin/env bash
# Progressive access benchmark: one file in the last third of a pack of ~2,000 files,
# read with `assetpack cat PATH --pack ID` from nginx throttled to a realistic link, against a
# full `assetpack ensure` of the pack over the same link. Prints, as medians over ROUNDS:
#   fresh        time to the file's bytes on a fresh root ÷ the full ensure      (target <= 0.05)
#   downloading  the same while the agent downloads the pack (cat goes through it) (target <= 0.05)
#   bytes        pack bytes nginx sent for that read, less the index, ÷ the compressed bytes of
#                the chunks that hold the file (target <= 1.1; the index is printed beside it)
#   20 reads     a full download through the agent with 20 progressive reads (one after the
#                other) of files spread over the pack's last two thirds, from a quarter of the
#                way in, ÷ the same download without them (target <= 1.05); the download's own
#                end is timed, not the reads'. The reads fetch their files' chunks again (the
#                download under way has planned them), so the extra bytes are the 20 files'
#                share of the pack: ~1 % at 1 GiB and 2,000 files
# Every cat's output is compared with the source file, and the last installed tree with the corpus.
#
#   bench/progressive.sh [SIZE_MIB=1024] [FILES=2000] [RATE=5m] [ROUNDS=3]
#
# RATE is nginx's limit_rate per response. The client downloads a pack of 32 MiB or more in 4
# parts over 4 connections, so the link is 4 × RATE (5m: 20 MB/s) for the download, and a
# progressive read gets one more connection at RATE (about its fair share of such a link).
# Times are wall times of the commands, process start and the catalog fetch included.
# ASSETPACK=path/to/assetpack runs that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}; files=${2:-2000}; rate=${3:-5m}; rounds=${4:-3}
scripts/install-deps.sh >/dev/null
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/progressive; corpus=$PWD/bench/out/corpus-progressive-$size-$files
[ -f "$corpus/Manifest.json" ] || python3 bench/progressive.py corpus "$corpus" "$size" "$files"
rm -rf "$out"; mkdir -p "$out/repo"
"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$corpus" && "$bin" publish Manifest.json --repo "$out/repo" --key "$out/key" >/dev/null)
pack=$(cd "$out/repo" && ls packs/Progressive/*.pack)
id=Progressive

source bench/nginx.sh
agent_pid=""
stop_agent() { [ -z "$agent_pid" ] || { kill -TERM "$agent_pid" 2>/dev/null || true; wait "$agent_pid" 2>/dev/null || true; }; agent_pid=""; }
trap 'stop_agent; stop_nginx' EXIT
start_nginx "$out/repo" "$out/nginx" "$rate"
url=http://127.0.0.1:$NGINX_PORT
cat "$out/repo/$pack" > /dev/null   # the source in the page cache

mapfile -t paths < <(python3 bench/progressive.py paths "$corpus")
n=${#paths[@]}
target=${paths[$((n * 5 / 6))]}   # in the last third of the content stream
read -r target_chunks index_length < <(python3 bench/progressive.py chunks "$out/repo/$pack" "$corpus" "$target")
echo "pack $(stat -c %s "$out/repo/$pack") B, $n files; nginx limit_rate $rate per response; $(nproc) cores"
echo "target $target: $(stat -c %s "$corpus/content/$target") B, its chunks $target_chunks B compressed; index $index_length B"

now() { date +%s.%N; }
packbytes() { awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG"; }
fresh_root() { rm -rf "$1"; "$bin" status --root "$1" --repo "$url/" --public-key "$out/key.pub" >/dev/null; }
start_agent() {
  "$bin" agent --root "$1" 2>> "$out/agent.log" & agent_pid=$!
  for _ in $(seq 1 500); do curl -sf --unix-socket "$1/agent.sock" http://agent/v1/status >/dev/null 2>&1 && return 0; sleep 0.01; done
  echo "error: the agent did not start" >&2; exit 1
}
check() { cmp -s "$1" "$corpus/content/$2" || { echo "error: cat $2 gave other bytes" >&2; exit 1; }; }

declare -a r_fresh r_dl r_bytes r_twenty
for round in $(seq 1 "$rounds"); do
  # Full ensure on a fresh root (in process).
  fresh_root "$out/full"; sync
  t0=$(now); "$bin" ensure $id --root "$out/full" > /dev/null; t_full=$(echo "$(now) - $t0" | bc)

  # One file on a fresh root: nothing downloads.
  fresh_root "$out/fresh"; sync
  before=$(packbytes)
  t0=$(now); "$bin" cat "$target" --pack $id --root "$out/fresh" > "$out/cat.out"; t_cat=$(echo "$(now) - $t0" | bc)
  sleep 0.2; after=$(packbytes)
  check "$out/cat.out" "$target"
  read_bytes=$((after - before - index_length))

  # The same while the agent downloads the pack.
  fresh_root "$out/dl"; start_agent "$out/dl"
  "$bin" ensure $id --root "$out/dl" --detach > /dev/null
  sleep 2
  t0=$(now); "$bin" cat "$target" --pack $id --root "$out/dl" > "$out/cat.out"; t_cat_dl=$(echo "$(now) - $t0" | bc)
  check "$out/cat.out" "$target"
  stop_agent

  # A full download through the agent, alone and with 20 progressive reads in the middle.
  fresh_root "$out/plain"; start_agent "$out/plain"; sync
  t0=$(now); "$bin" ensure $id --root "$out/plain" > /dev/null; t_plain=$(echo "$(now) - $t0" | bc)
  stop_agent
  fresh_root "$out/twenty"; start_agent "$out/twenty"; sync
  rm -f "$out/ensure.end"
  t0=$(now); { "$bin" ensure $id --root "$out/twenty" > /dev/null && now > "$out/ensure.end"; } & ensure_pid=$!
  sleep "$(echo "$t_plain / 4" | bc -l)"
  for k in $(seq 0 19); do
    p=${paths[$((n / 3 + k * (n * 2 / 3) / 20))]}
    "$bin" cat "$p" --pack $id --root "$out/twenty" > "$out/cat.out"
    check "$out/cat.out" "$p"
  done
  wait "$ensure_pid"; t_twenty=$(echo "$(cat "$out/ensure.end") - $t0" | bc)
  stop_agent

  r_fresh+=("$(echo "$t_cat / $t_full" | bc -l)"); r_dl+=("$(echo "$t_cat_dl / $t_full" | bc -l)")
  r_bytes+=("$(echo "$read_bytes / $target_chunks" | bc -l)"); r_twenty+=("$(echo "$t_twenty / $t_plain" | bc -l)")
  a_full+=("$t_full"); a_cat+=("$t_cat")
  printf 'round %d: ensure %.2f s; cat fresh %.3f s, while downloading %.3f s; read %d pack bytes (+ index %d); through the agent %.2f s alone, %.2f s with 20 reads\n' \
    "$round" "$t_full" "$t_cat" "$t_cat_dl" "$read_bytes" "$index_length" "$t_plain" "$t_twenty"
done

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf 'fresh:       %.4f (target <= 0.05)\n' "$(median "${r_fresh[@]}")"
printf 'downloading: %.4f (target <= 0.05)\n' "$(median "${r_dl[@]}")"
printf 'bytes:       %.3fx the file'"'"'s compressed chunks, plus the %d-byte index (target <= 1.1)\n' "$(median "${r_bytes[@]}")" "$index_length"
printf '20 reads:    %.3f (target <= 1.05)\n' "$(median "${r_twenty[@]}")"
python3 bench/result.py --runner "assetpack ensure (whole pack)" wall_s="$(median "${a_full[@]}")"
python3 bench/result.py --runner "assetpack cat (one file)" wall_s="$(median "${a_cat[@]}")"
python3 bench/result.py size_mib="$size" "fresh cat / ensure=$(median "${r_fresh[@]}")" "downloading cat / ensure=$(median "${r_dl[@]}")" \
  "bytes / file's chunks=$(median "${r_bytes[@]}")" "20 reads / none=$(median "${r_twenty[@]}")" index_bytes="$index_length"
installed=$(echo "$out"/twenty/packs/$id/*/)
diff -r "$corpus/content" "$installed" > /dev/null && echo "verify: the installed tree equals the corpus"
