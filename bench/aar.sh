#!/usr/bin/env bash
# Apple Archive benchmark, on the generated corpus (bench/corpus.py), side by side in one run:
#  (a) `assetpack aar create` (LZFSE, all cores) against `assetpack package` of the same
#      manifest: target aar create no slower (ratio <= 1.0x);
#  (b) our LZFSE archive's size against the reference encoder's (lzfse/lzfse through liblzfse)
#      on the same AA01 stream in the same 4 MiB blocks: target <= 1.10x;
#  (c) `assetpack aar extract` of that archive against the reference C decoder writing the same
#      files: `lzfse -decode` of the same tree as a tar, piped into `tar -x` (the reference `lzfse`
#      command is built with gcc -O3 from the pyliblzfse source distribution into bench/out/):
#      target at least as fast (ratio <= 1.0x).
# Prints median wall times, ratios and peak RSS (bench/measure.py).
# Usage: bench/aar.sh [SIZE_MIB=256] [ROUNDS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-256}; rounds=${2:-3}
root=$PWD
lzfse=$root/bench/out/lzfse
if [ ! -x "$lzfse" ]; then
  mkdir -p bench/out/pyliblzfse
  (cd bench/out/pyliblzfse && python3 -m pip download -q --no-binary :all: --no-deps pyliblzfse -d . \
    && tar -xzf pyliblzfse-*.tar.gz && gcc -O3 -o "$lzfse" pyliblzfse-*/lzfse/src/*.c)
fi
. bench/corpus-setup.sh
echo "corpus: $(du -sh content | cut -f1), $(find content -type f | wc -l) files; $(nproc) cores"

echo "(a) aar create vs package"
python3 "$root/bench/measure.py" "$rounds" \
  aar-create "$bin aar create Manifest.json -o $out/bench.aar >/dev/null" \
  package "$bin package Manifest.json -o $out/bench.pack >/dev/null"

echo "(b) LZFSE size against the reference encoder"
python3 "$root/bench/aar-reference.py" "$out/bench.aar"

echo "(c) aar extract vs lzfse -decode | tar -x"
rm -rf "$out/aar-tree"
"$bin" aar extract "$out/bench.aar" -o "$out/aar-tree" >/dev/null
tar -cf "$out/bench.tar" -C "$out/aar-tree" .
"$lzfse" -encode -i "$out/bench.tar" -o "$out/bench.tar.lzfse"
rm -rf "$out/aar-tree" "$out/bench.tar"
python3 "$root/bench/measure.py" --setup "rm -rf $out/x-\$1 && mkdir -p $out/x-lzfse+tar && sync" "$rounds" \
  aar-extract "$bin aar extract $out/bench.aar -o $out/x-aar-extract >/dev/null" \
  lzfse+tar "$lzfse -decode -i $out/bench.tar.lzfse | tar -x -C $out/x-lzfse+tar"
diff -r "$out/x-aar-extract" "$out/x-lzfse+tar" >/dev/null && echo "trees: identical"
rm -rf "$out/x-aar-extract" "$out/x-lzfse+tar"
