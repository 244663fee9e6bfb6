#!/usr/bin/env bash
# Large packs: whether every step's cost grows linearly with the pack and its memory stays flat.
# For each size, on the corpus of bench/corpus.py at that size (made once, then reused), times
# with bench/measure.py (wall, CPU, peak RSS, and the disk taken at peak, from the file system's
# free space sampled every 50 ms):
#   package   `assetpack package` of the corpus into a pack file
#   publish   `assetpack publish` into a fresh repository (no publish cache)
#   install   `assetpack ensure` of the pack into a fresh root, from nginx on loopback
#   update    `assetpack update` of that root after a small change was published as a new
#             version (a line appended to one text file, 4 KiB rewritten in one JSON file and in
#             the middle of the model-like file, one small file rewritten); untimed around it:
#             the publish of the new version (its time is printed, and recorded as `publish v2`)
#   verify    `assetpack verify` of the installed version's pack file (every hash)
# then prints each step's wall time per GiB of content and, for every size after the first, the
# ratio of its time per GiB to the first size's (target ≤ 1.1×: linear), the same ratio of its CPU
# time and of the user-space part of it (the rest is the kernel's, whose copies through the page
# cache grow dearer per byte as the cache grows on a virtual machine whose memory the host takes
# back: large files leave the cache behind each step, DropBehind in docs/ARCHITECTURE.md), and
# the largest peak RSS (target ≤ 128 MiB whatever the size), as `@result` lines: each size's figures as a point of the
# sweep (BENCH_POINT, bench/result.py), the ratios as the run's own figures.
# On a small-files corpus the peers take the same two steps on the same files, so that the growth
# of a step's time per file can be told from the kernel's, which every tool pays:
#   tar+zstd  `tar -cf - content | zstd -3 -T0` of the corpus into a file (the peer of package)
#   tar -x    `curl | zstd -d | tar -x` of that file from the same nginx into a fresh folder (the
#             peer of install)
# Their ratios are printed and recorded beside ours; the targets count our steps only.
#
#   bench/large.sh [--rounds N] [--cold] SIZE...        e.g. bench/large.sh --cold 1024 8192
#
# A SIZE is a number of MiB (the corpus of bench/corpus.py at that size: large files, 11,400 files a
# GiB), or `small`, `small300` or `small1m`: the small-files corpora of 100,000, 300,000 and
# 1,000,000 files of about 850 bytes (bench/corpus.py), where the cost that grows is the number of
# files. Such a size's point is its content in MiB (80, 242 and 808), so that time per GiB is also
# time per file, and the update rewrites two of its files and appends to two.
#
# --cold empties the page cache before every timed round (it needs root: /proc/sys/vm/drop_caches),
# so that each size reads its input from the disk: without it a 1 GiB corpus, pack or installed
# tree is still in the page cache when the next step reads it and an 8 GiB one is not, and the
# ratio of their times per GiB measures the cache rather than the step. The server's side is the
# exception: nginx runs on this machine, and its pack files are read into the page cache before
# each install round (as a serving origin's or edge's working set is), so that the round measures
# the client, not nginx's disk reads and the kernel's first touches of nginx's cache pages.
#
# Each size's installed root stays until every size has run (see wait_for_deleted_inodes below).
# Rounds (default 1) apply to package, publish, install and verify; update runs once a size (it
# needs the previous version installed). The corpus's files edited for the update are restored
# afterwards (also when the script stops early). Outputs of a size (pack, repository, installed
# root) are deleted before the next size, so the disk holds at most one size's at once: about
# 3.1× the content besides the corpus (see docs/BENCHMARKS.md, "large packs"); a size that does
# not fit in the free space is skipped with what it needs (the others run; exit 3 at the end).
# ASSETPACK=path/to/assetpack runs that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=1; sizes=(); cold=""
while (($#)); do
  case "$1" in
    --rounds) rounds=${2:-}; shift 2 ;;
    --cold) cold="; sync; echo 3 > /proc/sys/vm/drop_caches"; shift ;;
    *) sizes+=("$1"); shift ;;
  esac
done
usage="usage: bench/large.sh [--rounds N] [--cold] SIZE... (SIZE: MiB, or small, small300, small1m; e.g. 1024 8192)"
((${#sizes[@]})) || { echo "$usage" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/large.sh: --rounds must be a positive number, not '$rounds'" >&2; exit 2; }
if [ -n "$cold" ] && ! { sync && echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
  echo "bench/large.sh: --cold empties the page cache through /proc/sys/vm/drop_caches, which only root can write (run it as root, or without --cold)" >&2; exit 2
fi
for s in "${sizes[@]}"; do [[ $s =~ ^([1-9][0-9]*|small|small300|small1m)$ ]] || { echo "bench/large.sh: a size is a number of MiB or small, small300 or small1m, not '$s'; $usage" >&2; exit 2; }; done
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
root_dir=$PWD; out=$PWD/bench/out/large
mkdir -p "$out"
source bench/nginx.sh
# ext4 here skips inodes freed in the last minutes when it allocates (bench/deleted.sh): the
# installed trees (many files) are deleted only at the end, and a run starts 6 minutes after the
# last benchmark's mass deletion.
source bench/deleted.sh
wait_for_deleted_inodes
edits=""   # the backup folder of the corpus files edited for the update, while they are edited
restore() { [ -z "$edits" ] || python3 "$root_dir/bench/large-edit.py" restore "$edits"; edits=""; }
trap 'stop_nginx 2>/dev/null || true; restore' EXIT
: > "$out/points.jsonl"
skipped=0
points=()   # each size's point: its MiB, or a small-files corpus's content in MiB

echo "$(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); page cache emptied before each round: $([ -n "$cold" ] && echo yes || echo no)"
python3 bench/result.py "cold page cache=$([ -n "$cold" ] && echo yes || echo no)"
for size in "${sizes[@]}"; do
  corpus=$root_dir/bench/out/corpus-$size
  # The disk a size needs at once (docs/BENCHMARKS.md, "large packs"): the corpus unless it is
  # there, the repository's two versions (2 × 0.8 × the content), the installed tree and, during
  # the update, its rewritten files (the model-like file, half the content), and 2 GiB to spare.
  # A small-files corpus takes a 4 KiB block a file (about 400, 1,200 and 4,000 MiB): the corpus,
  # its installed tree, the peers' extracted tree, and 2 GiB to spare (the pack is a fifth of the
  # content).
  case "$size" in
    small) blocks=400 ;; small300) blocks=1200 ;; small1m) blocks=4000 ;; *) blocks="" ;;
  esac
  if [ -n "$blocks" ]; then need=$(( $( [ -f "$corpus/Manifest.json" ] && echo 0 || echo "$blocks" ) + 2 * blocks + 2048 ))
  else need=$(( $( [ -f "$corpus/Manifest.json" ] && echo 0 || echo "$size" ) + size * 31 / 10 + 2048 )); fi
  free=$(df -BM --output=avail "$out" | tail -1 | tr -dc 0-9)
  if ((free < need)); then
    echo "bench/large.sh: skipping $size$([ -n "$blocks" ] || echo " MiB"): it needs about $need MiB free on $(df --output=target "$out" | tail -1) ($([ -n "$blocks" ] && echo "corpus, installed tree and the peers' tree, a block a file" || echo "corpus, two published versions, the installed tree and the update's rewritten files")); $free MiB are free" >&2
    python3 bench/result.py "skipped $size$([ -n "$blocks" ] || echo " MiB")=needs $need MiB free, $free MiB free"
    skipped=$((skipped + 1)); continue
  fi
  [ -f "$corpus/Manifest.json" ] || nice python3 bench/corpus.py "$corpus" "$size"
  work=$out/$size
  python3 bench/large-edit.py restore "$out/edits-$size"   # left edited by a run that was killed
  if [ -d "$work" ]; then rm -rf "$work"; record_deletion; fi   # left by a run that stopped early
  mkdir -p "$work/old"
  content_bytes=$(du -sb "$corpus/content" | cut -f1)
  files=$(find "$corpus/content" -type f | wc -l)
  point=$([ -n "$blocks" ] && echo $((content_bytes >> 20)) || echo "$size")
  points+=("$point")
  echo "== $size$([ -n "$blocks" ] || echo " MiB"): $content_bytes B of content in $files files; load average $(cut -d' ' -f1-3 /proc/loadavg); free $(df -BM --output=avail "$out" | tail -1)"
  export BENCH_POINT=$point
  python3 bench/result.py "load average at start=$(cut -d' ' -f1 /proc/loadavg)"
  "$bin" keygen -o "$work/key" >/dev/null 2>&1
  step() {   # NAME ROUNDS SETUP COMMAND [WARM]: measures COMMAND, its @result line also into points.jsonl
    # (WARM runs after the page cache was emptied, untimed)
    local name=$1 n=$2 setup=$3 command=$4 warm=${5:-}
    echo "-- $name"
    python3 bench/measure.py --setup "$setup$cold${warm:+; $warm}" --disk "$work" "$n" "$name" "$command" | tee "$work/$name.out"
    grep '^@result ' "$work/$name.out" | sed "s/^@result //" >> "$out/points.jsonl"
  }

  step package "$rounds" "rm -f '$work/package.pack'; sync" \
    "cd '$corpus' && '$bin' package Manifest.json -o '$work/package.pack' >/dev/null"
  python3 bench/result.py --runner package bytes="$(stat -c %s "$work/package.pack")" | tee -a "$work/package.out"
  rm -f "$work/package.pack"

  step publish "$rounds" "rm -rf '$work/repo' '$work/cache.json'; sync" \
    "cd '$corpus' && '$bin' publish Manifest.json --repo '$work/repo' --key '$work/key' --cache '$work/cache.json' --no-cache >/dev/null"
  python3 bench/result.py --runner publish bytes="$(du -sb "$work/repo" | cut -f1)"

  if [ -n "$blocks" ]; then   # the peer of package; its file is served beside the repository's
    step tar+zstd "$rounds" "rm -f '$work/repo/peer.tar.zst'; sync" \
      "cd '$corpus' && tar -cf - content | zstd -q -3 -T0 -f -o '$work/repo/peer.tar.zst'"
    python3 bench/result.py --runner tar+zstd bytes="$(stat -c %s "$work/repo/peer.tar.zst")"
  fi

  start_nginx "$work/repo" "$work/nginx"
  url=http://127.0.0.1:$NGINX_PORT
  step install "$rounds" "[ ! -e '$work/root' ] || mv '$work/root' '$work/old/root.'\$(date +%s%N); sync" \
    "'$bin' ensure bench-corpus --root '$work/root' --repo $url --public-key '$work/key.pub' >/dev/null" \
    "cat '$work'/repo/packs/*/*.pack > /dev/null"
  installed=$(echo "$work"/root/packs/bench-corpus/*/)
  diff -r "$corpus/content" "$installed/content" >/dev/null || { echo "FAIL: the installed tree differs from the corpus" >&2; exit 1; }
  echo "the installed tree equals the corpus"
  python3 bench/result.py --runner install bytes="$(awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")"
  if [ -n "$blocks" ]; then   # the peer of install; its trees stay until every size has run, as ours do
    step "tar -x" "$rounds" "[ ! -e '$work/peer' ] || mv '$work/peer' '$work/old/peer.'\$(date +%s%N); mkdir '$work/peer'; sync" \
      "curl -sf $url/peer.tar.zst | zstd -q -d | tar -x -C '$work/peer'" \
      "cat '$work/repo/peer.tar.zst' > /dev/null"
    diff -r "$corpus/content" "$work/peer/content" >/dev/null || { echo "FAIL: the peer's extracted tree differs from the corpus" >&2; exit 1; }
    rm -f "$work/repo/peer.tar.zst"
  fi

  # The next version: a few files of the corpus edited (restored below), published beside the first.
  edits=$out/edits-$size
  python3 bench/large-edit.py edit "$edits" "$corpus/content"
  publish_start=$(date +%s.%N)
  (cd "$corpus" && "$bin" publish Manifest.json --repo "$work/repo" --key "$work/key" --cache "$work/cache.json" >/dev/null)
  publish2_s=$(python3 -c "print(round($(date +%s.%N) - $publish_start, 3))")
  echo "publish of the new version: $publish2_s s"
  python3 bench/result.py --runner "publish v2" wall_s="$publish2_s"
  sync; : > "$NGINX_LOG"
  step update 1 "sync" "'$bin' update --root '$work/root' >/dev/null"
  while [ -n "$(ls -A "$work/root/retired" 2>/dev/null)" ]; do sleep 0.2; done   # the old version freed behind it
  installed=$(echo "$work"/root/packs/bench-corpus/*/)
  diff -r "$corpus/content" "$installed/content" >/dev/null || { echo "FAIL: the updated tree differs from the edited corpus" >&2; exit 1; }
  echo "the updated tree equals the edited corpus"
  python3 bench/result.py --runner update bytes="$(awk '{ s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")"
  restore
  stop_nginx

  pack=$(ls -t "$work"/repo/packs/bench-corpus/*.pack 2>/dev/null | head -1 || true)
  [ -n "$pack" ] || pack=$(find "$work/repo/packs" -name '*.pack' -newer "$work/key" -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
  step verify "$rounds" "true" "'$bin' verify '$pack' >/dev/null"
  python3 bench/result.py size_mib="$((content_bytes >> 20))" files="$files"
  unset BENCH_POINT
  rm -rf "$work/repo" "$work/old"
done
for size in "${sizes[@]}"; do rm -rf "${out:?}/$size"; done
record_deletion

# Per GiB, and each size against the first.
((${#points[@]})) || exit 3
python3 - "$out/points.jsonl" "${points[@]}" <<'PY'
import json, sys
sys.path.insert(0, 'bench')
import result
path, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
points = {}
for line in open(path):
    obj = json.loads(line)
    for name, figures in obj.get('runners', {}).items():
        points.setdefault(obj['point'], {}).setdefault(name, {}).update(figures)
steps = ['package', 'publish', 'install', 'update', 'verify']
first = sizes[0]
print(f"\n{'step':8}" + ''.join(f'{f"{s} MiB s/GiB":>16}' for s in sizes) + ''.join(f'{f"{s}/{first}":>12}' for s in sizes[1:]) + f"{'peak RSS MiB':>14}{'disk at peak / content':>24}" + ''.join(f'{f"CPU {s}/{first}":>14}' for s in sizes[1:]) + ''.join(f'{f"user {s}/{first}":>15}' for s in sizes[1:]))
figures, worst_rss, worst_ratio = {}, 0.0, 0.0
for step in steps:
    per = {s: points[s][step]['wall_s'] / (s / 1024) for s in sizes if step in points.get(s, {})}
    cpu = {s: points[s][step]['cpu_s'] / (s / 1024) for s in sizes if step in points.get(s, {})}
    user = {s: points[s][step]['user_s'] / (s / 1024) for s in sizes if 'user_s' in points.get(s, {}).get(step, {})}
    rss = max(points[s][step]['peak_rss_mib'] for s in sizes if step in points.get(s, {}))
    disk = {s: points[s][step].get('disk_peak_mib', 0) / s for s in sizes if step in points.get(s, {})}
    worst_rss = max(worst_rss, rss)
    ratios = {s: per[s] / per[first] for s in sizes[1:] if s in per and first in per and per[first] > 0}
    cpu_ratios = {s: cpu[s] / cpu[first] for s in sizes[1:] if s in cpu and first in cpu and cpu[first] > 0}
    user_ratios = {s: user[s] / user[first] for s in sizes[1:] if s in user and first in user and user[first] > 0}
    print(f'{step:8}' + ''.join(f'{per[s]:16.2f}' if s in per else f"{'-':>16}" for s in sizes)
          + ''.join(f'{ratios[s]:11.3f}x' if s in ratios else f"{'-':>12}" for s in sizes[1:])
          + f'{rss:14.1f}' + f"{' / '.join(f'{disk[s]:.2f}' for s in sizes if s in disk):>24}"
          + ''.join(f'{cpu_ratios[s]:13.3f}x' if s in cpu_ratios else f"{'-':>14}" for s in sizes[1:])
          + ''.join(f'{user_ratios[s]:14.3f}x' if s in user_ratios else f"{'-':>15}" for s in sizes[1:]))
    for s, r in ratios.items():
        figures[f'time per GiB {step} {s}/{first} MiB'] = round(r, 4)
        worst_ratio = max(worst_ratio, r)
    for s, r in cpu_ratios.items():
        figures[f'CPU per GiB {step} {s}/{first} MiB'] = round(r, 4)
    for s, r in user_ratios.items():
        figures[f'user CPU per GiB {step} {s}/{first} MiB'] = round(r, 4)
    figures[f'peak RSS MiB {step}'] = rss
# The peers (small-files sizes only): their growth beside ours, outside the targets.
for step, ours in (('tar+zstd', 'package'), ('tar -x', 'install')):
    got = [s for s in sizes if step in points.get(s, {})]
    if len(got) < 2:
        continue
    base = got[0]
    for kind, field in (('time', 'wall_s'), ('CPU', 'cpu_s'), ('user CPU', 'user_s')):
        for s in got[1:]:
            r = (points[s][step][field] / s) / (points[base][step][field] / base)
            figures[f'{kind} per GiB {step} {s}/{base} MiB'] = round(r, 4)
            if kind == 'time':
                print(f'{step} (the peer of {ours}): time per GiB {s}/{base} {r:.3f}x, CPU '
                      f"{(points[s][step]['cpu_s'] / s) / (points[base][step]['cpu_s'] / base):.3f}x")
if len(sizes) > 1:
    figures['target time per GiB within 1.1x'] = 'PASS' if worst_ratio <= 1.1 else f'FAIL ({worst_ratio:.2f}x)'
figures['target peak RSS <= 128 MiB'] = 'PASS' if worst_rss <= 128 else f'FAIL ({worst_rss:.0f} MiB)'
for key in figures:
    if key.startswith('target'):
        print(f'{key}: {figures[key]}')
result.emit(figures=figures, size_mib=max(sizes))
PY
((skipped == 0)) || exit 3
