"""packaging/check_bundle.py on a small bundle made of the installed Qt's real xcb plugin: a library
counts when the bundle holds it or the .deb declares it, and the rest is named with its packages."""

import importlib.util
import shutil
import subprocess
from pathlib import Path

import PySide6
import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_bundle", ROOT / "packaging" / "check_bundle.py")
check_bundle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_bundle)

QXCB = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"


@pytest.fixture
def bundle(tmp_path):
    """A PyInstaller-like folder: the plugin where PyInstaller puts it, Qt's own libraries bundled."""
    root = tmp_path / "engram"
    plugins = root / "_internal" / "PySide6" / "Qt" / "plugins" / "platforms"
    plugins.mkdir(parents=True)
    shutil.copy(QXCB, plugins)
    (root / "_internal" / "PySide6" / "Qt" / "lib").mkdir()
    for name in ("libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libQt6Core.so.6"):
        (root / "_internal" / "PySide6" / "Qt" / "lib" / name).write_bytes(b"")   # found by RUNPATH
    (root / "_internal" / "notes.txt").write_text("not an ELF file")
    return root


def test_names_resolve_through_the_bundle_folder_and_runpath(bundle):
    outside = check_bundle.unresolved(bundle)
    assert "libQt6Core.so.6" not in outside                          # $ORIGIN/../../lib
    assert outside["libxcb-cursor.so.0"] == [Path("_internal/PySide6/Qt/plugins/platforms/libqxcb.so")]
    (bundle / "_internal" / "libxcb-cursor.so.0").write_bytes(b"")   # beside the bootloader's LD_LIBRARY_PATH
    assert "libxcb-cursor.so.0" not in check_bundle.unresolved(bundle)


def test_what_is_neither_bundled_nor_declared_is_named_with_its_packages(bundle):
    found = check_bundle.problems(bundle, {"libc6", "libgl1", "libxcb1", "libstdc++6", "libgcc-s1"})
    named = {line.split(" ")[0] for line in found}
    assert "libxcb-cursor.so.0" in named and "libxkbcommon-x11.so.0" in named
    assert not named & {"libc.so.6", "libm.so.6", "libGL.so.1", "libxcb.so.1", "libQt6Core.so.6"}
    cursor = next(line for line in found if line.startswith("libxcb-cursor.so.0"))
    assert "Debian/Ubuntu libxcb-cursor0, Fedora xcb-util-cursor" in cursor


def test_a_complete_bundle_passes(bundle):
    for name in check_bundle.unresolved(bundle):
        if name not in ("libc.so.6", "libm.so.6", "libGL.so.1"):
            (bundle / "_internal" / name).write_bytes(b"")
    assert check_bundle.problems(bundle, {"libc6", "libgl1"}) == []


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="reads a .deb with dpkg-deb (Debian and Ubuntu)")
def test_declared_packages_come_from_depends_and_recommends(tmp_path):
    package = tmp_path / "pkg"
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN" / "control").write_text(
        "Package: probe\nVersion: 1\nArchitecture: all\nMaintainer: x <x@localhost>\nDescription: probe\n"
        "Depends: libc6 (>= 2.36), libgl1, fontconfig-config\n"
        "Recommends: fonts-noto-core | fonts-dejavu-core, fonts-noto-cjk\n")
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(package), str(tmp_path / "probe.deb")],
                   check=True, capture_output=True)
    assert check_bundle.declared(tmp_path / "probe.deb") == {
        "libc6", "libgl1", "fontconfig-config", "fonts-noto-core", "fonts-dejavu-core", "fonts-noto-cjk"}


def test_a_library_the_loader_finds_in_lib_is_found_in_the_package_that_ships_it_in_usr_lib(monkeypatch):
    """ldconfig names /lib/… on a merged-/usr system; dpkg may know the file as /usr/lib/… (the Vulkan
    build's libvulkan.so.1 from libvulkan1 did just that, and the bundle check failed)."""
    monkeypatch.setattr(check_bundle, "system_path", lambda name: f"/lib/x86_64-linux-gnu/{name}")
    assert check_bundle.debian_package("libstdc++.so.6") == "libstdc++6"
