#!/usr/bin/env bash
# An update of a large file on a file system that shares blocks between files (XFS with reflink)
# against the same update on ext4, which cannot. The model workload of bench/update.sh (one model
# file of MODEL_MIB with 1 % of its 4 KiB pages rewritten) is published as v1 and v2; each round,
# on each file system (a fresh loop device of its own, the same size), v1 is installed from nginx,
# the page cache is emptied, and `assetpack update` to v2 is measured by bench/measure.py: wall
# and CPU time, peak RSS, and the disk it takes at its peak (free space sampled every 50 ms), then
# the tree is compared with v2. The update copies each chunk the two versions share from the
# installed file (`copy_file_range`): XFS shares its whole blocks, ext4 copies them. Printed: the
# disk at peak on XFS ÷ on ext4, and the update's time on XFS ÷ on ext4 (medians). No target.
#
#   bench/update-reflink.sh [MODEL_MIB=1024] [ROUNDS=3]
#
# Needs root (losetup, mount, drop_caches) and mkfs.xfs (xfsprogs, installed when missing).
# ASSETPACK=path/to/assetpack runs that binary instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
model_mib=${1:-1024}; rounds=${2:-3}
[[ $model_mib =~ ^[1-9][0-9]*$ ]] || { echo "bench/update-reflink.sh: MODEL_MIB must be a positive number, not '$model_mib'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/update-reflink.sh: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "bench/update-reflink.sh: needs root, to make and mount two loop file systems and empty the page cache" >&2; exit 2; }
scripts/install-deps.sh
command -v mkfs.xfs >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xfsprogs >/dev/null
grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null || { echo "bench/update-reflink.sh: this kernel cannot mount XFS (not in /proc/filesystems, and modprobe xfs failed)" >&2; exit 3; }
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/update-reflink
# Each file system holds the installed version, the update's new file and 1 GiB to spare.
image_mib=$((model_mib * 3 + 1024))
free=$(df -BM --output=avail "$PWD/bench/out" 2>/dev/null | tail -1 | tr -dc 0-9 || echo 0)
need=$((model_mib * 5 + image_mib * 2))
((free >= need)) || { echo "bench/update-reflink.sh: needs about $need MiB free on $(df --output=target "$PWD" | tail -1) (the two versions, their repository and two file systems of $image_mib MiB); $free MiB are free" >&2; exit 3; }
source bench/nginx.sh
mounts=()
cleanup() {
  stop_nginx 2>/dev/null || true
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -f "$out"/*.img
}
trap cleanup EXIT

# The two versions and their repository (v1's kept aside as repo-v1), made once and reused.
if [ "$(cat "$out/size" 2>/dev/null)" != "$model_mib" ]; then
  for m in "$out"/fs-*; do ! mountpoint -q "$m" || umount "$m"; done
  rm -rf "$out"; mkdir -p "$out"
  python3 bench/update-corpus.py model "$out" "$model_mib" > "$out/changed"
  manifest='{"assetPackID": "Update", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}'
  for v in v1 v2; do echo "$manifest" > "$out/$v/Manifest.json"; done
  "$bin" keygen -o "$out/key" >/dev/null 2>&1
  mkdir -p "$out/site"
  (cd "$out/v1" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache >/dev/null)
  cp -a "$out/site/repo" "$out/site/repo-v1"
  (cd "$out/v2" && "$bin" publish Manifest.json --repo "$out/site/repo" --key "$out/key" --no-cache >/dev/null)
  echo "$model_mib" > "$out/size"
fi
ln -sfn repo-v1 "$out/site/current"
start_nginx "$out/site/current" "$out/nginx"
url=http://127.0.0.1:$NGINX_PORT

for fs in ext4 xfs; do
  mount_point=$out/fs-$fs
  mkdir -p "$mount_point"
  ! mountpoint -q "$mount_point" || umount "$mount_point"
  rm -f "$out/$fs.img"; truncate -s "${image_mib}M" "$out/$fs.img"
  case "$fs" in
    ext4) mkfs.ext4 -q -F "$out/$fs.img" ;;
    xfs) mkfs.xfs -q -f -m reflink=1 "$out/$fs.img" ;;
  esac
  mount -o loop "$out/$fs.img" "$mount_point"
  mounts+=("$mount_point")
done

echo "model file: $model_mib MiB, 1 % of its pages rewritten; $rounds rounds on each file system, alternating"
for ((r = 1; r <= rounds; r++)); do
  for fs in ext4 xfs; do
    root=$out/fs-$fs/root
    rm -rf "$root"
    ln -sfn repo-v1 "$out/site/current"
    "$bin" ensure Update --root "$root" --repo "$url" --public-key "$out/key.pub" >/dev/null
    while [ -n "$(ls -A "$root/retired" 2>/dev/null)" ]; do sleep 0.05; done
    ln -sfn repo "$out/site/current"
    python3 bench/measure.py --setup "sync; echo 3 > /proc/sys/vm/drop_caches" --disk "$out/fs-$fs" 1 "update on $fs" \
      "'$bin' update --root '$root' >/dev/null" | tee "$out/round-$r-$fs.out" | grep 'round 1' | sed "s/round 1/round $r/"
    while [ -n "$(ls -A "$root/retired" 2>/dev/null)" ]; do sleep 0.05; done
    diff -r "$out/v2/content" "$root"/packs/Update/*/content >/dev/null || { echo "FAIL: the updated tree on $fs differs from v2" >&2; exit 1; }
  done
done

python3 - "$out" "$rounds" "$model_mib" <<'PY'
import json, statistics, sys
sys.path.insert(0, 'bench')
import result
out, rounds, model_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = {fs: [] for fs in ('ext4', 'xfs')}
for r in range(1, rounds + 1):
    for fs in runs:
        for line in open(f'{out}/round-{r}-{fs}.out'):
            if line.startswith('@result '):
                runs[fs].append(json.loads(line[8:])['runners'][f'update on {fs}'])
median = {fs: {k: statistics.median(x[k] for x in rs) for k in ('wall_s', 'cpu_s', 'peak_rss_mib', 'disk_peak_mib')} for fs, rs in runs.items()}
disk = median['xfs']['disk_peak_mib'] / median['ext4']['disk_peak_mib']
time = median['xfs']['wall_s'] / median['ext4']['wall_s']
for fs, m in median.items():
    print(f"update on {fs}: {m['wall_s']:.2f} s, CPU {m['cpu_s']:.2f} s, peak RSS {m['peak_rss_mib']:.1f} MiB, disk at peak {m['disk_peak_mib']:.0f} MiB (medians)")
print(f'xfs / ext4: disk at peak {disk:.2f}x, time {time:.2f}x')
result.emit(runners={f'update on {fs}': {k: round(v, 4) for k, v in m.items()} | {'rounds': rounds} for fs, m in median.items()},
            figures={'disk at peak xfs / ext4': round(disk, 4), 'time xfs / ext4': round(time, 4)}, size_mib=model_mib)
PY
