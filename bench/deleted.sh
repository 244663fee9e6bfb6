# Sourced by the benchmarks that create many files: on this VM's disk (ext4 without a journal),
# inodes freed in the last 1-6 minutes are skipped when new ones are allocated
# (`recently_deleted` in a profile), so a run that starts right after any benchmark deleted its
# outputs creates files much more slowly, and whichever runner goes first pays the most. One
# marker for all of them (bench/out/.deleted-at): a script records when it deleted its outputs,
# and the next one, whichever it is, waits until 6 minutes have passed.
#
#   wait_for_deleted_inodes    sleeps until 6 minutes after the last recorded deletion
#   record_deletion            records one now (call it after deleting)

DELETED_AT=$PWD/bench/out/.deleted-at

wait_for_deleted_inodes() {
  local wait
  [ -f "$DELETED_AT" ] || return 0
  wait=$((360 - $(date +%s) + $(cat "$DELETED_AT")))
  if (( wait > 0 )); then
    echo "waiting ${wait} s for the files the last run deleted to age (ext4 skips recently freed inodes)"
    sleep "$wait"
  fi
}

record_deletion() { mkdir -p "$(dirname "$DELETED_AT")"; date +%s > "$DELETED_AT"; }
