#!/usr/bin/env bash
# Build Engram for Linux: dist/engram/ (PyInstaller folder), a .deb, a portable .tar.gz and an AppImage.
# Uses its own virtual environment in build/venv, never the development .venv.
# Needs: python3 (3.11+, built with --enable-shared), dpkg-deb, mksquashfs (squashfs-tools), the
# libraries Qt's xcb plugin loads (checked first; it says which packages to install), and a C/C++
# compiler and CMake unless pip's cache holds the llama-cpp-python wheel.
# The AppImage needs the AppImage type-2 runtime (runtime-x86_64 from github.com/AppImage/type2-runtime)
# in $APPIMAGE_RUNTIME or build/runtime-x86_64; without it the AppDir is built and the script says so.
#
# ENGRAM_GPU=vulkan builds the Vulkan variant into dist-vulkan/ (its own build/venv-vulkan): llama.cpp
# with its Vulkan backend, which runs the models on any GPU with a Vulkan driver (AMD, Intel, NVIDIA)
# and on the CPU where there is none. It needs libvulkan-dev, glslc and spirv-headers (Debian 12,
# Ubuntu 24.04) and compiles for about 30 minutes on 2 cores; LLAMA_WHEEL=path/to/llama_cpp_python-*.whl
# installs a Vulkan wheel built before instead (pip's cache cannot tell it from the CPU build's).
# packaging/check_vulkan.sh runs a turn on it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
GPU="${ENGRAM_GPU:-}"
case "$GPU" in
    "") VARIANT="" ;;
    vulkan) VARIANT="-vulkan" ;;
    *) echo "build_linux.sh: ENGRAM_GPU must be vulkan or unset, not '$GPU'" >&2; exit 2 ;;
esac
BUILD="$ROOT/build"
VENV="$BUILD/venv$VARIANT"
DIST="$ROOT/dist$VARIANT"
PY="$VENV/bin/python"
cd "$ROOT"
started=$(date +%s)

# The Vulkan wheel: llama-cpp-python's source from PyPI, made to compile against the distribution's
# older Vulkan headers (patch_vulkan_headers.py), built into build/vulkan-wheel/.
build_vulkan_wheel() {
    local missing=()
    command -v glslc >/dev/null || missing+=(glslc)
    [[ -f /usr/include/vulkan/vulkan.hpp ]] || missing+=(libvulkan-dev)
    [[ -d /usr/include/spirv ]] || missing+=(spirv-headers)
    if (( ${#missing[@]} )); then
        echo "build_linux.sh: the Vulkan build needs ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
    local src="$BUILD/vulkan-src"
    rm -rf "$src" "$BUILD/vulkan-wheel"
    mkdir -p "$src"
    echo "   llama-cpp-python $1: compiling with Vulkan (about 30 minutes on 2 cores)"
    "$PY" -m pip download --quiet --no-deps --no-binary :all: -d "$src" "llama-cpp-python==$1"
    tar -xzf "$src/llama_cpp_python-$1.tar.gz" -C "$src"
    "$PY" packaging/patch_vulkan_headers.py "$src/llama_cpp_python-$1"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_VULKAN=ON" "$PY" -m pip wheel --quiet --no-deps \
        -w "$BUILD/vulkan-wheel" "$src/llama_cpp_python-$1"
}

# 1. The build environment. llama-cpp-python takes 10-15 minutes to compile, so the wheel pip
#    already built for this version (its cache, filled by `make setup`) is installed when there is
#    one; otherwise it compiles here with GGML_NATIVE=OFF, which keeps it to CPU code paths every
#    x86-64 machine has (a native build can crash on other processors).
if [[ ! -f "$VENV/.installed" || pyproject.toml -nt "$VENV/.installed" ]]; then
    echo "== build environment: $VENV"
    "$PYTHON" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
    LLAMA=$(sed -n 's/^ *"llama-cpp-python==\([^"]*\)".*/\1/p' pyproject.toml)
    if [[ $GPU == vulkan ]]; then
        WHEEL="${LLAMA_WHEEL:-}"
        if [[ -z "$WHEEL" ]]; then
            build_vulkan_wheel "$LLAMA"
            WHEEL=$(ls "$BUILD/vulkan-wheel/llama_cpp_python-$LLAMA-"*.whl)
        fi
        echo "   llama-cpp-python $LLAMA with Vulkan: $WHEEL"
    else
        WHEEL=$("$PY" -m pip cache list --format=abspath "llama_cpp_python-$LLAMA-*" | head -n 1)
        if [[ -n "$WHEEL" ]]; then
            echo "   llama-cpp-python $LLAMA from pip's cache: $WHEEL"
        else
            echo "   llama-cpp-python $LLAMA: no wheel in pip's cache, compiling (10-15 minutes)"
        fi
    fi
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PY" -m pip install --quiet ${WHEEL:+"$WHEEL"} -e "$ROOT" \
        "pyinstaller>=6.10" "pyelftools>=0.31"
    touch "$VENV/.installed"
fi
VERSION=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# The bundle runs on this machine's glibc or newer (build on the oldest system to support).
GLIBC=$(getconf GNU_LIBC_VERSION | cut -d" " -f2)

# PyInstaller bundles the libraries Qt's xcb plugin loads only if this machine has them (else it
# warns and the installed app cannot open its window): stop now, naming the packages to install.
"$PY" - <<'EOF'
import sys
from engram.ui.display_libraries import XCB_PLUGIN, install_hint, missing

if absent := missing(XCB_PLUGIN):
    sys.exit(f"build_linux.sh: this machine lacks {', '.join(absent)}, which the bundle must carry for Qt's"
             f" xcb plugin; {install_hint(absent)}, then build again.")
EOF

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
PKG="$BUILD/deb$VARIANT/engram_${VERSION}_${ARCH}"
rm -rf "$PKG"
mkdir -p "$PKG/DEBIAN" "$PKG/opt" "$PKG/usr/bin" "$PKG/usr/share/applications" \
    "$PKG/usr/share/icons/hicolor/256x256/apps" "$PKG/usr/share/icons/hicolor/scalable/apps"
cp -a "$DIST/engram" "$PKG/opt/engram"
ln -s /opt/engram/engram "$PKG/usr/bin/engram"
install -m 644 packaging/engram.desktop "$PKG/usr/share/applications/engram.desktop"
install -m 644 "$ICONS/engram.png" "$PKG/usr/share/icons/hicolor/256x256/apps/engram.png"
install -m 644 resources/icons/engram.svg "$PKG/usr/share/icons/hicolor/scalable/apps/engram.svg"
# PyInstaller copies most libraries Qt needs but leaves out those that must match the system's
# drivers and display server (GL, EGL, DRM, xcb, Wayland): those are the dependencies. The bundled
# fontconfig reads the system's configuration (fontconfig-config, which brings a Latin font);
# Noto (or DejaVu) and Noto CJK make labels and Chinese text readable on a minimal system.
# check_bundle.py (below) fails the build if anything else is needed from the system.
# The Vulkan build loads the system's Vulkan loader, which loads the GPU's driver (Mesa's for AMD and
# Intel, NVIDIA's own); with no driver the models run on the CPU.
DEPENDS_GPU="" RECOMMENDS_GPU=""
if [[ $GPU == vulkan ]]; then
    DEPENDS_GPU=", libvulkan1"
    RECOMMENDS_GPU=", mesa-vulkan-drivers | vulkan-icd"
fi
cat > "$PKG/DEBIAN/control" <<EOF
Package: engram
Version: $VERSION
Architecture: $ARCH
Maintainer: Engram <engram@localhost>
Installed-Size: $(du -sk "$PKG" | cut -f1)
Depends: libc6 (>= $GLIBC), libgl1, libegl1, libdrm2, libxcb1, fontconfig-config$DEPENDS_GPU
Recommends: fonts-noto-core | fonts-dejavu-core, fonts-noto-cjk, libwayland-client0, libwayland-cursor0, libwayland-egl1$RECOMMENDS_GPU
Section: utils
Priority: optional
Homepage: https://github.com/engram/engram
Description: offline personal assistant that remembers
 Engram keeps every conversation and memory in one SQLite file on this machine
 and runs local GGUF models; nothing leaves the machine. Includes a small demo
 chat model and the multilingual-e5-small (default) and all-MiniLM-L6-v2
 embedding models.
EOF
# The models are read in place from /opt/engram by every user (never copied), so removing the
# package leaves only each person's own data in their home. postrm also deletes whatever appeared
# in /opt/engram after installation (bytecode caches written when root ran it).
for script in postinst postrm; do
    {
        echo '#!/bin/sh'
        echo 'set -e'
        [[ $script == postrm ]] && echo 'if [ "$1" = remove ] || [ "$1" = purge ]; then rm -rf /opt/engram; fi'
        echo 'command -v update-desktop-database >/dev/null && update-desktop-database -q /usr/share/applications || true'
        echo 'command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true'
    } > "$PKG/DEBIAN/$script"
    chmod 755 "$PKG/DEBIAN/$script"
done
DEB="$DIST/engram_${VERSION}_${ARCH}.deb"
echo "== dpkg-deb: $DEB"
# gzip: every dpkg reads it, and the models (most of the size) hardly compress anyway.
dpkg-deb --root-owner-group -Zgzip --build "$PKG" "$DEB"

# Every library the bundle needs is in it or in the .deb's Depends/Recommends, or the build fails.
echo "== bundle check"
"$PY" packaging/check_bundle.py "$DIST/engram" "$DEB"

# 5. The portable archive: unpack anywhere, run engram/engram.
TARBALL="$DIST/engram-${VERSION}-linux$VARIANT-$(uname -m).tar.gz"
echo "== tar: $TARBALL"
tar -C "$DIST" -czf "$TARBALL" engram

# 6. The AppImage: an AppDir (AppRun, the desktop entry and icon at its top, the folder inside)
#    packed as squashfs behind the AppImage type-2 runtime, which is all appimagetool does.
APPDIR="$BUILD/Engram$VARIANT.AppDir"
APPIMAGE="$DIST/Engram$VARIANT-${VERSION}-$(uname -m).AppImage"
RUNTIME="${APPIMAGE_RUNTIME:-$BUILD/runtime-$(uname -m)}"
echo "== AppDir: $APPDIR"
rm -rf "$APPDIR" "$APPIMAGE"
mkdir -p "$APPDIR/usr/share/applications" "$APPDIR/usr/share/icons/hicolor/256x256/apps"
cp -a "$DIST/engram" "$APPDIR/engram"
install -m 755 packaging/AppRun "$APPDIR/AppRun"
install -m 644 packaging/engram.desktop "$APPDIR/engram.desktop"
install -m 644 packaging/engram.desktop "$APPDIR/usr/share/applications/engram.desktop"
install -m 644 "$ICONS/engram.png" "$APPDIR/engram.png"
install -m 644 "$ICONS/engram.png" "$APPDIR/usr/share/icons/hicolor/256x256/apps/engram.png"
ln -s engram.png "$APPDIR/.DirIcon"
if [[ -f "$RUNTIME" ]]; then
    echo "== AppImage: $APPIMAGE"
    mksquashfs "$APPDIR" "$BUILD/engram.squashfs" -root-owned -noappend -comp zstd -quiet -no-progress
    cat "$RUNTIME" "$BUILD/engram.squashfs" > "$APPIMAGE"
    chmod 755 "$APPIMAGE"
    rm "$BUILD/engram.squashfs"
else
    echo "== no AppImage: the type-2 runtime is not at $RUNTIME (set APPIMAGE_RUNTIME); the AppDir runs as is:"
    echo "   $APPDIR/AppRun"
fi

echo "== done in $(( $(date +%s) - started )) s"
du -sh "$DIST/engram" "$DEB" "$TARBALL" $(ls "$APPIMAGE" 2>/dev/null)
