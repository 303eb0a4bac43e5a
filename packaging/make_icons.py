"""Make resources/icons/engram.ico (Windows) and engram.icns (macOS) from resources/icons/engram.svg.

Both files are committed; run this again only when the SVG changes. Each size is rendered from the
SVG by Qt (crisper than scaling one bitmap down) and Pillow writes the two containers. Needs PySide6
and Pillow (not a dependency of Engram: `pip install pillow` into any environment with PySide6):

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py
"""

from __future__ import annotations

import sys
from io import BytesIO
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
ICO_SIZES = (16, 20, 24, 32, 40, 48, 64, 128, 256)          # what Explorer and the taskbar ask for
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def render(svg: QSvgRenderer, size: int) -> Image.Image:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    svg.render(painter)
    painter.end()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return Image.open(BytesIO(bytes(buffer.data()))).convert("RGBA")


def main() -> int:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841 (Qt's painting needs an application)
    svg = QSvgRenderer(str(ICONS / "engram.svg"))
    if not svg.isValid():
        raise SystemExit(f"cannot read {ICONS / 'engram.svg'}")
    ico = [render(svg, size) for size in ICO_SIZES]
    ico[-1].save(ICONS / "engram.ico", format="ICO", sizes=[(s, s) for s in ICO_SIZES], append_images=ico[:-1])
    icns = [render(svg, size) for size in ICNS_SIZES]
    icns[-1].save(ICONS / "engram.icns", format="ICNS", append_images=icns[:-1])
    for name in ("engram.ico", "engram.icns"):
        print(f"{ICONS / name}: {(ICONS / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
