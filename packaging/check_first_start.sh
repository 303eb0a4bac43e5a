#!/usr/bin/env bash
# A first start of a built Engram in an empty home: it must read its models where they are installed
# (no .gguf copied into the home) and leave under 5 MB of per-user data.
#   packaging/check_first_start.sh dist/engram/engram      (make package-check runs it)
set -euo pipefail
PROGRAM="$(readlink -f "${1:?the engram program to start, e.g. dist/engram/engram}")"
HOME_DIR="$(mktemp -d)"
trap 'rm -rf "$HOME_DIR"' EXIT
env -i HOME="$HOME_DIR" PATH=/usr/bin:/bin LANG=C.UTF-8 "$PROGRAM" doctor
copies=$(find "$HOME_DIR" -name '*.gguf' | wc -l)
kib=$(du -sk "$HOME_DIR" | cut -f1)
echo "first start: $kib KiB of per-user data, $copies model files copied"
find "$HOME_DIR" -type f -printf '  %s bytes  %P\n'
if (( copies > 0 || kib >= 5120 )); then
    echo "first start check FAILED: models must be read in place and per-user data stay under 5 MB" >&2
    exit 1
fi
