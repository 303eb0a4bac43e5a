"""The window's check for the system libraries Qt's xcb plugin loads (engram.ui.display_libraries)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_vec
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from engram.ui import display_libraries as libs

ABSENT = "libengram-absent.so.0"
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("environ, expected", [
    ({}, True),                                                           # X11, or no session at all
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({"QT_QPA_PLATFORM": "xcb:display=:1"}, True),
    ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, False),
    ({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"XDG_SESSION_TYPE": "wayland"}, True),                              # no compositor to talk to
    ({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}, True),
])
def test_xcb_is_expected_as_qt_would_choose(environ, expected):
    assert libs.would_use_xcb(environ, platform="linux") is expected


def test_other_systems_never_use_xcb():
    assert not libs.would_use_xcb({"QT_QPA_PLATFORM": "xcb"}, platform="win32")


def test_only_the_libraries_that_cannot_load_are_missing():
    assert libs.missing(["libc.so.6", ABSENT, "libm.so.6"]) == [ABSENT]


def test_a_bundled_copy_counts(tmp_path):
    """A frozen bundle's own copy is found in its folder though the loader's path lacks it."""
    vec0 = Path(sqlite_vec.loadable_path() + ".so")
    shutil.copy(vec0, tmp_path / "libengram-bundled.so.0")
    assert libs.missing(["libengram-bundled.so.0"]) == ["libengram-bundled.so.0"]
    assert libs.missing(["libengram-bundled.so.0"], [tmp_path]) == []


def test_the_hint_names_debian_and_fedora_packages_once_each():
    hint = libs.install_hint(["libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-shm.so.0", "libxcb-xkb.so.1"])
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-shm0 libxcb-xkb1 (Debian/Ubuntu)" in hint
    assert "sudo dnf install xcb-util-cursor xcb-util-wm libxcb (Fedora)" in hint


def test_the_problem_is_one_line_naming_what_is_missing():
    line = libs.problem(["libc.so.6", "libxcb-cursor.so.0", ABSENT], {"QT_QPA_PLATFORM": "xcb"})
    found = libs.missing(["libxcb-cursor.so.0"])     # the real one may or may not be on this machine
    assert "\n" not in line and ABSENT in line and "libc.so.6" not in line
    assert ("libxcb-cursor0" in line) is bool(found)


def test_nothing_is_said_when_all_load_or_qt_will_not_use_xcb():
    assert libs.problem(["libc.so.6"], {"QT_QPA_PLATFORM": "xcb"}) is None
    assert libs.problem([ABSENT], {"QT_QPA_PLATFORM": "offscreen"}) is None


def test_engram_says_it_in_one_line_instead_of_qts_abort(tmp_path):
    """The whole start: `engram` with a library missing exits before Qt loads its plugin."""
    script = ("from engram.ui import display_libraries as d; d.XCB_PLUGIN += (%r,); "
              "from engram.cli import main; raise SystemExit(main(['--data-dir', %r]))" % (ABSENT, str(tmp_path)))
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":99", "PYTHONPATH": str(REPO / "desktop")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    expected = libs.problem([*libs.XCB_PLUGIN, ABSENT], {"QT_QPA_PLATFORM": "xcb"})   # ABSENT, and any real gap
    assert done.stderr.strip().splitlines() == [expected]
    assert not (tmp_path / "engram.db").exists()


def _needed(path: Path) -> set[str]:
    with path.open("rb") as file:
        sections = ELFFile(file).iter_sections()
        return {tag.needed for section in sections if isinstance(section, DynamicSection)
                for tag in section.iter_tags() if tag.entry.d_tag == "DT_NEEDED"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb plugin exists on Linux only")
def test_the_list_is_what_the_installed_qt_plugin_loads():
    import PySide6

    qt = Path(PySide6.__file__).parent / "Qt"
    needed = _needed(qt / "plugins" / "platforms" / "libqxcb.so") | _needed(qt / "lib" / "libQt6XcbQpa.so.6")
    runtimes = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0", "libdl.so.2"}
    assert {name for name in needed if not name.startswith("libQt6")} - runtimes == set(libs.XCB_PLUGIN)
    assert set(libs.XCB_PLUGIN) <= set(libs.PACKAGES)
