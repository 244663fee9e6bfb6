#!/usr/bin/env bash
# Runs every benchmark of bench/ at one size, each side by side with its peer tool as the script
# itself does, and adds their figures to the results file; then draws the charts of
# docs/BENCHMARKS.md from it (bench/charts.py).
#
#   bench/run-all.sh [--size small|medium|large] [--rounds N] [--only NAME...] [--results FILE]
#                    [--timeout SECONDS] [--no-report] [--list]
#
# Sizes: small 256 MiB, medium 1 GiB, large 8 GiB of content (the corpus of bench/corpus.py, or
# the benchmark's own content at that size). Benchmarks whose content has one size of its own (the
# small-files corpus, the update workloads of bench/update-corpus.py, seeds) run in a `small`
# sweep, or when --only names them. `large` sweeps sizes itself in one run (bench/large.sh: small
# 256 MiB and 1 GiB, medium 1 and 8 GiB, large 1, 8 and 32 GiB) and records each size as a run, with the page cache emptied before every
# timed round where this user may (`bench/large.sh --cold`: root). --rounds (default 3; 2 at large) is passed to every script
# that takes rounds. Each script runs under `nice`, with its output in bench/out/logs/NAME-SIZE.log;
# the `@result` lines it prints (bench/result.py) are merged into FILE (default
# docs/benchmarks/results.json) by bench/collect.py, replacing that benchmark's run at that size.
# A benchmark that fails or outlasts --timeout (default 4 h) is recorded as failed and the others
# go on; the exit status is the number of failed benchmarks (at most 125). At the end the charts
# (docs/benchmarks/NAME.svg) and the generated blocks of docs/BENCHMARKS.md are drawn again from
# FILE, unless --no-report.
#
# ASSETPACK=path/to/assetpack (passed on to every script) runs that binary instead of building one.
#
# A new benchmark gets one line in `benchmarks` and one in `command_line` below, and prints its
# figures as @result lines.
set -uo pipefail
cd "$(dirname "$0")/.."

# name: what it compares (our command against the peer tool)
benchmarks=(
  "package: assetpack package vs tar -cf - | zstd -3 -T0"
  "package-files: assetpack package vs tar | zstd -3 -T0, 100,000 small files"
  "package-files-300k: assetpack package vs tar | zstd -3 -T0, 300,000 small files"
  "publish: assetpack publish (first, unchanged, one file touched, --no-cache) vs tar | zstd -3 -T0"
  "install: assetpack ensure vs curl | zstd -d | tar -x"
  "install-files: assetpack ensure vs curl | zstd -d | tar -x, 100,000 small files; ls, cat vs find, cat"
  "install-files-300k: assetpack ensure vs curl | zstd -d | tar -x, 300,000 small files; ls, cat vs find, cat"
  "install-packs: assetpack ensure of 100 packs vs curl | zstd -d | tar -x; ls, cat, status vs find, cat, curl"
  "install-sealed: assetpack ensure of a sealed pack vs the same pack unencrypted"
  "update-edits: assetpack update vs casync, zsync and zstd --patch-from (edits workload)"
  "update-model: assetpack update vs casync, zsync and zstd --patch-from (one model file)"
  "update-sealed: assetpack update of a sealed pack vs the same pack unencrypted"
  "update-reflink: assetpack update of one model file on XFS (blocks shared) vs on ext4 (copied): disk at peak, time"
  "update-files: assetpack update vs casync, zsync and zstd --patch-from (100,000 small files, 100 edited, page cache emptied)"
  "seeds: assetpack ensure --seed vs casync extract --seed"
  "serve: assetpack serve vs nginx (wrk, 1 MiB ranges and whole packs)"
  "transport: assetpack fetch vs curl -o"
  "upload: assetpack upload vs aws s3 cp --recursive (moto_server)"
  "progressive: assetpack cat of one file vs assetpack ensure of the whole pack"
  "sources: N clients from the origin alone vs with one LAN peer vs through Varnish"
  "kill-resume: assetpack ensure killed 20 times, then resumed: bytes fetched vs the pack"
  "agent: assetpack agent vs in-process assetpack ensure"
  "agent-rate: assetpack agent --max-rate: background pace vs the cap, foreground share"
  "agent-kill: assetpack agent killed 20 times, then restarted: bytes fetched vs the pack"
  "chunksize: pack size and delta bytes against the average chunk size, vs tar | zstd -3"
  "aar: assetpack aar create vs package; LZFSE size vs the reference encoder; aar extract vs lzfse -decode | tar -x"
  "large: assetpack package, publish, ensure, update and verify at several pack sizes: time per GiB against the smallest, peak RSS, disk at peak"
  "large-files: the same steps on 100,000, 300,000 and 1,000,000 small files, tar | zstd and curl | zstd -d | tar -x beside package and install: time per file against the smallest, peak RSS"
  "many-packs: assetpack publish after one change of 2,000 packs vs a full publish; catalog bytes, update with nothing new, status"
  "crowds: 100 assetpack install at once and 1,000 concurrent range requests, assetpack serve vs nginx"
  "variants: assetpack ensure of a device's variant vs the whole group (one pack of every encoding); a switch by update vs a fresh install of the other variant (a pack ID per encoding)"
)
fixed_size=" crowds large-files package-files package-files-300k install-files install-files-300k install-packs update-edits update-sealed update-files seeds many-packs "

size=small rounds="" only=() results=docs/benchmarks/results.json timeout_s=14400 list=no report=yes
while (($#)); do
  case "$1" in
    --size) size=${2:-}; shift 2 ;;
    --rounds) rounds=${2:-}; shift 2 ;;
    --results) results=${2:-}; shift 2 ;;
    --timeout) timeout_s=${2:-}; shift 2 ;;
    --list) list=yes; shift ;;
    --no-report) report=no; shift ;;
    --only) shift; while (($#)) && [[ $1 != --* ]]; do only+=("$1"); shift; done ;;
    *) echo "bench/run-all.sh: unknown option '$1' (see the header of bench/run-all.sh)" >&2; exit 2 ;;
  esac
done
case "$size" in
  small) mib=256 ;; medium) mib=1024 ;; large) mib=8192 ;;
  *) echo "bench/run-all.sh: --size must be small, medium or large, not '$size'" >&2; exit 2 ;;
esac
[ -n "$rounds" ] || rounds=$([ "$size" = large ] && echo 2 || echo 3)
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/run-all.sh: --rounds must be a positive number, not '$rounds'" >&2; exit 2; }
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || { echo "bench/run-all.sh: --timeout must be a positive number of seconds" >&2; exit 2; }

# The command line of one benchmark at $mib MiB and $rounds rounds.
command_line() {
  case "$1" in
    package) echo "bench/package.sh $mib $rounds" ;;
    package-files) echo "bench/package.sh small $rounds" ;;
    package-files-300k) echo "bench/package.sh small300 $rounds" ;;
    publish) echo "bench/publish.sh $mib $rounds" ;;
    install) echo "bench/install.sh $rounds $mib" ;;
    install-files) echo "bench/install.sh $rounds small" ;;
    install-files-300k) echo "bench/install.sh $rounds small300" ;;
    install-packs) echo "bench/install.sh $rounds packs" ;;
    install-sealed) echo "bench/install.sh $rounds $mib sealed" ;;
    update-edits) echo "bench/update.sh edits 2047 $rounds" ;;
    update-model) echo "bench/update.sh model $((mib > 2047 ? 2047 : mib)) $rounds" ;;
    update-sealed) echo "bench/update.sh sealed edits" ;;
    update-reflink) echo "bench/update-reflink.sh $((mib > 2048 ? 2048 : mib)) $rounds" ;;
    update-files) echo "bench/update.sh files 100000 $rounds" ;;
    seeds) echo "bench/seeds.sh $rounds" ;;
    serve) echo "bench/serve.sh --rounds $rounds --packs 4 --pack-mib $((mib / 4))" ;;
    transport) echo "env SIZE_MIB=$mib ROUNDS=$rounds bench/transport.sh" ;;
    upload) echo "bench/upload.sh $rounds $mib" ;;
    progressive) echo "bench/progressive.sh $mib 2000 5m $rounds" ;;
    sources) echo "bench/sources.sh $((mib > 1024 ? 1024 : mib)) 1" ;;   # 39 roots at once: 8 GiB would need 312 GiB
    kill-resume) echo "bench/kill-resume.sh 20 2m $mib" ;;
    agent) echo "bench/agent.sh $rounds $mib" ;;
    agent-rate) echo "bench/agent-rate.sh $rounds $((mib > 1024 ? 1024 : mib / 2))" ;;
    agent-kill) echo "bench/agent-kill.sh 20 2m $mib" ;;
    chunksize) echo "bench/chunksize.sh $mib" ;;
    aar) echo "bench/aar.sh $mib $rounds" ;;
    variants) echo "bench/variants.sh $((mib / 4))" ;;
    many-packs) echo "bench/many-packs.sh 2000 $rounds" ;;
    crowds) echo "bench/crowds.sh --clients 100 --connections 1000 --duration 10 --pack-mib 8 --rounds $rounds" ;;
    large) local cold; cold=$([ -w /proc/sys/vm/drop_caches ] && echo " --cold")
           case "$size" in small) echo "bench/large.sh --rounds $rounds$cold 256 1024" ;; medium) echo "bench/large.sh --rounds $rounds$cold 1024 8192" ;;
             *) echo "bench/large.sh --rounds $rounds$cold 1024 8192 32768" ;; esac ;;
    large-files) local cold; cold=$([ -w /proc/sys/vm/drop_caches ] && echo " --cold")
                 echo "bench/large.sh --rounds $rounds$cold small small300 small1m" ;;
    *) [ -f "bench/$1.sh" ] && echo "env SIZE_MIB=$mib ROUNDS=$rounds bench/$1.sh" ;;
  esac
}
compares() { local line; for line in "${benchmarks[@]}"; do [ "${line%%:*}" = "$1" ] && { echo "${line#*: }"; return; }; done; echo "bench/$1.sh"; }

names=()
if ((${#only[@]})); then names=("${only[@]}"); else
  for line in "${benchmarks[@]}"; do
    name=${line%%:*}
    [[ $fixed_size == *" $name "* && $size != small ]] && continue
    names+=("$name")
  done
fi
if [ "$list" = yes ]; then
  for name in "${names[@]}"; do printf '%-19s %s\n' "$name" "$(command_line "$name" || echo '(no such benchmark)')"; done
  exit 0
fi

scripts/install-deps.sh --bench || { echo "bench/run-all.sh: scripts/install-deps.sh --bench failed" >&2; exit 1; }
logs=bench/out/logs; mkdir -p "$logs"
failed=0
for name in "${names[@]}"; do
  log=$logs/$name-$size.log
  if ! cmd=$(command_line "$name"); then
    echo "bench/run-all.sh: no benchmark '$name' (bench/run-all.sh --list shows them)" | tee "$log" >&2
    python3 bench/collect.py "$results" "$name" "$size" "$mib" 127 0 "$log" "" "$(compares "$name")"
    failed=$((failed + 1)); continue
  fi
  if [[ $cmd == *bench/aar.sh* ]] && [ ! -f bench/aar.sh ]; then
    echo "== $name: bench/aar.sh is not there yet; skipped"; continue
  fi
  echo "== $name ($size): $cmd   [log: $log]"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # the command line is split into words on purpose
  timeout --kill-after=60 "$timeout_s" nice -n 10 $cmd > "$log" 2>&1
  code=$?
  seconds=$(python3 -c "import time; print(time.time() - $start)")
  if ((code != 0)); then
    failed=$((failed + 1))
    echo "   failed (exit $code$([ $code -eq 124 ] && echo ": timed out after $timeout_s s")); last lines:"; tail -5 "$log" | sed 's/^/   | /'
  fi
  python3 bench/collect.py "$results" "$name" "$size" "$mib" "$code" "$seconds" "$log" "$cmd" "$(compares "$name")" | sed 's/^/   /'
done
if [ "$report" = yes ]; then python3 bench/charts.py "$results" docs/benchmarks --page docs/BENCHMARKS.md || failed=$((failed + 1)); fi
exit $((failed > 125 ? 125 : failed))
