#!/usr/bin/env bash
# Build Engram for Linux: dist/engram/ (PyInstaller folder), a .deb and a portable .tar.gz.
# Uses its own virtual environment in build/venv, never the development .venv.
# Needs: python3 (3.11+, built with --enable-shared), a C/C++ compiler, CMake, dpkg-deb.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
BUILD="$ROOT/build"
VENV="$BUILD/venv"
DIST="$ROOT/dist"
PY="$VENV/bin/python"
cd "$ROOT"
started=$(date +%s)

# 1. The build environment. llama-cpp-python compiles here: GGML_NATIVE=OFF keeps it to CPU code
#    paths every x86-64 machine has (a native build can crash on other processors).
if [[ ! -f "$VENV/.installed" || pyproject.toml -nt "$VENV/.installed" ]]; then
    echo "== build environment: $VENV"
    "$PYTHON" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PY" -m pip install --quiet -e "$ROOT" "pyinstaller>=6.10"
    touch "$VENV/.installed"
fi
VERSION=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# The bundle runs on this machine's glibc or newer (build on the oldest system to support).
GLIBC=$(getconf GNU_LIBC_VERSION | cut -d" " -f2)

# 2. The folder: dist/engram/engram and dist/engram/_internal/.
echo "== PyInstaller"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$BUILD/pyinstaller" packaging/engram.spec

# 3. The icon: a PNG rendered from the SVG (Qt's SVG renderer ships in PySide6-Essentials).
ICONS="$BUILD/icons"
mkdir -p "$ICONS"
QT_QPA_PLATFORM=offscreen "$PY" - "$ROOT/resources/icons/engram.svg" "$ICONS/engram.png" <<'EOF'
import sys
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

app = QGuiApplication([])
image = QImage(256, 256, QImage.Format.Format_ARGB32)
image.fill(Qt.GlobalColor.transparent)
painter = QPainter(image)
QSvgRenderer(sys.argv[1]).render(painter)
painter.end()
sys.exit(0 if image.save(sys.argv[2]) else 1)
EOF

# 4. The .deb: the folder in /opt/engram, `engram` on PATH, a menu entry and its icon.
PKG="$BUILD/deb/engram_${VERSION}_${ARCH}"
rm -rf "$PKG"
mkdir -p "$PKG/DEBIAN" "$PKG/opt" "$PKG/usr/bin" "$PKG/usr/share/applications" \
    "$PKG/usr/share/icons/hicolor/256x256/apps" "$PKG/usr/share/icons/hicolor/scalable/apps"
cp -a "$DIST/engram" "$PKG/opt/engram"
ln -s /opt/engram/engram "$PKG/usr/bin/engram"
install -m 644 packaging/engram.desktop "$PKG/usr/share/applications/engram.desktop"
install -m 644 "$ICONS/engram.png" "$PKG/usr/share/icons/hicolor/256x256/apps/engram.png"
install -m 644 resources/icons/engram.svg "$PKG/usr/share/icons/hicolor/scalable/apps/engram.svg"
# PyInstaller copies most libraries Qt needs but leaves out those that must match the system's
# drivers and display server (GL, EGL, DRM, xcb, Wayland): those are the dependencies.
cat > "$PKG/DEBIAN/control" <<EOF
Package: engram
Version: $VERSION
Architecture: $ARCH
Maintainer: Engram <engram@localhost>
Installed-Size: $(du -sk "$PKG" | cut -f1)
Depends: libc6 (>= $GLIBC), libgl1, libegl1, libdrm2, libxcb1
Recommends: libwayland-client0, libwayland-cursor0, libwayland-egl1, fonts-noto-cjk
Section: utils
Priority: optional
Homepage: https://github.com/engram/engram
Description: offline personal assistant that remembers
 Engram keeps every conversation and memory in one SQLite file on this machine
 and runs local GGUF models; nothing leaves the machine. Includes a small demo
 chat model and the multilingual-e5-small (default) and all-MiniLM-L6-v2
 embedding models.
EOF
for script in postinst postrm; do
    cat > "$PKG/DEBIAN/$script" <<'EOF'
#!/bin/sh
set -e
command -v update-desktop-database >/dev/null && update-desktop-database -q /usr/share/applications || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
EOF
    chmod 755 "$PKG/DEBIAN/$script"
done
DEB="$DIST/engram_${VERSION}_${ARCH}.deb"
echo "== dpkg-deb: $DEB"
# gzip: every dpkg reads it, and the models (most of the size) hardly compress anyway.
dpkg-deb --root-owner-group -Zgzip --build "$PKG" "$DEB"

# 5. The portable archive: unpack anywhere, run engram/engram.
TARBALL="$DIST/engram-${VERSION}-linux-$(uname -m).tar.gz"
echo "== tar: $TARBALL"
tar -C "$DIST" -czf "$TARBALL" engram

echo "== done in $(( $(date +%s) - started )) s"
du -sh "$DIST/engram" "$DEB" "$TARBALL"
