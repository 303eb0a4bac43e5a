"""Every library the Linux bundle needs is either in it or declared by its .deb; else say which and fail.

PyInstaller copies the libraries Qt's plugins need only when the build machine has them, and exits 0
with a warning when it does not: the installed app then dies with Qt's "could not load the Qt platform
plugin xcb". This reads DT_NEEDED of every ELF file in the bundle (pyelftools), resolves each name the
way the dynamic loader will (the bundle's folder, which PyInstaller's bootloader puts on
LD_LIBRARY_PATH, then the file's RUNPATH/RPATH), and looks the rest up in the .deb's Depends and
Recommends. Run by packaging/build_linux.sh and `make package-check`:

    python packaging/check_bundle.py dist/engram dist/engram_0.1.0_amd64.deb
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from engram.ui.display_libraries import PACKAGES

# glibc's libraries: never bundled (PyInstaller leaves them out on purpose), libc6's to provide.
GLIBC = re.compile(r"(ld-linux[-\w]*|lib(c|m|dl|pthread|rt|util|resolv|anl|crypt|nsl|thread_db|BrokenLocale))\.so(\.\d+)*$")
# Other sonames of the graphics stack the Depends name (PACKAGES has the rest).
GRAPHICS = {"libGLX.so.0": "libglx0", "libGLdispatch.so.0": "libglvnd0", "libGLESv2.so.2": "libgles2"}


def is_elf(path: Path) -> bool:
    with path.open("rb") as file:
        return file.read(4) == b"\x7fELF"


def dynamic(path: Path) -> tuple[list[str], list[str]]:
    """The file's DT_NEEDED names and its library search folders (RUNPATH or RPATH, $ORIGIN expanded)."""
    needed, search = [], []
    with path.open("rb") as file:
        for section in ELFFile(file).iter_sections():
            if isinstance(section, DynamicSection):
                for tag in section.iter_tags():
                    if tag.entry.d_tag == "DT_NEEDED":
                        needed.append(tag.needed)
                    elif tag.entry.d_tag in ("DT_RUNPATH", "DT_RPATH"):
                        value = tag.runpath if tag.entry.d_tag == "DT_RUNPATH" else tag.rpath
                        search += [entry.replace("$ORIGIN", str(path.parent)).replace("${ORIGIN}", str(path.parent))
                                   for entry in value.split(":") if entry]
    return needed, search


def unresolved(bundle: Path) -> dict[str, list[Path]]:
    """soname: the bundled files needing it, for every name the bundle does not hold where the loader looks."""
    internal = bundle / "_internal"
    lib_dir = internal if internal.is_dir() else bundle
    outside: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(bundle.rglob("*")):
        if path.is_symlink() or not path.is_file() or not is_elf(path):
            continue
        try:
            needed, search = dynamic(path)
        except ELFError:
            continue
        for name in needed:
            if not any((Path(folder) / name).exists() for folder in [lib_dir, *search]):
                outside[name].append(path.relative_to(bundle))
    return dict(outside)


def declared(deb: Path) -> set[str]:
    """Every package the .deb's Depends or Recommends names, alternatives included, versions dropped."""
    names = set()
    for field in ("Depends", "Recommends"):
        value = subprocess.run(["dpkg-deb", "--field", str(deb), field], capture_output=True, text=True,
                               check=True).stdout
        names |= {re.split(r"[\s(:]", choice.strip())[0] for item in value.split(",") for choice in item.split("|")
                  if choice.strip()}
    return names


def system_path(name: str) -> str | None:
    """Where this machine's loader finds the library, if it does."""
    listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    match = re.search(rf"^\s+{re.escape(name)} \(.*x86-64.*\) => (\S+)$", listing, re.MULTILINE)
    return match.group(1) if match else None


def debian_package(name: str) -> str | None:
    if GLIBC.match(name):
        return "libc6"
    if name in PACKAGES:
        return PACKAGES[name][0]
    if name in GRAPHICS:
        return GRAPHICS[name]
    path = system_path(name)
    # On a merged-/usr system the loader's path and the one dpkg recorded may differ by "/usr".
    other = path and (path.replace("/usr/lib/", "/lib/", 1) if path.startswith("/usr/") else "/usr" + path)
    for candidate in filter(None, [path, other]):
        found = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.split(":")[0]
    return None


def problems(bundle: Path, allowed: set[str]) -> list[str]:
    """One line per library the bundle needs from outside whose package is not in ``allowed``."""
    lines = []
    for name, users in sorted(unresolved(bundle).items()):
        package = debian_package(name)
        if package in allowed:
            continue
        here = "on this machine, not bundled" if system_path(name) else "not on this machine"
        fedora = PACKAGES.get(name, (None, None))[1]
        where = f"Debian/Ubuntu {package}" + (f", Fedora {fedora}" if fedora else "") if package else "package unknown"
        lines.append(f"{name} ({where}; {here}), needed by {', '.join(map(str, users[:3]))}"
                     + (f" and {len(users) - 3} more" if len(users) > 3 else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bundle", type=Path, help="the PyInstaller folder, e.g. dist/engram")
    parser.add_argument("deb", type=Path, help="the .deb whose Depends and Recommends count as declared")
    args = parser.parse_args(argv)
    found = problems(args.bundle, declared(args.deb))
    if not found:
        print(f"bundle check: every library {args.bundle} needs is bundled or declared by {args.deb.name}")
        return 0
    print(f"bundle check FAILED: {len(found)} libraries are neither bundled nor declared by {args.deb.name}:",
          file=sys.stderr)
    for line in found:
        print(f"  {line}", file=sys.stderr)
    print("Install the missing ones on the build machine (PyInstaller then bundles them) and build again,"
          " or declare them in the .deb's Depends (packaging/build_linux.sh).", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
