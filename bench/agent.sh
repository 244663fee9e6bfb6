#!/usr/bin/env bash
# Agent benchmark: a fresh `ensure` of the benchmark pack through a running
# `assetpack agent` (curl on its Unix socket, waiting for the install) against the in-process
# `assetpack ensure`, from nginx on loopback into fresh roots, alternating, several rounds.
# Prints the median wall-time ratio (target <= 1.05x), the agent's peak RSS (target <= 128 MiB),
# and, with no work to do, the agent's CPU time over 10 s (target 0) and RSS (target <= 32 MiB),
# anonymous and mapped files apart.
#
#   bench/agent.sh [ROUNDS=3] [SIZE_MIB=1024]
#
# ASSETPACK=path/to/assetpack runs that binary instead of building a release one.
#
# Each run installs into a root of its own, made in the untimed set-up: the agent's runs each
# through an agent started on its fresh root for that run (stopped in the next set-up, after its
# peak RSS is read), the in-process runs with `assetpack ensure` into a fresh folder. Nothing is
# deleted between runs: on this VM's ext4 (no journal), files created where many were just
# deleted make the inode allocator step over every recently deleted inode (`recently_deleted`,
# `find_get_block_common` led the kernel profiles), which made the ratio depend on which runner
# had deleted more lately (1.12-1.16x, and the reverse in other runs) rather than on the agent;
# on fresh roots both spend the same CPU. Both roots are initialised in the set-up (`assetpack
# status --root --repo`: the catalog accepted), and `sync` flushes dirty pages before each run.
# The in-process runner pays for its process start and for opening its root (lock, store) on
# every run, as a CLI call does; the agent paid for its own at its start — that is the point of
# the agent.
# The last agent stays up for the idle measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; size=${2:-1024}
name=agent
source bench/published-corpus.sh

source bench/nginx.sh
state=$out/agent-state; mkdir -p "$state"; : > "$state/peak-kib"
start_nginx "$out/repo" "$out/nginx"
url=http://127.0.0.1:$NGINX_PORT
cat "$out/repo/$pack" > /dev/null   # the source in the page cache

# The set-up of a run ($1: the runner), a script of its own since measure.py runs it under sh:
# stop the previous agent (its peak RSS kept); for the agent, a fresh root that remembers the
# repository and an agent on it, up and settled (its start-up work done).
cat > "$state/setup.sh" <<SETUP
stop_agent() {
  [ -f "$state/pid" ] || return 0
  pid=\$(cat "$state/pid")
  awk '/VmHWM/ { print \$2 }' "/proc/\$pid/status" >> "$state/peak-kib" 2>/dev/null || true
  kill -TERM "\$pid" 2>/dev/null || true
  while kill -0 "\$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$state/pid"
}
stop_agent
[ "\${1:-}" = stop ] && exit 0
n=\$(( \$(cat "$state/runs" 2>/dev/null || echo 0) + 1 )); echo \$n > "$state/runs"
if [ "\$1" = agent ]; then
  root=$out/roots/agent-\$n
  "$bin" status --root "\$root" --repo "$url/" --public-key "$out/key.pub" >/dev/null
  "$bin" agent --root "\$root" 2>> "$out/agent.log" &
  echo \$! > "$state/pid"; echo "\$root" > "$state/root"
  for _ in \$(seq 1 500); do curl -sf --unix-socket "\$root/agent.sock" http://agent/v1/status >/dev/null 2>&1 && break; sleep 0.01; done
  sleep 1
else
  # The same start as the agent's root: initialised, the catalog accepted.
  "$bin" status --root "$out/roots/in-process-\$n" --repo "$url/" --public-key "$out/key.pub" >/dev/null
  echo "$out/roots/in-process-\$n" > "$state/in-process-root"
fi
sync
SETUP
trap 'stop_nginx; bash "$state/setup.sh" stop' EXIT

echo "pack $(stat -c %s "$out/repo/$pack") B; $(nproc) cores"
python3 bench/measure.py --setup "bash '$state/setup.sh' \"\$1\"" "$rounds" \
  agent "curl -sf -X POST --unix-socket \"\$(cat '$state/root')/agent.sock\" http://agent/v1/packs/bench-corpus/ensure -o /dev/null" \
  in-process "'$bin' ensure bench-corpus --root \"\$(cat '$state/in-process-root')\" > /dev/null"

# The agent of the last agent run, if a later in-process run stopped it, comes back for the idle
# measurement on the root it installed.
agent_root=$(cat "$state/root")
if [ -f "$state/pid" ]; then
  awk '/VmHWM/ { print $2 }' "/proc/$(cat "$state/pid")/status" >> "$state/peak-kib"
else
  "$bin" agent --root "$agent_root" 2>> "$out/agent.log" &
  echo $! > "$state/pid"
  for _ in $(seq 1 500); do curl -sf --unix-socket "$agent_root/agent.sock" http://agent/v1/status >/dev/null 2>&1 && break; sleep 0.01; done
fi
agent_pid=$(cat "$state/pid")
echo "agent peak RSS over the agent runs: $(( $(sort -n "$state/peak-kib" | tail -1) / 1024 )) MiB"
ticks() { awk '{ print $14 + $15 }' /proc/$agent_pid/stat; }
sleep 3   # settled: 2 s after its last download the agent hands memory back (IdleMemory), once
before=$(ticks); sleep 10; after=$(ticks)
mib() { echo $(( $(awk -v k="$1:" '$1 == k { print $2 }' /proc/$agent_pid/status) / 1024 )); }
echo "idle agent: $((after - before)) CPU ticks ($(getconf CLK_TCK)/s) in 10 s, RSS $(mib VmRSS) MiB ($(mib RssAnon) MiB anonymous, $(mib RssFile) MiB mapped files)"
python3 bench/result.py --runner agent peak_rss_mib="$(( $(sort -n "$state/peak-kib" | tail -1) / 1024 ))" bytes="$(stat -c %s "$out/repo/$pack")"
python3 bench/result.py size_mib="$size" idle_cpu_ticks_10s="$((after - before))" idle_rss_mib="$(mib VmRSS)" \
  idle_rss_anon_mib="$(mib RssAnon)" idle_rss_file_mib="$(mib RssFile)"
installed=$(echo "$agent_root"/packs/bench-corpus/*/)
diff -r "$corpus/content" "$installed/content" && echo "verify: the agent's installed tree equals the corpus"
