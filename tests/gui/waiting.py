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


def settle(seconds: float = 0.6) -> None:
    """Let the window draw what it was asked to for a moment (before a picture is taken)."""
    app = QApplication.instance()
    end = time.time() + seconds
    while time.time() < end:
        app.processEvents(QEventLoop.AllEvents, 50)


def say_in(window, text: str) -> None:
    """Send ``text`` as the person would, and wait for the reply to end."""
    window.chat.composer.setPlainText(text)
    window.send(text)
    wait(lambda: window.turn is None)
