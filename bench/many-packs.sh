#!/usr/bin/env bash
# Many packs: a repository of PACKS tiny packs (default 2,000; one ~200-byte file each, essential).
# Measures, with the release `assetpack`:
#   publish     a full publish into an empty repository, against
#   republish   a publish after one pack's file changed (every other pack reused), side by side in
#               one run by bench/measure.py (target: republish ≤ 0.3× publish)
#   catalog     catalog.json's bytes per pack (target ≤ 400)
#   update      `assetpack update` with nothing new, single-key and root mode, from nginx: the
#               bytes nginx sent over every request of the update ($body_bytes_sent, access log)
#               and its wall time (targets: ≤ 64 KiB whatever PACKS, < 1 s)
#   status      `assetpack status` of the PACKS installed packs (target < 2 s)
# Prints the figures for people, and `@result` lines for bench/run-all.sh (bench/result.py):
# runners `publish` and `republish` (wall_s, cpu_s, peak_rss_mib), and figures named for what they
# measure (republish_over_publish, catalog_bytes_per_pack, update_nothing_new_bytes_MODE, …).
# Usage: bench/many-packs.sh [PACKS=2000] [ROUNDS=3]. ASSETPACK=path/to/assetpack runs that binary
# instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
packs=${1:-2000}; rounds=${2:-3}
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/many-packs-$packs
source bench/nginx.sh
trap stop_nginx EXIT
source bench/deleted.sh
wait_for_deleted_inodes
rm -rf "$out"; mkdir -p "$out"

# The corpus: content/P0000/P0000.txt … (a path of its own in the namespace) and a manifest a pack.
python3 - "$out" "$packs" <<'PY'
import os, sys
out, n = sys.argv[1], int(sys.argv[2])
width = len(str(n - 1))
os.makedirs(f"{out}/manifests")
for i in range(n):
    name = f"P{i:0{width}d}"
    os.makedirs(f"{out}/content/{name}")
    with open(f"{out}/content/{name}/{name}.txt", "w") as f:
        f.write(f"pack {name}\n" + "x" * 180 + "\n")
    with open(f"{out}/manifests/{name}.json", "w") as f:
        f.write('{"assetPackID": "%s", "downloadPolicy": {"essential": {"installationEventTypes": ["firstInstallation"]}}, '
                '"fileSelectors": [{"directory": "content/%s"}], "platforms": ["iOS"]}\n' % (name, name))
PY
"$bin" keygen -o "$out/key" >/dev/null 2>&1
"$bin" keygen --root -o "$out/root.key" >/dev/null 2>&1
"$bin" keygen -o "$out/timestamp.key" >/dev/null 2>&1
# Files changed within the last second or two are not recorded in the publish cache; let them settle.
sleep 2

figures=("packs=$packs")
result() { figures+=("$1=$2"); }  # KEY VALUE

echo "== publish and republish: $packs packs, $(nproc) cores, $rounds rounds"
publish_cmd="cd $out && $bin publish manifests/*.json --repo $out/repo --key $out/key --cache $out/publish-cache.json >/dev/null"
# Before the full publish the repository and its cache are gone; before a republish the
# repository holds the previous publish and one pack's file (a different one each time) changes,
# two seconds before the publish (so that the publish cache may record the changed pack too).
setup="cd $out; if [ \"\$1\" = publish ]; then rm -rf repo publish-cache.json; else
  [ -f repo/catalog.json ] || { $bin publish manifests/*.json --repo repo --key key --cache publish-cache.json >/dev/null; sleep 2; }
  p=\$(ls content | shuf -n 1); echo \"changed \$(date +%s%N)\" >> content/\$p/\$p.txt; sleep 2; fi; sync"
python3 bench/measure.py --setup "$setup" "$rounds" republish "$publish_cmd" publish "$publish_cmd" | tee "$out/publish.txt"
ratio=$(sed -n 's/^ratio republish \/ publish: \([0-9.]*\)x$/\1/p' "$out/publish.txt")
cpu_ratio=$(sed -n 's/^CPU ratio republish \/ publish: \([0-9.]*\)x$/\1/p' "$out/publish.txt")
read -r republish_s publish_s < <(sed -n 's/^median wall time: republish \([0-9.]*\) s, publish \([0-9.]*\) s$/\1 \2/p' "$out/publish.txt")
read -r republish_cpu publish_cpu < <(sed -n 's/^median CPU time: republish \([0-9.]*\) s, publish \([0-9.]*\) s$/\1 \2/p' "$out/publish.txt")
read -r republish_rss publish_rss < <(sed -n 's/^peak RSS: republish \([0-9.]*\) MiB, publish \([0-9.]*\) MiB$/\1 \2/p' "$out/publish.txt")
python3 bench/result.py --runner publish wall_s="$publish_s" cpu_s="$publish_cpu" peak_rss_mib="$publish_rss"
python3 bench/result.py --runner republish wall_s="$republish_s" cpu_s="$republish_cpu" peak_rss_mib="$republish_rss"
result republish_over_publish "$ratio"
result republish_over_publish_cpu "$cpu_ratio"
# What a republish after one change did, from its report: packs packaged, packs reused.
(cd "$out" && "$bin" publish manifests/*.json --repo repo --key key --cache publish-cache.json >/dev/null)
sleep 2
first=$(ls "$out/content" | head -1); echo "changed again" >> "$out/content/$first/$first.txt"
(cd "$out" && "$bin" publish manifests/*.json --repo repo --key key --cache publish-cache.json --json) > "$out/republish.json"
python3 - "$out/republish.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
builds = r["packaging"]
print(f"republish after one change: {sum(not b['reused'] for b in builds)} pack(s) packaged, {sum(b['reused'] for b in builds)} reused")
PY

echo "== catalog"
catalog_bytes=$(stat -c %s "$out/repo/catalog.json")
per_pack=$(python3 -c "print(round($catalog_bytes / $packs, 1))")
format=$(python3 -c "import json; print(json.load(open('$out/repo/catalog.json'))['catalogFormat'])")
echo "catalog.json: $catalog_bytes bytes, $per_pack bytes a pack (catalog format $format)"
result catalog_bytes "$catalog_bytes"
result catalog_bytes_per_pack "$per_pack"

start_nginx "$out" "$out/nginx"
url="http://127.0.0.1:$NGINX_PORT"
now() { date +%s.%N; }
# Bytes nginx sent since the log had $1 lines.
sent_since() { tail -n +"$(($1 + 1))" "$NGINX_LOG" | awk '{s += $3; n++} END {printf "%d %d\n", s, n}'; }

# Single-key mode, then root mode (a root, its timestamp key, and the catalog republished under it).
for mode in single-key root; do
  echo "== update with nothing new ($mode mode)"
  trust=(--public-key "$out/key.pub")
  if [ "$mode" = root ]; then
    "$bin" rotate --repo "$out/repo" --root-key "$out/root.key" --catalog-key "$out/key.pub" --timestamp-key "$out/timestamp.key.pub" >/dev/null
    (cd "$out" && "$bin" publish manifests/*.json --repo repo --key key --timestamp-key timestamp.key --cache publish-cache.json >/dev/null)
    trust=(--root-key "$out/root.key.pub")
  fi
  client=$out/client-$mode
  start=$(now)
  "$bin" install --root "$client" --repo "$url/repo" "${trust[@]}" >/dev/null
  echo "install of $packs packs: $(python3 -c "print(f'{$(now) - $start:.2f}')") s"
  times=(); bytes=0; requests=0
  for r in $(seq "$rounds"); do
    lines=$(wc -l < "$NGINX_LOG")
    start=$(now)
    "$bin" update --root "$client" >/dev/null
    times+=("$(python3 -c "print(f'{$(now) - $start:.3f}')")")
    read -r bytes requests < <(sent_since "$lines")
    echo "  round $r: ${times[-1]} s, $bytes bytes in $requests requests"
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (${#times[@]} + 1) / 2 ))p")
  echo "update with nothing new: $bytes bytes fetched, median $median s"
  result "update_nothing_new_bytes_${mode/-/_}" "$bytes"
  result "update_nothing_new_s_${mode/-/_}" "$median"

  echo "== status of $packs installed packs ($mode mode)"
  times=()
  for r in $(seq "$rounds"); do
    start=$(now)
    "$bin" status --root "$client" >/dev/null
    times+=("$(python3 -c "print(f'{$(now) - $start:.3f}')")")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (${#times[@]} + 1) / 2 ))p")
  echo "status: median $median s"
  result "status_s_${mode/-/_}" "$median"
done
stop_nginx
rm -rf "$out/content" "$out"/client-*; record_deletion
python3 bench/result.py "${figures[@]}"
