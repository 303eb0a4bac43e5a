#!/usr/bin/env bash
# Compile the AppImage type-2 runtime (the small static program every AppImage starts with) into
# build/runtime-x86_64, for build_linux.sh, from Debian 12's packages instead of downloading it.
# Where github.com is reachable, downloading runtime-x86_64 from the releases of
# https://github.com/AppImage/type2-runtime does the same; this is for machines that reach only
# Debian's and PyPI's package registries. Needs two source checkouts:
#   TYPE2_RUNTIME_SRC  git clone https://github.com/AppImage/type2-runtime
#   SQUASHFUSE_SRC     git clone -b 0.1.105 https://github.com/vasi/squashfuse  (the version Debian 12's
#                      libsquashfuse-dev holds; only its fuseprivate.h is read, which Debian does not ship)
# and, as root: apt-get install gcc libfuse3-dev libsquashfuse-dev libzstd-dev zlib1g-dev liblzma-dev \
#                               liblz4-dev liblzo2-dev
# Unlike the upstream build (musl, a patched libfuse) it links glibc statically and uses Debian's
# libfuse3 as is: mounting needs fusermount3 (package fuse3); without FUSE, run the AppImage with
# --appimage-extract-and-run (or APPIMAGE_EXTRACT_AND_RUN=1).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC="${TYPE2_RUNTIME_SRC:?set TYPE2_RUNTIME_SRC to a checkout of github.com/AppImage/type2-runtime}"
SQUASHFUSE="${SQUASHFUSE_SRC:?set SQUASHFUSE_SRC to a checkout of github.com/vasi/squashfuse at 0.1.105}"
OUT="$ROOT/build/runtime-$(uname -m)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/include/squashfuse" "$ROOT/build"
cp "$SQUASHFUSE/fuseprivate.h" "$WORK/include/squashfuse/"
# squashfuse 0.1.105's sqfs_usage() has no third (low-level usage) argument yet.
sed 's/sqfs_usage(argv\[0\], true, true)/sqfs_usage(argv[0], true)/' "$SRC/src/runtime/runtime.c" > "$WORK/runtime.c"
gcc -std=gnu99 -Os -D_FILE_OFFSET_BITS=64 -DGIT_COMMIT="\"$(git -C "$SRC" rev-parse --short HEAD)-debian\"" \
    -I/usr/include/squashfuse -I"$WORK/include" -I/usr/include/fuse3 -T "$SRC/src/runtime/data_sections.ld" \
    -ffunction-sections -fdata-sections -Wl,--gc-sections -static "$WORK/runtime.c" \
    -lsquashfuse_ll -lsquashfuse -lzstd -lz -llzma -llz4 -llzo2 -lfuse3 -lpthread -ldl -o "$OUT"
echo "== $OUT"
