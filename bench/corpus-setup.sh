# Sourced by the benchmarks that run the release `assetpack` on the generated corpus, from the
# package root with $size (MiB) set: installs the dependencies, builds, makes the corpus if
# needed, and leaves $bin, $out and $corpus set and the current directory in $corpus.
scripts/install-deps.sh
swift build -c release --product assetpack >/dev/null
bin=$PWD/.build/release/assetpack
out=$PWD/bench/out; corpus=$out/corpus-$size
mkdir -p "$out"
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"
cd "$corpus"
