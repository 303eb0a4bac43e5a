#!/usr/bin/env bash
# Build, sign and notarise Engram for macOS: dist/Engram.app and dist/Engram-<version>-<arch>.dmg.
# Not run by the project (no Mac here); written to run unchanged on a Mac with:
#   - Xcode command-line tools, CMake and Python 3.11+ (python.org or Homebrew);
#   - a "Developer ID Application" certificate in the login keychain, named by CODESIGN_IDENTITY,
#     e.g. export CODESIGN_IDENTITY="Developer ID Application: Jane Doe (AB12CD34EF)";
#   - notarisation credentials stored once in the keychain under a profile name:
#       xcrun notarytool store-credentials engram-notary --apple-id you@example.com \
#           --team-id AB12CD34EF --password <app-specific password from appleid.apple.com>
#     (NOTARY_PROFILE names another profile). With SKIP_NOTARISATION=1 it stops after signing.
# Apple advises against `codesign --deep`: every binary is signed on its own, innermost first, then
# the app; the dmg is signed, notarised and stapled, and so is the app inside it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON="${PYTHON:-python3}"
IDENTITY="${CODESIGN_IDENTITY:?set CODESIGN_IDENTITY to your Developer ID Application certificate name}"
PROFILE="${NOTARY_PROFILE:-engram-notary}"
ENTITLEMENTS="$ROOT/packaging/macos/entitlements.plist"
BUILD="$ROOT/build/macos"
VENV="$BUILD/venv"
DIST="$ROOT/dist"
APP="$DIST/Engram.app"
cd "$ROOT"

# 1. The build environment (llama.cpp compiles here; GGML_NATIVE=OFF runs on every Mac of the arch).
#    Metal: the GPU of Apple silicon, which llama.cpp turns on by default there; said explicitly so
#    that the app's GPU offloading (chat_gpu_layers auto) never silently loses it. Intel Macs get the CPU.
if [[ ! -f "$VENV/.installed" || pyproject.toml -nt "$VENV/.installed" ]]; then
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    METAL=$([[ $(uname -m) == arm64 ]] && echo ON || echo OFF)
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_METAL=$METAL" "$VENV/bin/python" -m pip install --quiet "$ROOT" \
        "pyinstaller>=6.10"
    touch "$VENV/.installed"
fi
VERSION=$("$VENV/bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
ARCH=$(uname -m)

# 2. The app (the spec's BUNDLE step: icon resources/icons/engram.icns, version, Info.plist).
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN --distpath "$DIST" --workpath "$BUILD/pyinstaller" \
    packaging/engram.spec
plutil -lint "$APP/Contents/Info.plist" "$ENTITLEMENTS"

# 3. Signing, inside out: loose Mach-O files, then each framework version, then the program and the app.
sign() { codesign --force --timestamp --options runtime --sign "$IDENTITY" "$@"; }
while IFS= read -r -d '' file; do
    if [[ "$file" != *.framework/* && "$file" != "$APP/Contents/MacOS/engram" ]] && file -b "$file" | grep -q Mach-O; then
        sign "$file"
    fi
done < <(find "$APP/Contents" -type f -print0)
while IFS= read -r -d '' version; do
    sign "$version"
done < <(find "$APP/Contents" -type d -path '*.framework/Versions/*' -not -path '*.framework/Versions/*/*' \
             -not -name Current -print0)
sign --entitlements "$ENTITLEMENTS" "$APP/Contents/MacOS/engram"
sign --entitlements "$ENTITLEMENTS" "$APP"
codesign --verify --strict --verbose=2 "$APP"          # checks every nested signature too
"$APP/Contents/MacOS/engram" doctor --data-dir "$BUILD/doctor-check"

# 4. Notarise the app (zipped with ditto, which keeps the bundle's symlinks and metadata) and staple
#    it, so that it opens offline once copied out of the dmg.
if [[ "${SKIP_NOTARISATION:-0}" != 1 ]]; then
    ditto -c -k --keepParent "$APP" "$BUILD/Engram.zip"
    xcrun notarytool submit "$BUILD/Engram.zip" --keychain-profile "$PROFILE" --wait
    xcrun stapler staple "$APP"
fi

# 5. The dmg: the app and a link to /Applications; signed, notarised and stapled in turn.
DMG="$DIST/Engram-$VERSION-$ARCH.dmg"
STAGE="$BUILD/dmg"
rm -rf "$STAGE" "$DMG"
mkdir -p "$STAGE"
ditto "$APP" "$STAGE/Engram.app"
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "Engram $VERSION" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
codesign --force --timestamp --sign "$IDENTITY" "$DMG"
if [[ "${SKIP_NOTARISATION:-0}" != 1 ]]; then
    xcrun notarytool submit "$DMG" --keychain-profile "$PROFILE" --wait
    xcrun stapler staple "$DMG"
    spctl --assess --type open --context context:primary-signature --verbose "$DMG"
fi
echo "== $DMG"
