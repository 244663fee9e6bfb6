#!/usr/bin/env bash
# Upload benchmark: `assetpack upload` to moto_server (S3 in a Python process) on loopback, with
# --jobs 4 (the default) and --jobs 1, against the AWS CLI's `aws s3 cp --recursive` (awscli
# from PyPI with its defaults: multipart from 8 MiB in 8 MiB parts, 10 requests at once). Our
# defaults: multipart from 64 MiB in 16 MiB parts. Two repositories:
#   pack:  the published ~1 GiB benchmark corpus (one large pack file and the catalog);
#   files: FILES small pack files of FILE_KIB each and a catalog (per-request costs dominate).
# For each, the three runners alternate, ROUNDS rounds, each run into a freshly started moto
# (moto keeps objects in memory); prints median wall-time ratios and peak RSS, then checks that
# our upload arrived intact.
#
#   bench/upload.sh [ROUNDS=3] [SIZE_MIB=1024]      environment: FILES=400 FILE_KIB=512
#
# ASSETPACK=path/to/assetpack runs that binary instead of building.
#
# Repositories are read once beforehand, so they are in the page cache for every runner. moto
# is the bottleneck of any S3 client here (one Python process parsing every request): the
# figures compare clients against one slow store, not against S3 itself.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; size=${2:-1024}
scripts/install-deps.sh --bench
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/upload; corpus=$PWD/bench/out/corpus-$size
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"

rm -rf "$out"; mkdir -p "$out/pack" "$out/files/packs"
"$bin" keygen -o "$out/key" > /dev/null 2>&1
(cd "$corpus" && "$bin" publish Manifest.json --repo "$out/pack" --key "$out/key" > /dev/null)
for i in $(seq "${FILES:-400}"); do head -c "$((${FILE_KIB:-512} << 10))" /dev/urandom > "$out/files/packs/$i.pack"; done
echo '{}' > "$out/files/catalog.json"
echo "$(nproc) cores; $(aws --version 2>&1 | cut -d' ' -f1)"

source bench/moto.sh
trap 'stop_moto "$out/moto"' EXIT
restart_moto "$out/moto" bench
url=http://127.0.0.1:$MOTO_PORT
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_DEFAULT_REGION=us-east-1

for repo in pack files; do
  find "$out/$repo" -type f -exec cat {} + > /dev/null
  echo "== $repo: $(du -sb "$out/$repo" | cut -f1) B in $(find "$out/$repo" -type f | wc -l) files," \
       "largest $(find "$out/$repo" -type f -printf '%s\n' | sort -n | tail -1) B"
  python3 bench/measure.py --label "$repo:" --setup "cd '$PWD' && . bench/moto.sh && MOTO_PORT=$MOTO_PORT restart_moto '$out/moto' bench" "$rounds" \
    jobs-4 "'$bin' upload '$out/$repo' s3://bench/repo --endpoint $url --jobs 4 > /dev/null" \
    jobs-1 "'$bin' upload '$out/$repo' s3://bench/repo --endpoint $url --jobs 1 > /dev/null" \
    aws-s3-cp "aws s3 cp '$out/$repo' s3://bench/repo --recursive --endpoint-url $url --only-show-errors"

  # The upload must arrive byte for byte: a fresh moto, our default upload, every file read back.
  restart_moto "$out/moto" bench
  "$bin" upload "$out/$repo" s3://bench/repo --endpoint "$url" > /dev/null
  (cd "$out/$repo" && find . -type f -printf '%P\n') | while read -r file; do
    curl -sf --aws-sigv4 aws:amz:us-east-1:s3 -u bench:bench "$url/bench/repo/$file" | cmp -s - "$out/$repo/$file" \
      || { echo "verify: $file differs in the store" >&2; exit 1; }
  done
  echo "verify: every file of the repository reads back identical from the store"
  for runner in jobs-4 jobs-1 aws-s3-cp; do
    python3 bench/result.py --runner "$repo: $runner" size_mib="$(( $(du -sb "$out/$repo" | cut -f1) >> 20 ))"
  done
done
python3 bench/result.py size_mib="$size"
