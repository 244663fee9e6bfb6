#!/usr/bin/env bash
# Fuzzes the parsers that read untrusted bytes, with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh TARGET SECONDS     one target for SECONDS of wall time
#   scripts/fuzz.sh --all SECONDS      every target, SECONDS each, one after the other
#   scripts/fuzz.sh --build            only build the fuzz binary and the seed corpora
#   scripts/fuzz.sh --list             the target names
#
# Targets: manifest, pack-index, catalog, trust, plist, keyvalues, http, zstd, patch, sealed, lzfse, aar (what each covers:
# Tests/FuzzRegressionTests/Targets/FuzzTarget.swift and docs/RELIABILITY.md).
#
# SwiftPM does not drive -sanitize=fuzzer, so this script compiles the modules the targets need
# (AssetPackFormat, AppleArchive, AssetPackPackaging, AssetPackServer, AssetPackMigration and their C shims)
# directly with swiftc -sanitize=fuzzer,address, then links them with the target logic
# (Tests/FuzzRegressionTests/Targets, shared with the regression test) and the libFuzzer entry
# point (Fuzz/FuzzEntry.swift) into one binary; ASSETPACK_FUZZ_TARGET picks the target. It is
# rebuilt piecewise, only where a source is newer than what was built from it (a first build
# takes minutes: the four modules with instrumentation). Nothing of this is part of `swift build` or CI:
# CI replays the kept crashes through FuzzRegressionTests instead.
#
# Everything goes to .fuzz/ (git-ignored; FUZZ_WORK=DIR puts it elsewhere): build/, seeds/
# (made from the test fixtures, the example manifests, packs and a catalog published with the
# assetpack binary), corpus/ (what libFuzzer keeps), crashes/, logs/. A crash is minimized and
# copied to Tests/FuzzRegressionTests/FuzzRegressions/TARGET/, where the replay test picks it up;
# the script then exits 1. Each run ends with a line "fuzz: TARGET runs=N exec/s=R crashes=C".
# Extra libFuzzer flags can be given in FUZZ_FLAGS (e.g. FUZZ_FLAGS=-jobs=2).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${FUZZ_WORK:-$root/.fuzz}
targets=(manifest pack-index catalog trust plist keyvalues http zstd patch sealed lzfse aar)
regressions=$root/Tests/FuzzRegressionTests/FuzzRegressions
bin=$work/build/bin/assetpack-fuzz

die() { echo "fuzz.sh: $*" >&2; exit 2; }
usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# Newer than $1 (a file): whether any file under the other arguments is (or $1 is missing).
stale() { local out=$1; shift; [ ! -e "$out" ] || [ -n "$(find "$@" -type f -newer "$out" | head -1)" ]; }

# Compiles each C shim and Swift module only when its sources changed, then links.
build_binary() {
  local modules=(AssetPackFormat AppleArchive AssetPackPackaging AssetPackServer AssetPackMigration)
  local cshims=(CZstd CCrypto CX509 CMicroHTTPD CPOSIX CAppleCompression)
  local b=$work/build started=$SECONDS rebuilt=
  mkdir -p "$b/obj" "$b/modules" "$b/bin"
  local map=$b/modules/module.modulemap cflags=()
  : > "$map.new"
  for c in "${cshims[@]}"; do
    local header
    header=$(ls "$root/Sources/$c/include/"*.h)
    printf 'module %s {\n  header "%s"\n  export *\n}\n' "$c" "$header" >> "$map.new"
    cflags+=(-Xcc -I"$root/Sources/$c/include")
    if stale "$b/obj/$c.o" "Sources/$c"; then
      echo "fuzz: compiling $c" >&2
      clang -c -O1 -g -fsanitize=address -I "$root/Sources/$c/include" "Sources/$c/shim.c" -o "$b/obj/$c.o"
    fi
  done
  cmp -s "$map.new" "$map" || mv "$map.new" "$map"; rm -f "$map.new"
  local swiftflags=(-O -g -enable-testing -sanitize=fuzzer,address -package-name AssetPacks -parse-as-library
                    -I "$b/modules" -Xcc -fmodule-map-file="$map" "${cflags[@]}")
  for m in "${modules[@]}"; do
    # A module is rebuilt when its sources or a module before it changed.
    if [ -n "$rebuilt" ] || stale "$b/obj/$m.o" "Sources/$m" "$map"; then
      echo "fuzz: compiling $m (swiftc -sanitize=fuzzer,address)" >&2
      local files
      mapfile -t files < <(find "Sources/$m" -name '*.swift' | sort)
      swiftc "${swiftflags[@]}" -module-name "$m" -wmo -emit-module -emit-module-path "$b/modules/$m.swiftmodule" \
        -c -o "$b/obj/$m.o" "${files[@]}"
      rebuilt=1
    fi
  done
  if [ -n "$rebuilt" ] || stale "$bin" Fuzz Tests/FuzzRegressionTests/Targets; then
    echo "fuzz: linking $bin" >&2
    swiftc "${swiftflags[@]}" -module-name AssetPackFuzz Fuzz/FuzzEntry.swift Tests/FuzzRegressionTests/Targets/*.swift \
      "$b/obj/"*.o -use-ld=lld -lzstd -lcrypto -lmicrohttpd -lz -llzma -llz4 -o "$bin.new"
    mv "$bin.new" "$bin"
    echo "fuzz: built in $((SECONDS - started)) s" >&2
  fi
}

assetpack_binary() {
  if [ ! -x .build/debug/assetpack ]; then swift build --product assetpack >&2; fi
  echo "$root/.build/debug/assetpack"
}

# Seeds: small valid (and a few invalid) inputs of each kind, from what the tests already use.
build_seeds() {
  local s=$work/seeds
  # Made again when the list of targets changed (a new target needs its seeds).
  # (and when the seeds' revision below changed: seeds-3 for patch files of format 3).
  local revision="${targets[*]} seeds-3"
  [ "$(cat "$s/.complete" 2>/dev/null)" = "$revision" ] && return
  rm -rf "$s"; mkdir -p "$s"; for t in "${targets[@]}"; do mkdir -p "$s/$t"; done
  local ap tmp
  ap=$(assetpack_binary)
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-seeds.XXXXXX")
  # manifest: the example manifests, the template, every small JSON fixture.
  cp examples/starter/manifests/*.json "$s/manifest/"
  "$ap" template > "$s/manifest/template.json" 2>/dev/null || true
  find Tests -name '*.json' -size -64k -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$s/manifest/$(echo "$f" | tr '/' '_')"; done
  # pack-index: the example packs, packaged here.
  for m in examples/starter/manifests/*.json; do
    (cd examples/starter && "$ap" package "manifests/$(basename "$m")" -o "$s/pack-index/$(basename "$m" .json).pack" >/dev/null)
  done
  # catalog: a repository published from the examples with a new key; the envelope and its payload.
  "$ap" keygen -o "$tmp/publisher.key" >/dev/null 2>&1
  # pack-index: pack files with bases, from a published device variant group whose files are
  # one compressible chunk each: `astc` takes shared.bin from the default's file (version 4),
  # `astc-8GiB` takes it from there and astc.bin from astc's file (version 5).
  mkdir -p "$tmp/variants"
  python3 - "$tmp/variants" <<'PY'
import json, sys
d = sys.argv[1]
for name, text in [("shared", b"shared across the group "), ("bc7", b"block compression seven "), ("astc", b"adaptive scalable texture "), ("hi", b"high resolution level ")]:
    open(f"{d}/{name}.bin", "wb").write((text * 4000)[:70000])
def manifest(files, variant=None):
    m = {"assetPackID": "Tex", "downloadPolicy": {"onDemand": {}}, "platforms": ["iOS"], "fileSelectors": [{"file": f} for f in files]}
    if variant: m["variant"] = variant
    return m
for name, files, variant in [("default", ["shared.bin", "bc7.bin"], None), ("astc", ["shared.bin", "astc.bin"], {"textureFormat": "astc"}),
                             ("astc8", ["shared.bin", "astc.bin", "hi.bin"], {"textureFormat": "astc", "minimumMemory": "8GiB"})]:
    json.dump(manifest(files, variant), open(f"{d}/{name}.json", "w"))
PY
  (cd "$tmp/variants" && "$ap" publish default.json astc.json astc8.json --repo repo --key "$tmp/publisher.key" >/dev/null)
  for f in "$tmp"/variants/repo/packs/Tex/*.pack; do
    v=$(python3 -c 'import struct,sys; print(struct.unpack("<I", open(sys.argv[1],"rb").read()[8:12])[0])' "$f")
    [ "$v" = 2 ] || cp "$f" "$s/pack-index/variant-v$v.pack"
  done
  (cd examples/starter && "$ap" publish manifests/*.json --repo "$tmp/repo" --key "$tmp/publisher.key" --expires 7d >/dev/null)
  cp "$tmp/repo/catalog.json" "$s/catalog/catalog.json"
  python3 -c 'import json,base64,sys; sys.stdout.buffer.write(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))' \
    "$tmp/repo/catalog.json" > "$s/catalog/payload.json"
  # trust: a root chain started in that repository, the timestamp of a publish, their payloads.
  "$ap" keygen -o "$tmp/root.key" >/dev/null 2>&1
  "$ap" keygen -o "$tmp/timestamp.key" >/dev/null 2>&1
  "$ap" rotate --repo "$tmp/repo" --root-key "$tmp/root.key" --catalog-key "$tmp/publisher.key.pub" --timestamp-key "$tmp/timestamp.key.pub" >/dev/null
  (cd examples/starter && "$ap" publish manifests/*.json --repo "$tmp/repo" --key "$tmp/publisher.key" --timestamp-key "$tmp/timestamp.key" --expires 7d >/dev/null)
  for f in root timestamp; do
    cp "$tmp/repo/$f.json" "$s/trust/$f.json"
    python3 -c 'import json,base64,sys; sys.stdout.buffer.write(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))' \
      "$tmp/repo/$f.json" > "$s/trust/$f-payload.json"
  done
  # plist: the Xcode project fixtures.
  find Tests -name project.pbxproj -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$s/plist/$(echo "$f" | tr '/' '_')"; done
  printf '{ a = (1, "two", <0fA1>); "b\\n" = { c = d; }; }' > "$s/plist/small.plist"
  # keyvalues: the Steam build script fixtures.
  find Tests -name '*.vdf' -print0 | while IFS= read -r -d '' f; do
    cp "$f" "$s/keyvalues/$(echo "$f" | tr '/' '_')"; done
  # http: target, Range, If-Range, method (one per line).
  printf '/catalog.json\nbytes=0-99,50-149\n\nGET' > "$s/http/overlap"
  printf '/packs/a.pack\nbytes=0-,0-,0-,0-\n\nGET' > "$s/http/amplify"
  printf '/packs/a.pack\nbytes=-10\n"x"\nGET' > "$s/http/suffix"
  printf '/catalog.json\0.pack\n\n\nGET' > "$s/http/nul"
  printf '/packs/%%2e%%2e/catalog.json\nbytes=1-2,4-5,900-\n\nHEAD' > "$s/http/encoded"
  printf '/escape\n\n\nGET' > "$s/http/symlink"
  printf '/inside\nbytes=10-20\n\nGET' > "$s/http/inside"
  # zstd: frames of fixture files with their size in front (4 bytes, little-endian).
  local n=0
  for f in examples/starter/Content/*/*/*; do
    [ -f "$f" ] || continue
    n=$((n + 1)); [ $n -le 8 ] || break
    { python3 -c 'import os,struct,sys; sys.stdout.buffer.write(struct.pack("<I", os.path.getsize(sys.argv[1])))' "$f"
      zstd -q -c -3 "$f"; } > "$s/zstd/$n.zst"
  done
  printf '\0\0\0\0' > "$s/zstd/empty"
  # patch: the patch file of a published update (a file with scattered 16-byte edits), with its
  # table offset in the last 4 bytes (little-endian).
  mkdir -p "$tmp/patch/src"
  python3 -c 'import random,sys; r=random.Random(1); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(300000)))' > "$tmp/patch/src/f.bin"
  printf '{"assetPackID":"P","downloadPolicy":{"onDemand":{}},"fileSelectors":[{"directory":"src"}],"platforms":["iOS"]}' > "$tmp/patch/m.json"
  # sealed: the same two versions published sealed too (below).
  for r in repo sealed; do
    seal=(); [ $r = sealed ] && seal=(--encrypt P --key-store "$tmp/keys.json")
    (cd "$tmp/patch" && "$ap" publish m.json --repo $r --key "$tmp/publisher.key" --no-cache "${seal[@]}" >/dev/null)
  done
  printf 'edited-record-16' | dd of="$tmp/patch/src/f.bin" bs=1 seek=150000 conv=notrunc 2>/dev/null
  for r in repo sealed; do
    seal=(); [ $r = sealed ] && seal=(--key-store "$tmp/keys.json")
    (cd "$tmp/patch" && "$ap" publish m.json --repo $r --key "$tmp/publisher.key" --no-cache "${seal[@]}" >/dev/null)
  done
  for f in "$tmp"/patch/repo/packs/P/*.patch; do
    [ -f "$f" ] || continue
    python3 -c 'import json,base64,struct,sys
p=json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["packs"][0]["patches"][0]
sys.stdout.buffer.write(open(sys.argv[2],"rb").read()+struct.pack("<I",p["table"]["offset"]))' "$tmp/patch/repo/catalog.json" "$f" > "$s/patch/update.patch"
  done
  # sealed: the same update published sealed; its content key, the region's offset (8 bytes,
  # little-endian) and the index region of each version, and the sealed patch table region.
  for f in "$tmp"/patch/sealed/packs/P/*.patch; do
    [ -f "$f" ] || continue
    python3 -c 'import base64,json,struct,sys
key=base64.b64decode(json.load(open(sys.argv[1]))["packs"]["P"][0])
t=json.loads(base64.b64decode(json.load(open(sys.argv[2]))["payload"]))["packs"][0]["patches"][0]["table"]
data=open(sys.argv[3],"rb").read()
sys.stdout.buffer.write(key+struct.pack("<Q",t["offset"])+data[t["offset"]:t["offset"]+t["length"]])' "$tmp/keys.json" "$tmp/patch/sealed/catalog.json" "$f" > "$s/sealed/patch-table"
  done
  for f in "$tmp"/patch/sealed/packs/P/*.pack; do
    python3 -c 'import base64,json,struct,sys
key=base64.b64decode(json.load(open(sys.argv[1]))["packs"]["P"][0])
data=open(sys.argv[2],"rb").read()
offset,length=struct.unpack("<QQ",data[-64:-48])
sys.stdout.buffer.write(key+struct.pack("<Q",offset)+data[offset:offset+length])' "$tmp/keys.json" "$f" > "$s/sealed/$(basename "$f" .pack | cut -c1-16)"
  done
  # lzfse: the reference encoder's streams of fixture files (bvxn, bvx2, bvx-), and Apple's own
  # stream from the Sparkle archive cut to its first 4 KiB.
  python3 -c 'import liblzfse,sys,os
for i,f in enumerate(sys.argv[2:]):
    open(os.path.join(sys.argv[1], "%d.lzfse" % i), "wb").write(liblzfse.compress(open(f, "rb").read()[:60000]))
import random
open(os.path.join(sys.argv[1], "random.lzfse"), "wb").write(liblzfse.compress(random.Random(1).randbytes(300)))' \
    "$s/lzfse" $(ls examples/starter/manifests/*.json | head -3) $(find examples/starter/Content -type f | head -3) README.md
  for sparkle in ../shared/testdata/apple-archive/SparkleTestCodeSignApp.aar ../../shared/testdata/apple-archive/SparkleTestCodeSignApp.aar; do
    [ -f "$sparkle" ] && dd if="$sparkle" of="$s/lzfse/sparkle-head" bs=1 skip=28 count=4096 2>/dev/null && break
  done
  # aar: small archives, a bare AA01 stream and the same in each container the reader decodes
  # (zlib, xz, LZ4 in Apple's framing; one chunk and several), written by Python.
  python3 - "$s/aar" <<'PY'
import lzma, struct, sys, zlib
import lz4.block
def header(fields):
    body = b''.join(fields)
    return b'AA01' + struct.pack('<H', len(body) + 6) + body
def entry(typ, path, data=None, link=None):
    f = [b'TYP1' + typ, b'PATP' + struct.pack('<H', len(path)) + path, b'MOD2' + struct.pack('<H', 0o644)]
    if link is not None: f.append(b'LNKP' + struct.pack('<H', len(link)) + link)
    f.append(b'MTMT' + struct.pack('<qI', 1428952187, 5))
    if data is not None: f.append(b'DATA' + struct.pack('<H', len(data)))
    return header(f) + (data or b'')
aa = entry(b'D', b'') + entry(b'D', b'Contents') + entry(b'F', b'Contents/a.txt', b'hello ' * 20) + entry(b'L', b'Contents/l', link=b'a.txt')
aa += header([b'TYP1F', b'PATP' + struct.pack('<H', 1) + b'x', b'XATA' + struct.pack('<H', 3), b'DATB' + struct.pack('<I', 2)]) + b'xyzab'
def lz4frame(raw):
    b = lz4.block.compress(raw, store_size=False)
    return b'bv41' + struct.pack('<II', len(raw), len(b)) + b + b'bv4-' + struct.pack('<I', 0) + b'bv4$'
def container(letter, block, codec):
    out = b'pbz' + letter + struct.pack('>Q', block)
    for i in range(0, len(aa), block):
        raw = aa[i:i + block]; c = codec(raw)
        if len(c) >= len(raw): c = raw
        out += struct.pack('>QQ', len(raw), len(c)) + c
    return out
open(sys.argv[1] + '/bare.aa', 'wb').write(aa)
for name, letter, codec in [('zlib', b'z', lambda r: zlib.compress(r)), ('xz', b'x', lambda r: lzma.compress(r)), ('lz4', b'4', lz4frame)]:
    open(sys.argv[1] + '/' + name + '.aar', 'wb').write(container(letter, 1 << 20, codec))
    open(sys.argv[1] + '/' + name + '-chunks.aar', 'wb').write(container(letter, 100, codec))
PY
  rm -rf "$tmp"
  echo "$revision" > "$s/.complete"
}

# Runs one target; prints the summary line; returns 1 if it found a crash.
run_target() {
  local t=$1 seconds=$2
  local corpus=$work/corpus/$t crashes=$work/crashes/$t log=$work/logs/$t.log
  mkdir -p "$corpus" "$crashes" "$work/logs" "$work/tmp"
  local maxlen=4096
  [ "$t" = pack-index ] && maxlen=16384
  [ "$t" = catalog ] || [ "$t" = trust ] || [ "$t" = plist ] && maxlen=32768
  # lzfse: room for whole bvx2 streams, and for inputs the encoder codes as bvx2 (4 KiB and up).
  [ "$t" = lzfse ] && maxlen=65536
  set +e
  # shellcheck disable=SC2086
  TMPDIR=$work/tmp ASSETPACK_FUZZ_TARGET=$t "$bin" -max_total_time="$seconds" -max_len=$maxlen -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/" ${FUZZ_FLAGS:-} "$corpus" "$work/seeds/$t" > "$log" 2>&1
  set -e
  local runs rate found=0
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ -z "$runs" ] && ! grep -q '^==[0-9]*==ERROR\|^SUMMARY: \|deadly signal' "$log"; then
    echo "fuzz: $t did not run (see $log): $(tail -1 "$log")" >&2
    return 1
  fi
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  for crash in "$crashes"/crash-* "$crashes"/oom-* "$crashes"/timeout-* "$crashes"/leak-*; do
    [ -f "$crash" ] || continue
    found=$((found + 1))
    local kept=$regressions/$t/$(basename "$crash")
    mkdir -p "$regressions/$t"
    TMPDIR=$work/tmp ASSETPACK_FUZZ_TARGET=$t "$bin" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$kept" \
      "$crash" > "$work/logs/$t.minimize.log" 2>&1 || true
    [ -f "$kept" ] || cp "$crash" "$kept"
    mv "$crash" "$crashes/seen-$(basename "$crash")"
    echo "fuzz: $t crashed; minimized input kept as ${kept#"$root"/} (log: ${log#"$root"/})" >&2
  done
  echo "fuzz: $t runs=${runs:-0} exec/s=${rate:-0} crashes=$found"
  [ $found -eq 0 ]
}

[ $# -ge 1 ] || usage
case $1 in
  --list) printf '%s\n' "${targets[@]}"; exit 0 ;;
  --build) mkdir -p "$work"; exec 9> "$work/build.lock"; flock 9; build_binary; build_seeds; exit 0 ;;
  --all) [ $# -eq 2 ] || usage; selected=("${targets[@]}"); seconds=$2 ;;
  -*) usage ;;
  *) [ $# -eq 2 ] || usage
     [[ " ${targets[*]} " == *" $1 "* ]] || die "unknown target \"$1\" (targets: ${targets[*]})"
     selected=("$1"); seconds=$2 ;;
esac
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a whole number ≥ 1, not \"$seconds\""
# The Swift runtime's backtracer would take seconds per crash; libFuzzer and ASan report instead.
export SWIFT_BACKTRACE=enable=no
# Concurrent runs (one per target) build the binary and the seeds once, under a lock.
mkdir -p "$work"
exec 9> "$work/build.lock"
flock 9
build_binary
build_seeds
flock -u 9
status=0
for t in "${selected[@]}"; do run_target "$t" "$seconds" || status=1; done
exit $status
