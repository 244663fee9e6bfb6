#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test target (with arguments,
# only what they select: they go to `swift test`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
python3 scripts/check-layers.py
export TMPDIR="${TMPDIR_OVERRIDE:-$PWD/.tmp}"
mkdir -p "$TMPDIR"
swift build --build-tests
if [ "$#" -gt 0 ]; then exec swift test --skip-build "$@"; fi
# Every test, in two runs. The suites that must catch a throttled download while it is under
# way (cancel it, kill a process mid-transfer, see it pending, split its parts) run on their own
# after the rest: among the whole suite's hundreds of concurrent tests, a test's task can be
# starved for longer than its download lasts, and the download then finishes before the test
# acts. Alone they have the machine to themselves, and they still run all together.
timed='CancellationTests|PartSplitTests|CrashConsistencyTests|LeavingMidDownloadTests|PendingDownloadTests|AgentProcessTests|AgentLifecycleTests|AgentClientCLITests|AgentAPITests|AppleParityTests'
swift test --skip-build --skip "$timed"
swift test --skip-build --filter "$timed"
