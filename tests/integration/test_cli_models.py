"""``engram models`` end to end (main(argv)) against a loopback mirror of real GGUF files; the
downloaded chat model then answers a real turn. And Engram opens no network connection unless
a download is asked for."""

from __future__ import annotations

import json
import socket

import pytest

from engram.cli import main
from engram.core.models.demo import demo_model_path
from engram.core.paths import MINILM_EMBEDDING_MODEL
from engram.core.settings import Settings
from model_server import ModelServer, write_catalog

pytestmark = pytest.mark.real_model
CHAT_URL = "test/chat-GGUF/resolve/main/chat.gguf"
EMBEDDING_URL = "test/minilm-GGUF/resolve/main/minilm.gguf"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def chat_gguf():
    """The real small chat model the project already uses (the demo model), served as a download."""
    return demo_model_path()


@pytest.fixture
def mirror(chat_gguf, tmp_path, monkeypatch):
    server = ModelServer().start()
    server.serve(CHAT_URL, chat_gguf)
    server.serve(EMBEDDING_URL, MINILM_EMBEDDING_MODEL)
    catalog = write_catalog(tmp_path, server.url, [
        {"name": "tiny-chat", "kind": "chat", "url": CHAT_URL, "size": chat_gguf.stat().st_size, "ram_gb": 0.6,
         "parameters_b": 0.3, "chat_template": "the file's own"},
        {"name": "huge-chat", "kind": "chat", "url": "test/huge/resolve/main/huge.gguf", "size": 400 * 10**9,
         "ram_gb": 450.0, "parameters_b": 400.0, "tools": True},
        {"name": "minilm", "kind": "embedding", "url": EMBEDDING_URL},
        {"name": "shipped-default", "kind": "embedding", "bundled": "models/multilingual-e5-small.Q4_0.gguf"}])
    monkeypatch.setenv("ENGRAM_MODEL_CATALOG", str(catalog))
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    yield server
    server.stop()


def listed(capsys) -> dict:
    code, out, _ = run(capsys, "models", "list", "--json")
    assert code == 0
    return {m["name"]: m for m in json.loads(out)["models"]}


def test_list_download_use_remove_and_the_downloaded_model_answers_a_turn(mirror, capsys, tmp_path):
    models = listed(capsys)
    assert models["tiny-chat"]["fit"] == "recommended" and not models["tiny-chat"]["installed"]
    assert models["huge-chat"]["fit"] == "too big"
    assert models["shipped-default"]["installed"] and models["shipped-default"]["in_use"]

    code, out, err = run(capsys, "models", "download", "tiny-chat")
    assert code == 0, err
    path = tmp_path / "models" / "chat.gguf"
    assert out.strip().startswith(f"tiny-chat: {path}")
    assert "[########################] 100%" in err or "verifying" in err      # the progress bar was drawn
    assert "MiB" in err
    code, out, _ = run(capsys, "models", "list")
    assert code == 0 and "installed" in out.splitlines()[[i for i, line in enumerate(out.splitlines())
                                                          if "tiny-chat" in line][0]]

    code, out, _ = run(capsys, "models", "use", "tiny-chat")
    assert code == 0 and Settings.load().chat_model == str(path)
    assert listed(capsys)["tiny-chat"]["in_use"]

    code, out, err = run(capsys, "ask", "--session", "s", "--json", "--max-tokens", "8", "Say hello")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["status"] == "complete" and answer["turn"]["timings"]["tokens_per_second"] > 0

    code, out, _ = run(capsys, "models", "remove", "tiny-chat")
    assert code == 0 and "chat_model is back to the default" in out and not path.exists()
    assert Settings.load().chat_model == ""


def test_cli_errors_are_clear_and_change_nothing(mirror, capsys):
    code, _, err = run(capsys, "models", "download", "no-such-model")
    assert code == 2 and "no model named 'no-such-model'" in err and "tiny-chat" in err
    code, _, err = run(capsys, "models", "use", "tiny-chat")
    assert code == 2 and "download it first: engram models download tiny-chat" in err
    code, _, err = run(capsys, "models", "download", "huge-chat")
    assert code == 2 and "HTTP 404" in err
    assert Settings.load().chat_model == ""


def test_using_and_removing_an_embedding_model(mirror, capsys, tmp_path):
    assert run(capsys, "models", "download", "minilm")[0] == 0
    assert run(capsys, "models", "use", "minilm")[0] == 0
    assert Settings.load().embedding_model == str(tmp_path / "models" / "minilm.gguf")
    assert run(capsys, "models", "use", "shipped-default")[0] == 0
    assert Settings.load().embedding_model == ""                  # the bundled default, wherever it is installed


@pytest.fixture
def no_network(monkeypatch):
    """Every connection other than a local (AF_UNIX) socket fails, and is counted."""
    attempts = []
    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        attempts.append(address)
        raise OSError("network access refused by the test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", lambda self, address: connect(self, address) or 0)
    return attempts


def test_a_whole_turn_and_the_model_list_open_no_network_connection(no_network, capsys):
    code, out, err = run(capsys, "ask", "--session", "offline", "--json", "--max-tokens", "8", "Hello there")
    assert code == 0, err
    assert json.loads(out)["status"] == "complete"
    code, out, _ = run(capsys, "models", "list")
    assert code == 0 and "qwen3-4b" in out                         # the shipped catalog, read from disk
    assert no_network == []


def test_the_refused_network_is_what_a_download_meets(no_network, mirror, capsys):
    code, _, err = run(capsys, "models", "download", "minilm")
    assert code == 2 and "cannot reach 127.0.0.1" in err and no_network
