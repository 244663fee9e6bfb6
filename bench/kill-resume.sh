#!/usr/bin/env bash
# Kill and resume: `assetpack ensure` of a 256 MiB pack is killed with SIGKILL at random moments
# (seeded: 0.1-1.5 s after each start), up to KILLS times, then run to completion. The installed
# tree must equal the corpus, and all runs together may fetch at most 10 % more pack bytes than
# the pack's size (a killed install must resume, not start over). Bytes fetched are nginx's $body_bytes_sent summed over every request
# for the pack file — bytes handed to the socket, so bytes lost in flight when a process dies
# count as fetched.
#
#   bench/kill-resume.sh [KILLS=20] [RATE=2m] [SIZE_MIB=256] [SEED=4]
#
# RATE is nginx's limit_rate per response (the client opens 4 parallel Range requests), chosen
# so that the install outlasts the kills: at 2m a 256 MiB corpus (~200 MB pack) takes ~25 s.
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-20}; rate=${2:-2m}; size=${3:-256}; seed=${4:-4}
name=kill-resume
source bench/published-corpus.sh

source bench/nginx.sh
trap stop_nginx EXIT
start_nginx "$out/repo" "$out/nginx" "$rate"
url=http://127.0.0.1:$NGINX_PORT
root=$out/root
ensure=("$bin" ensure bench-corpus --root "$root" --repo "$url" --public-key "$out/key.pub" --json)
echo "pack: $pack_size B; nginx limit_rate $rate per response; up to $kills kills (seed $seed)"

delays=$(python3 -c "import random; r = random.Random($seed); print(' '.join(f'{r.uniform(0.1, 1.5):.3f}' for _ in range($kills)))")
killed=0; completed=no
for d in $delays; do
  "${ensure[@]}" > "$out/run.log" 2>&1 & pid=$!
  sleep "$d"
  kill -9 "$pid" 2>/dev/null || true
  rc=0; { wait "$pid"; } 2>/dev/null || rc=$?   # (no "Killed" job notice)
  if [ "$rc" -eq 0 ]; then completed=yes; echo "  run $((killed + 1)): completed before its kill at ${d} s"; break; fi
  [ "$rc" -eq 137 ] || { echo "error: ensure failed (exit $rc):" >&2; cat "$out/run.log" >&2; exit 1; }
  killed=$((killed + 1))
  printf '  kill %2d at %s s: %s pack bytes served so far\n' "$killed" "$d" \
    "$(awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")"
done
if [ "$completed" = no ]; then
  start=$(date +%s.%N)
  "${ensure[@]}" > "$out/run.log" 2>&1 || { echo "error: the final run failed:" >&2; cat "$out/run.log" >&2; exit 1; }
  echo "  final run completed in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
fi

# Verified content: the store says installed, the tree equals the corpus, no staging is left.
"$bin" status bench-corpus --root "$root" --json | grep -q '"upToDate"' || { echo "FAIL: not installed" >&2; exit 1; }
source bench/install-outcome.sh
check_install_outcome "$root" "after $killed kills"
