#!/usr/bin/env bash
# Renders the HTML audit report of the test fixtures in headless Chromium and saves a PNG, to
# check by eye that the report is readable. Not run by CI.
#   scripts/audit-screenshot.sh [OUT.png]      (default: .tmp/audit-screenshot.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.tmp/audit-screenshot.png}"
mkdir -p "$(dirname "$out")" .tmp
if ! command -v chromium >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
swift build --product assetpack >/dev/null
html="$PWD/.tmp/audit-fixtures.html"
.build/debug/assetpack audit Tests/AssetPackMigrationTests/Fixtures/ODR --html "$html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot="$PWD/$out" \
    --window-size=1280,2000 "file://$html" 2>/dev/null
echo "$out ($(stat -c %s "$out") bytes)"
