"""Before the window opens on X11: are the system libraries Qt's xcb platform plugin loads here?

Without one of them Qt aborts with "could not load the Qt platform plugin xcb" and a page of text that
names no package to install (a minimal Debian, a container, WSL). This module says it in one line,
with the Debian/Ubuntu and Fedora package names. It imports no Qt, so it runs before QApplication
exists; packaging/check_bundle.py names missing libraries with the same table.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

# soname: (Debian/Ubuntu package, Fedora package). The system libraries Qt's Linux plugins need.
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libdrm.so.2": ("libdrm2", "libdrm"),
    "libgbm.so.1": ("libgbm1", "mesa-libgbm"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
}

# What Qt's xcb platform plugin (libqxcb.so) and libQt6XcbQpa load, Qt's own libraries and the C and
# C++ runtimes aside (tests/unit/test_display_libraries.py keeps this in step with the installed Qt).
XCB_PLUGIN = ("libxcb.so.1", "libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-image.so.0",
              "libxcb-keysyms.so.1", "libxcb-randr.so.0", "libxcb-render.so.0", "libxcb-render-util.so.0",
              "libxcb-shape.so.0", "libxcb-shm.so.0", "libxcb-sync.so.1", "libxcb-util.so.1",
              "libxcb-xfixes.so.0", "libxcb-xkb.so.1", "libX11.so.6", "libX11-xcb.so.1",
              "libxkbcommon.so.0", "libxkbcommon-x11.so.0", "libGL.so.1", "libglib-2.0.so.0",
              "libgthread-2.0.so.0")


def would_use_xcb(environ: Mapping[str, str], platform: str = sys.platform) -> bool:
    """Whether Qt will pick its xcb plugin: QT_QPA_PLATFORM's first choice if set, else X11
    everywhere on Linux except a Wayland session (where Qt 6 picks its wayland plugin)."""
    if not platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    return not (environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY"))


def missing(libraries: Iterable[str], folders: Iterable[Path] = ()) -> list[str]:
    """The libraries that cannot be loaded, looked for in ``folders`` (a frozen bundle's own copies)
    and then where the dynamic loader looks."""
    folders = list(folders)
    return [name for name in libraries if not _loads(name, folders)]


def _loads(name: str, folders: list[Path]) -> bool:
    for candidate in [*(str(folder / name) for folder in folders if (folder / name).is_file()), name]:
        try:
            ctypes.CDLL(candidate)
            return True
        except OSError:
            continue
    return False


def install_hint(libraries: Iterable[str]) -> str:
    """The packages holding these libraries, as the commands that install them."""
    known = [PACKAGES[name] for name in libraries if name in PACKAGES]
    debian = " ".join(dict.fromkeys(deb for deb, _ in known))
    fedora = " ".join(dict.fromkeys(rpm for _, rpm in known))
    if not known:
        return "install the packages that hold them"
    return f"install them: sudo apt install {debian} (Debian/Ubuntu) or sudo dnf install {fedora} (Fedora)"


def problem(libraries: Iterable[str] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """One line saying which libraries the window lacks (of ``libraries``, default the xcb plugin's)
    and how to install them; None when all are there or Qt will not use xcb."""
    if not would_use_xcb(os.environ if environ is None else environ):
        return None
    bundled = [Path(sys._MEIPASS)] if getattr(sys, "frozen", False) else []
    absent = missing(XCB_PLUGIN if libraries is None else libraries, bundled)
    if not absent:
        return None
    return (f"engram: the window cannot open, this system lacks {', '.join(absent)}; {install_hint(absent)}."
            " The commands (engram doctor, engram chat ...) work without them.")
