#!/usr/bin/env bash
# Installs what AssetPacks builds and tests with on Debian 12: the C libraries it links (Apple
# Archive's zlib, xz and LZ4 codecs among them), the
# tools its integration tests and benchmarks run beside it (nginx, varnish, curl, openssl, systemd for
# systemd-socket-activate, util-linux for setpriv, chromium to render the repository report headless), and from PyPI moto (an S3 endpoint) and pyliblzfse (the LZFSE oracle).
# Idempotent; skips what is already there. Needs root for apt-get (or sudo).
# With --bench it also installs what the benchmarks in bench/ drive (wrk, casync, zsync, bc; the AWS CLI
# from PyPI).
set -euo pipefail
packages=(libzstd-dev libssl-dev libcurl4-openssl-dev libmicrohttpd-dev libsqlite3-dev
          zlib1g-dev liblzma-dev liblz4-dev
          zstd nginx-light varnish curl openssl ca-certificates systemd util-linux chromium)
[ "${1:-}" = "--bench" ] && packages+=(wrk casync zsync bc)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! python3 -c 'import moto' 2>/dev/null; then
  python3 -m pip install -q 'moto[server]' >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages 'moto[server]' >/dev/null
fi
# The reference LZFSE implementation's Python binding: an oracle the Apple Archive tests check our
# LZFSE encoder and decoder against (never linked into the product).
if ! python3 -c 'import liblzfse' 2>/dev/null; then
  python3 -m pip install -q pyliblzfse >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages pyliblzfse >/dev/null
fi
# LZ4's block API: the Apple Archive tests write pbz4 containers with it as an independent writer.
if ! python3 -c 'import lz4.block' 2>/dev/null; then
  python3 -m pip install -q lz4 >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages lz4 >/dev/null
fi
if [ "${1:-}" = "--bench" ] && ! command -v aws >/dev/null; then
  python3 -m pip install -q awscli >/dev/null 2>&1 || python3 -m pip install -q --break-system-packages awscli >/dev/null
fi
