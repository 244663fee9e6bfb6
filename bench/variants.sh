#!/usr/bin/env bash
# Device variants benchmark: what each device downloads of a pack published in several encodings,
# and what a switch between variants costs, against the two ways a team does without variants:
# one pack holding every encoding (each device downloads all of it), or one pack ID per encoding
# (a device that switches downloads the other pack whole).
#
#   bench/variants.sh [TEXTURE_MIB=64]
#
# Content (generated, deterministic): `shared/` (TEXTURE_MIB/2 of JSON and binary tables every
# variant holds), one texture set of TEXTURE_MIB incompressible bytes per encoding (`bc7` in the
# default, `astc`, `etc2`, `bc6h`), and a high-resolution set of TEXTURE_MIB/2 that the
# `astc` + `minimumMemory 8GiB` variant adds to the `astc` textures. The group (a default and
# four variants) is published into a fresh repository and served by nginx on loopback; five
# devices (`--texture-formats`, `--memory`) each `ensure` the pack into a fresh root. Reported per
# device: the bytes of pack files nginx sent, against the chosen variant's `downloadSize` in the
# catalog (target <= 1.02x: a device fetches its variant once and nothing else) and against the
# whole group's content (what the all-encodings pack would cost). Then the `astc` device gains
# memory and `update`s: the bytes fetched for the switch to `astc-8GiB` against a fresh install of
# that variant (what a per-encoding pack ID would cost; target <= 0.5x). And the repository's pack
# files against every variant stored whole (target < 1.0x: shared content stored once).
# ASSETPACK=path/to/assetpack runs that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-64}
case "$mib" in ''|*[!0-9]*) echo "usage: bench/variants.sh [TEXTURE_MIB]" >&2; exit 2;; esac
root=$PWD
scripts/install-deps.sh >/dev/null
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$root/bench/out/variants
rm -rf "$out"; mkdir -p "$out/group" "$out/roots"
source bench/nginx.sh
trap 'stop_nginx 2>/dev/null || true' EXIT

python3 - "$out/group" "$mib" <<'PY'
import json, os, random, sys
group, mib = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261205)
def write(rel, data):
    path = os.path.join(group, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)
def noise(count):
    return rng.getrandbits(8 * count).to_bytes(count, 'little')
words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(3, 9))) for _ in range(2000)]
half = mib << 19
for i in range(8):
    records = [{"id": f"{rng.choice(words)}-{n}", "name": ' '.join(rng.choices(words, k=3)), "value": rng.random()}
               for n in range(half // 8 // 160)]
    write(f'shared/table{i}.json', json.dumps(records, indent=1).encode()[:half // 16])
    write(f'shared/table{i}.bin', noise(half // 16))
for encoding in ['bc7', 'astc', 'etc2', 'bc6h']:
    for i in range(8):
        write(f'textures/{encoding}/texture{i}.ktx', noise((mib << 20) // 8))
for i in range(4):
    write(f'textures/astc-hi/texture{i}.ktx', noise((mib << 20) // 8))
def manifest(name, directories, variant=None):
    m = {"assetPackID": "Textures", "downloadPolicy": {"onDemand": {}}, "platforms": ["iOS", "macOS"],
         "fileSelectors": [{"directory": d} for d in ['shared'] + directories]}
    if variant:
        m["variant"] = variant
    with open(os.path.join(group, name), 'w') as f:
        json.dump(m, f, indent=2)
manifest('Textures.json', ['textures/bc7'])
manifest('Textures.astc.json', ['textures/astc'], {"textureFormat": "astc"})
manifest('Textures.astc-8GiB.json', ['textures/astc', 'textures/astc-hi'], {"textureFormat": "astc", "minimumMemory": "8GiB"})
manifest('Textures.etc2.json', ['textures/etc2'], {"textureFormat": "etc2"})
manifest('Textures.bc6h.json', ['textures/bc6h'], {"textureFormat": "bc6h"})
PY

"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$out/group" && "$bin" publish Textures.json Textures.astc.json Textures.astc-8GiB.json Textures.etc2.json Textures.bc6h.json \
  --repo "$out/repo" --key "$out/key" >/dev/null)
start_nginx "$out/repo" "$out/nginx"
url="http://127.0.0.1:$NGINX_PORT"
content=$(du -sb "$out/group/shared" "$out/group/textures" | awk '{s += $1} END {print s}')
stored=$(find "$out/repo/packs" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
echo "group: $(numfmt --to=iec "$content") of content in 5 manifests; repository pack files $(numfmt --to=iec "$stored")"

# The variant a root has installed and its downloadSize (what the catalog says a device fetches
# for it), from `status --json`.
installed_variant() {
  "$bin" status Textures --root "$1" --json | python3 -c '
import json, sys
row = next(r for r in json.load(sys.stdin) if r["id"] == "Textures")
print(row["installedVariant"], row["downloadSize"])'
}
# Every file of the variant's manifest, read back through `assetpack cat` and compared.
check_tree() {
  local root=$1 variant=$2 manifest=Textures.json dirs rel
  [ "$variant" = default ] || manifest=Textures.$variant.json
  dirs=$(python3 -c 'import json, sys; print(" ".join(s["directory"] for s in json.load(open(sys.argv[1]))["fileSelectors"]))' "$out/group/$manifest")
  for dir in $dirs; do
    while IFS= read -r rel; do
      cmp -s <("$bin" cat "$rel" --root "$root") "$out/group/$rel" || { echo "$root: $rel differs from the content" >&2; exit 1; }
    done < <(cd "$out/group" && find "$dir" -type f | sort)
  done
}
# nginx writes a request's access log line as its response ends, which may be just after the
# client has all the bytes: wait until the log holds still for 100 ms (at most 5 s).
settle_log() {
  local before after
  for _ in $(seq 50); do
    before=$(log_lines); sleep 0.1; after=$(log_lines)
    [ "$before" = "$after" ] && return
  done
}
sent_since() { tail -n +"$(( $1 + 1 ))" "$NGINX_LOG" | awk '$1 ~ /^\/packs\// {s += $3} END {print s + 0}'; }
log_lines() { wc -l < "$NGINX_LOG"; }

declare -A fetched sizes
echo "device: variant chosen, pack bytes fetched / its downloadSize, / the whole group's content"
for device in "astc 4GiB astc" "astc 16GiB astc-8GiB" "etc2 4GiB etc2" "bc6h,bc7 8GiB bc6h" "bc7 16GiB default"; do
  read -r formats memory expected <<<"$device"
  name="$formats@$memory"
  mark=$(log_lines)
  start=$(date +%s.%N)
  "$bin" ensure Textures --root "$out/roots/$name" --repo "$url" --public-key "$out/key.pub" \
    --texture-formats "$formats" --memory "$memory" >/dev/null
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  settle_log
  bytes=$(sent_since "$mark")
  read -r chosen size < <(installed_variant "$out/roots/$name")
  [ "$chosen" = "$expected" ] || { echo "$name chose $chosen, expected $expected" >&2; exit 1; }
  fetched[$chosen]=$bytes
  sizes[$chosen]=$size
  check_tree "$out/roots/$name" "$chosen"
  ratio=$(echo "scale=4; $bytes / $size" | bc); share=$(echo "scale=4; $bytes / $content" | bc)
  printf '  %-16s %-10s %12s B  %sx its download, %sx the group (%.2f s)\n' "$name" "$chosen" "$bytes" "$ratio" "$share" "$seconds"
  python3 bench/result.py --runner "device $chosen" bytes="$bytes" wall_s="$seconds"
  python3 bench/result.py "bytes $chosen / its downloadSize"="$ratio" "bytes $chosen / group content"="$share"
done

echo "switch: the astc device gains memory and updates to astc-8GiB"
mark=$(log_lines)
start=$(date +%s.%N)
"$bin" update --root "$out/roots/astc@4GiB" --memory 16GiB >/dev/null
seconds=$(echo "$(date +%s.%N) - $start" | bc)
settle_log
switch=$(sent_since "$mark")
read -r after _ < <(installed_variant "$out/roots/astc@4GiB")
[ "$after" = astc-8GiB ] || { echo "the update left the astc device on $after, not astc-8GiB" >&2; exit 1; }
check_tree "$out/roots/astc@4GiB" astc-8GiB
fresh=${fetched[astc-8GiB]}
ratio=$(echo "scale=4; $switch / $fresh" | bc)
printf '  switch %s B against a fresh install of astc-8GiB %s B: %sx (%.2f s)\n' "$switch" "$fresh" "$ratio" "$seconds"
sum=0
for v in default astc astc-8GiB etc2 bc6h; do sum=$(( sum + ${sizes[$v]} )); done
stored_ratio=$(echo "scale=4; $stored / $sum" | bc)
printf '  repository pack files %s B against every variant stored whole %s B: %sx\n' "$stored" "$sum" "$stored_ratio"
python3 bench/result.py --runner "switch astc to astc-8GiB" bytes="$switch" wall_s="$seconds"
python3 bench/result.py --runner "fresh astc-8GiB" bytes="$fresh"
python3 bench/result.py "switch / fresh install"="$ratio" "repository / variants stored whole"="$stored_ratio" \
  "content MiB"="$(( content >> 20 ))"
