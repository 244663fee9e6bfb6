# Sourced by the kill benchmarks after their last run: defines check_install_outcome ROOT WHAT,
# which checks that the corpus is installed in ROOT exactly (the tree equals the corpus, no staging
# left), then sums the pack bytes nginx served over all runs ($NGINX_LOG) against $pack_size and
# passes when at most 10 % was fetched again. WHAT says what happened ("after 20 kills").
check_install_outcome() {
  local root=$1 what=$2 installed fetched requests
  installed=$(echo "$root"/packs/bench-corpus/*/)
  diff -r "$corpus/content" "$installed/content" || { echo "FAIL: the installed tree differs from the corpus" >&2; exit 1; }
  [ -z "$(ls -A "$root/staging" 2>/dev/null)" ] || { echo "FAIL: staging left behind: $(ls "$root/staging")" >&2; exit 1; }
  echo "verify: installed tree equals the corpus $what"
  fetched=$(awk '$1 ~ /\.pack$/ { s += $3 } END { printf "%.0f\n", s }' "$NGINX_LOG")
  requests=$(awk '$1 ~ /\.pack$/' "$NGINX_LOG" | wc -l)
  python3 - "$fetched" "$pack_size" "$requests" "$size" "$what" <<'PY'
import sys
fetched, size, requests = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
extra = 100 * (fetched - size) / size
print(f"pack bytes fetched over all runs: {fetched} B in {requests} requests; pack {size} B")
print(f"re-downloaded extra: {extra:.2f} % -> {'PASS' if extra <= 10 else 'FAIL'} (limit 10 %)")
sys.path.insert(0, 'bench')
import result
result.emit(runners={'assetpack': {'bytes': fetched}},
            figures={'re-downloaded extra %': round(extra, 2), 'requests': requests, 'pack bytes': size, 'outcome': sys.argv[5]},
            size_mib=int(sys.argv[4]))
sys.exit(0 if extra <= 10 else 1)
PY
}
