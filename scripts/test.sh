#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
python3 scripts/check-layers.py
export TMPDIR="${TMPDIR_OVERRIDE:-$PWD/.tmp}"
mkdir -p "$TMPDIR"
swift build --build-tests
swift test --skip-build "$@"
