# Sourced by the benchmarks that install the generated corpus from a repository, from the package
# root with $size (MiB) and $name (their folder under bench/out) set: installs the dependencies,
# builds the release `assetpack` (or takes ASSETPACK=path/to/assetpack), makes the corpus if
# needed and publishes it into a fresh $out/repo. Leaves $bin, $out, $corpus, $pack (the pack
# file, relative to $out/repo) and $pack_size set.
scripts/install-deps.sh
if [ -n "${ASSETPACK:-}" ]; then bin=$(realpath "$ASSETPACK"); else
  swift build -c release --product assetpack >/dev/null
  bin=$(swift build -c release --show-bin-path)/assetpack
fi
out=$PWD/bench/out/$name; corpus=$PWD/bench/out/corpus-$size
[ -f "$corpus/Manifest.json" ] || python3 bench/corpus.py "$corpus" "$size"
rm -rf "$out"; mkdir -p "$out/repo"
"$bin" keygen -o "$out/key" >/dev/null 2>&1
(cd "$corpus" && "$bin" publish Manifest.json --repo "$out/repo" --key "$out/key" >/dev/null)
pack=$(cd "$out/repo" && ls packs/bench-corpus/*.pack)
pack_size=$(stat -c %s "$out/repo/$pack")
