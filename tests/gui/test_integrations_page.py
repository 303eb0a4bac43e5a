"""Settings › Integrations in the real window: the API beside it (on, off, a port in use, a new
key), the MCP snippets with the real command, and a memory added through MCP in the Memories tab."""

from __future__ import annotations

import json
import socket
import threading

import httpx
import openai
import pytest
from PySide6.QtWidgets import QMessageBox

from engram.core.memory.scope import Scope
from engram.core.settings import Settings
from engram.integrations.api_key import api_key

pytestmark = pytest.mark.real_model


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_api_runs_beside_the_window_while_the_page_says_so(qtbot, open_window, monkeypatch):
    window = open_window()
    window.open_settings("Integrations")
    page = window.settings_dialog.integrations
    data = window.backend.engram.data_dir
    qtbot.waitUntil(lambda: page.key.text() == api_key(data))
    assert page.address.text() == "Off"

    port = free_port()
    page.port.setValue(port)
    page.enabled.setChecked(True)
    qtbot.waitUntil(lambda: window.api.now[0] == "on", timeout=20_000)
    # The page hears of it through a queued signal, which may come a moment after.
    qtbot.waitUntil(lambda: page.address.text() == f"Listening on http://127.0.0.1:{port}/v1")
    # Saved on the disk thread, which may come after the server is up.
    qtbot.waitUntil(lambda: Settings.load().api_enabled and Settings.load().api_port == port, timeout=10_000)

    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=page.key.text(), max_retries=0, timeout=120)
    answers = {}
    worker = threading.Thread(target=lambda: answers.update(reply=client.chat.completions.create(
        model="engram", max_tokens=8, messages=[{"role": "user", "content": "Hello from another program"}])))
    worker.start()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=120_000)     # the window's events go on meanwhile
    session = answers["reply"].model_extra["engram"]["session"]
    assert window.backend.engram.sessions.get(session).user == window.backend.engram.user

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    old = page.key.text()
    page.regenerate()
    qtbot.waitUntil(lambda: page.key.text() != old)
    with pytest.raises(openai.AuthenticationError):
        client.models.list()
    assert openai.OpenAI(base_url=client.base_url, api_key=page.key.text(), max_retries=0).models.list().data

    page.enabled.setChecked(False)
    qtbot.waitUntil(lambda: window.api.now[0] == "off", timeout=20_000)
    qtbot.waitUntil(lambda: page.address.text() == "Off")     # the page hears of it through a queued signal
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models")


def test_the_window_starts_the_api_it_was_left_with_and_says_when_the_port_is_taken(qtbot, open_window,
                                                                                    isolated_dirs):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        settings = Settings.load()
        settings.api_enabled, settings.api_port = True, taken.getsockname()[1]
        settings.save()
        window = open_window()
        qtbot.waitUntil(lambda: window.api.now[0] == "error", timeout=20_000)
        window.open_settings("Integrations")
        assert "cannot listen on 127.0.0.1" in window.settings_dialog.integrations.address.text()

    port = free_port()
    page = window.settings_dialog.integrations
    page.port.setValue(port)
    page.port.editingFinished.emit()
    qtbot.waitUntil(lambda: window.api.now[0] == "on", timeout=20_000)
    key = api_key(window.backend.engram.data_dir)
    assert httpx.get(f"http://127.0.0.1:{port}/v1/models", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    window.close()
    assert window.api.server is None
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models")


def test_mcp_snippets_name_the_real_command_and_this_data_folder(qtbot, open_window):
    window = open_window()
    window.open_settings("Integrations")
    page = window.settings_dialog.integrations
    data = str(window.backend.engram.data_dir)
    for client, key in (("Claude Desktop", "mcpServers"), ("VS Code", "servers"), ("Cursor", "mcpServers")):
        page.client.setCurrentText(client)
        config = json.loads(page.snippet.toPlainText())[key]["engram"]
        command = [config["command"], *config["args"]]
        assert command[-3:] == ["mcp", "--data-dir", data]
        assert (config.get("type") == "stdio") == (client == "VS Code")
        assert "mcp.json" in page.where.text() or "claude_desktop_config.json" in page.where.text()
    page.read_only.setChecked(True)
    assert json.loads(page.snippet.toPlainText())["mcpServers"]["engram"]["args"][-1] == "--read-only"


def test_a_memory_an_mcp_client_added_says_so_in_the_memories_tab(qtbot, open_window):
    window = open_window()
    engram = window.backend.engram
    engram.store.add("Prefers window seats", Scope(user=engram.user), "preference", actor="model",
                     source={"client": "Claude Desktop", "via": "mcp"})
    window.memories.refresh()
    tree = window.memories.list
    qtbot.waitUntil(lambda: tree.topLevelItemCount() == 1)
    tree.setCurrentItem(tree.topLevelItem(0))
    qtbot.waitUntil(lambda: "added by Claude Desktop through MCP" in window.memories.source.text())
