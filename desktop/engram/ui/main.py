"""`engram` with no command: the window. It shows at once; the data and the models open in the
background (the status bar says when the chat model is ready)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from engram.core.settings import Settings
from engram.ui import display_libraries, language, theme
from engram.ui.backend import Backend
from engram.ui.main_window import MainWindow

GIL_SWITCH_SECONDS = 0.001


def check_qt() -> None:
    """Refuse to start on a PySide6 build that loses references to None (PySide6 6.12.0 on Python
    3.11 does, on every call to a Qt method that returns nothing): the app would abort within
    minutes with "deallocating None"; better to say so at once."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    if sys.getrefcount(None) < before - 32:
        import PySide6

        raise SystemExit(f"engram: PySide6 {PySide6.__version__} is broken on Python "
                         f"{sys.version_info.major}.{sys.version_info.minor} (it loses references to None and"
                         " would crash); install a working one: pip install 'PySide6-Essentials>=6.8,<6.12'")


def create_window(data_dir: str | None = None, opener=None, ui_language: str | None = None) -> MainWindow:
    """The window, shown, with its data opening in the background (used by run_window and tests);
    in ``ui_language`` if given, else as the settings say."""
    check_qt()
    # Model and disk threads run Python between their C calls; a short GIL switch interval lets
    # the GUI thread in often enough that the event loop never stalls while a reply streams.
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Engram")
    app.setDesktopFileName("engram")
    if ui_language is None:
        ui_language = Settings.peek("ui_language")
    speaks = language.install(app, ui_language)      # before any widget is made
    theme.apply(app, chinese=language.is_chinese(speaks))
    window = MainWindow(Backend(data_dir, opener))
    window.show()
    QTimer.singleShot(0, window.backend.open)
    return window


def run_window(data_dir: str | None = None) -> int:
    if (missing := display_libraries.problem()) is not None:   # before Qt aborts on it, unexplained
        raise SystemExit(missing)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = create_window(data_dir)
    code = app.exec()
    del window
    return code
