"""Starting Engram again, e.g. to speak a newly chosen language: the window closes as on Quit
(replies stopped, data closed, downloads paused), and once the application's event loop has
ended, the same command that started this Engram starts a new one, detached from this process."""

from __future__ import annotations

import sys

from PySide6.QtCore import QProcess
from PySide6.QtWidgets import QApplication


def command() -> tuple[str, list[str]]:
    """The program and arguments that started this Engram: the packaged program itself, or this
    Python with the script (the ``engram`` command, or engram/__main__.py) and its arguments."""
    if getattr(sys, "frozen", False):
        return sys.executable, sys.argv[1:]
    return sys.executable, list(sys.argv)


def relaunch(window) -> None:
    """Close ``window`` and the application, then start Engram again."""
    app = QApplication.instance()
    program, arguments = command()
    app.aboutToQuit.connect(lambda: QProcess.startDetached(program, arguments))
    window.close()
    app.quit()
