# Sourced by the benchmarks that run the release `assetpack` on the generated corpus, from the
# package root with $size (MiB) set: installs the dependencies, builds (or takes
# ASSETPACK=path/to/assetpack), makes the corpus if needed, and leaves $bin, $out and $corpus set
# and the current directory in $corpus.
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out; corpus=$out/corpus-$size
mkdir -p "$out"
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"
cd "$corpus"
