#!/usr/bin/env bash
# Packaging benchmark: `assetpack package` against `tar -cf - DIR | zstd -3 -T0` on the same
# ~1 GiB corpus (text/JSON, incompressible media, many small files, one model-like file of half
# the size), alternating, several rounds. Prints the median wall-time ratio, the size ratio and
# our peak RSS. Targets: time <= 1.0x, size <= 1.05x, peak RSS <= 256 MiB. Every runner runs
# once, untimed, before the rounds (measure.py --warmup), so that neither is charged for bringing
# the corpus's inodes and pages into memory: the first run after the corpus was evicted takes
# several times as long, and in round 1 that is ours.
# SIZE `small` packs the small-files corpus instead: 100,000 JSON files of ~200 B to 4 KiB, ~80 MB
# in nested folders (bench/corpus.py); `small300` the one of 300,000 such files, ~240 MB. Targets
# there: time <= 0.8x, size <= 1.02x, peak RSS <= 256 MiB, and an index that grows no faster
# than the content, printed as index bytes per file.
# Usage: bench/package.sh [SIZE_MIB=1024|small|small300] [ROUNDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}; rounds=${2:-5}
. bench/corpus-setup.sh
echo "corpus: $(du -sh content | cut -f1), $(find content -type f | wc -l) files; $(nproc) cores"
python3 "$OLDPWD/bench/measure.py" --warmup "$rounds" \
  assetpack "$bin package Manifest.json -o $out/bench.pack >/dev/null" \
  tar+zstd "tar -cf - content | zstd -q -3 -T0 -f -o $out/bench.tar.zst"
ours=$(stat -c %s "$out/bench.pack"); theirs=$(stat -c %s "$out/bench.tar.zst")
python3 -c "print(f'size: assetpack {$ours} B, tar+zstd {$theirs} B -> ratio {$ours/$theirs:.3f}x')"
"$bin" verify "$out/bench.pack" >/dev/null && echo "verify: OK"
files=$(find content -type f | wc -l)
index=$(python3 -c "import struct,sys; f=open(sys.argv[1],'rb'); f.seek(-56,2); print(struct.unpack('<Q', f.read(8))[0])" "$out/bench.pack")
python3 -c "print(f'index: {$index} B for {$files} files ({$index/$files:.2f} B a file)')"
content=$(du -sb content | cut -f1)
python3 "$OLDPWD/bench/result.py" --runner assetpack bytes="$ours"
python3 "$OLDPWD/bench/result.py" --runner tar+zstd bytes="$theirs"
python3 "$OLDPWD/bench/result.py" size_mib="$((content >> 20))" files="$files" "size assetpack / tar+zstd=$(python3 -c "print(round($ours / $theirs, 4))")" \
  index_bytes_per_file="$(python3 -c "print(round($index / $files, 2))")"
