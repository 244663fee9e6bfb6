#!/usr/bin/env bash
# The main job, end to end, on the bundled example (examples/starter): installs what it needs and
# builds; validates and packages the manifests and checks the packs; publishes them as a signed
# repository; serves it over HTTPS with a local CA made on the spot; then, as a client, runs the
# install step (essential + prefetch packs), fetches an on-demand pack with progress, reads a
# file from the merged namespace, shows status and removes a pack; the agent takes over the root
# and finishes a detached install with no client waiting; a level is edited, published
# again (with a binary patch from the version installed), and the client updates by the patch;
# finally the same folder gets Apple Archives and Apple's download manifest for Apple devices.
# The repository is signed in root mode: an offline root key names the catalog and timestamp
# keys, and the client pins the root key. Everything goes to .demo/ (the example is copied there,
# so the edit leaves examples/ alone).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product assetpack
ap=$PWD/.build/release/assetpack
out=$PWD/.demo
rm -rf "$out"; mkdir -p "$out/packs"
server=; agent=
trap '[ -n "$agent" ] && kill -TERM "$agent" 2>/dev/null; [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true' EXIT
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
cp -R examples/starter "$out/src"
cd "$out/src"

# 1. Manifests and packs.
step "$ap" validate manifests/*.json
for m in manifests/*.json; do
  "$ap" package "$m" -o "$out/packs/$(basename "$m" .json).pack"
done
step "$ap" inspect "$out/packs/Tutorial.pack"
step "$ap" verify "$out/packs/World1.pack"
step "$ap" extract "$out/packs/Voice-de.pack" -o "$out/extracted/Voice-de"

# 2. A signed repository, served over HTTPS by a local CA: an offline root key names the online
#    catalog and timestamp keys (roots/1.root.json); clients pin only the root key.
step "$ap" keygen --root -o "$out/root.key"
step "$ap" keygen -o "$out/publisher.key"
step "$ap" keygen -o "$out/timestamp.key"
step "$ap" rotate --repo "$out/repo" --root-key "$out/root.key" --catalog-key "$out/publisher.key.pub" --timestamp-key "$out/timestamp.key.pub"
step "$ap" publish manifests/*.json --repo "$out/repo" --key "$out/publisher.key" --timestamp-key "$out/timestamp.key" --expires 7d
"$ap" serve "$out/repo" --port 0 --https --tls-dir "$out/tls" --access-log "$out/access.log" > "$out/serve.out" &
server=$!
for _ in $(seq 50); do grep -q '^Serving' "$out/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^Serving .* at \(https:[^ ]*\)$/\1/p' "$out/serve.out")
echo; echo "Serving the repository at $url (CA: $out/tls/ca.pem)"
step "$ap" verify-catalog "$url" --root-key "$out/root.key.pub" --ca "$out/tls/ca.pem"

# 3. The client.
root=$out/device
step "$ap" install --repo "$url" --root "$root" --root-key "$out/root.key.pub" --ca "$out/tls/ca.pem"
step "$ap" ensure Voice-de --root "$root"
step "$ap" cat Tutorial/Videos/Introduction.srt --root "$root" | head -4
step "$ap" ls --root "$root"
step "$ap" status --root "$root"
step "$ap" remove World1 --root "$root"
step "$ap" status World1 --root "$root"

# 4. The agent owns the root: a detached request returns at once and finishes in the agent.
sock=$root/agent.sock
"$ap" agent --root "$root" 2> "$out/agent.log" &
agent=$!
for _ in $(seq 300); do curl -sf --unix-socket "$sock" http://agent/v1/status >/dev/null 2>&1 && break; sleep 0.02; done
step curl -s -X POST --unix-socket "$sock" 'http://agent/v1/packs/World1/ensure?detach=1'
for _ in $(seq 600); do curl -s --unix-socket "$sock" http://agent/v1/packs/World1 | grep -q '"upToDate"' && break; sleep 0.05; done
step curl -s --unix-socket "$sock" http://agent/v1/packs/World1
kill -TERM "$agent"; wait "$agent" || true; agent=
cat "$out/agent.log"

# 5. An update as small as the edit: one cell of a level changes; publish makes a binary patch
#    from the installed version, `diff` says what a client on it fetches, `update` fetches it.
python3 - Content/Levels/World1/level2.json <<'PY'
import sys
p = sys.argv[1]; text = open(p).read()
open(p, "w").write(text.replace('"level": 2', '"level": 2, "edited": true', 1))
PY
step "$ap" publish manifests/*.json --repo "$out/repo" --key "$out/publisher.key" --timestamp-key "$out/timestamp.key" --expires 7d
step "$ap" diff --repo "$out/repo"
step "$ap" update --root "$root"
step "$ap" cat Levels/World1/level2.json --root "$root" | head -4

# 6. Apple devices from the same folder: one pack as ba-package makes it, then every pack as an
#    Apple Archive with Apple's download manifest, which the running server answers as ba-serve
#    does (/manifest?platform=iOS, /assets/<id> by range).
step "$ap" aar create manifests/Tutorial.json -o "$out/Tutorial.aar"
step "$ap" publish manifests/*.json --repo "$out/repo" --key "$out/publisher.key" --timestamp-key "$out/timestamp.key" --expires 7d \
  --apple-base-url "${url}assets"
step curl -sS --fail --cacert "$out/tls/ca.pem" "${url}manifest?platform=iOS"
step "$ap" fetch "${url}assets/Tutorial" -o "$out/Tutorial-served.aar" --ca "$out/tls/ca.pem"
step "$ap" aar list "$out/Tutorial-served.aar"
echo; echo "Done. Packs: $out/packs, repository: $out/repo (Apple devices: $out/repo/apple), client root: $root"
