#!/usr/bin/env bash
# The main job on the bundled example (examples/starter): installs what it needs, builds, then
# validates, packages, inspects, verifies and extracts every pack. Output goes to .demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product assetpack
ap=$PWD/.build/release/assetpack
out=$PWD/.demo
rm -rf "$out"; mkdir -p "$out/packs"
cd examples/starter
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
step "$ap" validate manifests/*.json
for m in manifests/*.json; do
  id=$(basename "$m" .json)
  step "$ap" package "$m" -o "$out/packs/$id.pack"
done
step "$ap" inspect "$out/packs/Tutorial.pack"
step "$ap" verify "$out/packs/World1.pack"
step "$ap" extract "$out/packs/Voice-de.pack" -o "$out/extracted/Voice-de"
step ls -R "$out/extracted"
echo; echo "Done: packs in $out/packs"
