#!/usr/bin/env bash
# The agent killed at random moments: one detached request for a 256 MiB pack is
# made to `assetpack agent`, then the agent is killed with SIGKILL at random moments (seeded:
# 0.2-1.2 s after each start answers), KILLS times, restarted each time with no client asking
# for anything; the last start must complete the pack from its durable queue. The installed tree
# must equal the corpus, and all runs together may fetch at most 10 % more pack bytes than the
# pack's size. Bytes fetched are nginx's $body_bytes_sent over every request for the pack file —
# bytes handed to the socket, so bytes lost in flight when the agent dies count as fetched.
#
#   bench/agent-kill.sh [KILLS=20] [RATE=2m] [SIZE_MIB=256] [SEED=10]
#
# RATE is nginx's limit_rate per response (the agent opens 4 parallel Range requests per pack).
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-20}; rate=${2:-2m}; size=${3:-256}; seed=${4:-10}
name=agent-kill
source bench/published-corpus.sh

source bench/nginx.sh
agent=""
trap 'stop_nginx; [ -z "$agent" ] || kill -9 "$agent" 2>/dev/null || true' EXIT
start_nginx "$out/repo" "$out/nginx" "$rate"
url=http://127.0.0.1:$NGINX_PORT
root=$out/root; sock=$root/agent.sock
"$bin" status --root "$root" --repo "$url" --public-key "$out/key.pub" >/dev/null
start_agent() {
  "$bin" agent --root "$root" 2>> "$out/agent.log" & agent=$!
  for _ in $(seq 1 1000); do curl -sf --unix-socket "$sock" http://agent/v1/status >/dev/null 2>&1 && return; sleep 0.01; done
  echo "error: the agent did not answer" >&2; exit 1
}
installed() { compgen -G "$root/packs/bench-corpus/*/" >/dev/null; }
echo "pack: $pack_size B; nginx limit_rate $rate per response; $kills kills (seed $seed)"

start_agent
curl -sf -X POST --unix-socket "$sock" 'http://agent/v1/packs/bench-corpus/ensure?detach=1' >/dev/null
delays=$(python3 -c "import random; r = random.Random($seed); print(' '.join(f'{r.uniform(0.2, 1.2):.3f}' for _ in range($kills)))")
killed=0
for d in $delays; do
  [ $killed -eq 0 ] || start_agent
  sleep "$d"
  kill -9 "$agent"; { wait "$agent"; } 2>/dev/null || true; agent=""
  if installed; then echo "  the pack was installed before kill $((killed + 1))"; break; fi
  killed=$((killed + 1))
  printf '  kill %2d at %s s: %s pack bytes served so far\n' "$killed" "$d" \
    "$(awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")"
done
if ! installed; then
  start=$(date +%s.%N)
  start_agent   # no client: the queue alone brings the request back
  until installed; do sleep 0.1; done
  echo "  the last start completed the pack in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"
  kill -TERM "$agent"; wait "$agent" || true; agent=""
fi

source bench/install-outcome.sh
check_install_outcome "$root" "after $killed kills of the agent"
