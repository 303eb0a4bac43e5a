"""Waiting in the hand-run screenshot scripts: Qt's events go on while a condition is awaited."""

from __future__ import annotations

import time

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication


def wait(condition, timeout: float = 180.0) -> None:
    """Process events until ``condition()`` holds; give up (exit) after ``timeout`` seconds."""
    app = QApplication.instance()
    end = time.time() + timeout
    while time.time() < end and not condition():
        app.processEvents(QEventLoop.AllEvents, 50)
        time.sleep(0.01)
    if not condition():
        raise SystemExit("timed out")
