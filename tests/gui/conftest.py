"""The real window, offscreen, on the real small models (shared by the whole session)."""

from __future__ import annotations

import pytest

from engram.core.app import Engram

REPLY_TOKENS = 12


class SharedModelsEngram(Engram):
    """Engram whose models belong to the test session: closing it leaves them loaded (an embedding
    model it switched to is its own, and closes)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.shared_embedder = self.embedder

    def close(self) -> None:
        self._chat_model = None
        if self.embedder is not None and self.embedder is self.shared_embedder:
            self.store.use_embedder(None)
        super().close()


@pytest.fixture(scope="session")
def real_chat_model():
    from engram.core.models.chat_model import load_chat_model
    from engram.core.settings import Settings

    model = load_chat_model(Settings())
    yield model
    model.close()


@pytest.fixture
def open_window(qtbot, real_embedder, real_chat_model):
    """open_window(reply_tokens=...) -> the shown MainWindow, its data open and its model ready.
    With ``shared_embedder=False`` it loads the embedding model its settings name, as Engram does."""
    from engram.ui.main import create_window

    windows = []

    def opener(data_dir):
        engram = SharedModelsEngram(data_dir, embedder=real_embedder if opener.shared_embedder else None,
                                    chat_model=real_chat_model)
        engram.settings.chat_max_tokens = opener.reply_tokens
        return engram

    def make(reply_tokens: int = REPLY_TOKENS, data_dir: str | None = None, shared_embedder: bool = True,
             ui_language: str | None = "en"):
        """``ui_language`` None: the window's language as the settings (or the system) say; the
        tests' own words are English whatever the machine's language."""
        opener.reply_tokens, opener.shared_embedder = reply_tokens, shared_embedder
        window = create_window(data_dir, opener, ui_language)
        qtbot.addWidget(window)
        windows.append(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow)     # keyboard shortcuts go to the active window
        qtbot.waitUntil(lambda: window.backend.ready and window.status.state == "ready", timeout=60_000)
        return window

    yield make
    for window in windows:
        window.close()


@pytest.fixture
def fake_backend(qtbot):
    """The window's backend on fake models, for dialogs that never run them (models, first start)."""
    from engram.core.app import Engram
    from engram.ui.backend import Backend
    from fakes import FakeChatModel, FakeEmbedder

    opened = Backend(None, lambda folder: Engram(folder, embedder=FakeEmbedder(), chat_model=FakeChatModel()))
    opened.open()
    qtbot.waitUntil(lambda: opened.ready, timeout=20_000)
    yield opened
    opened.close()


@pytest.fixture
def send(qtbot):
    """send(window, text): type a message, press Enter, wait for the reply; returns its bubble."""
    from PySide6.QtCore import Qt

    def type_and_wait(window, text: str, timeout: int = 60_000):
        window.chat.composer.setPlainText(text)
        qtbot.keyClick(window.chat.composer, Qt.Key_Return)
        qtbot.waitUntil(lambda: window.turn is None, timeout=timeout)
        return window.chat.view.bubbles[-1]

    return type_and_wait


@pytest.fixture
def english_afterwards(qapp):
    """The application is shared by all the tests: give it back in English."""
    from engram.ui import language, theme

    yield
    language.install(qapp, "en")
    theme.apply(qapp, chinese=False)
