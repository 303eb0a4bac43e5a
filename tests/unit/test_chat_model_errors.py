"""A chat model that cannot be used says why and what to do, before llama.cpp gets confused."""

from __future__ import annotations

import pytest

from engram.core.models import chat_model
from engram.core.models.chat_model import LlamaChatModel, check_fits_memory, load_chat_model
from engram.core.errors import ModelError
from engram.core.settings import Settings


def test_missing_file(tmp_path):
    with pytest.raises(ModelError) as caught:
        LlamaChatModel(tmp_path / "nowhere.gguf")
    assert "does not exist" in str(caught.value)
    assert caught.value.hint


def test_not_a_gguf_file(tmp_path):
    notes = tmp_path / "notes.gguf"
    notes.write_text("these are my notes, not a model")
    with pytest.raises(ModelError) as caught:
        LlamaChatModel(notes)
    assert "not a GGUF" in str(caught.value)
    assert notes.read_text() == "these are my notes, not a model"


def test_truncated_gguf_is_a_load_error_not_a_crash(tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\x00" * 8)
    with pytest.raises(ModelError) as caught:
        LlamaChatModel(broken)
    assert "could not load the chat model" in str(caught.value)
    assert "another .gguf" in caught.value.hint


def test_model_bigger_than_free_memory_is_refused(tmp_path, monkeypatch):
    big = tmp_path / "big.gguf"
    big.write_bytes(b"GGUF" + b"\x00" * 4096)
    monkeypatch.setattr(chat_model, "memory_available", lambda: 1024)
    with pytest.raises(ModelError) as caught:
        LlamaChatModel(big)
    assert "memory is free" in str(caught.value)
    assert "smaller" in caught.value.hint


def test_memory_check_passes_when_it_fits_or_is_unknown(tmp_path, monkeypatch):
    small = tmp_path / "small.gguf"
    small.write_bytes(b"GGUF" + b"\x00" * 16)
    monkeypatch.setattr(chat_model, "memory_available", lambda: 1 << 30)
    check_fits_memory(small)
    monkeypatch.setattr(chat_model, "memory_available", lambda: None)
    check_fits_memory(small)


def test_memory_reading_is_bytes_or_unknown():
    available = chat_model.memory_available()
    assert available is None or available > 1 << 20


def test_settings_path_that_is_missing_fails_clearly(tmp_path):
    settings = Settings(chat_model=str(tmp_path / "gone.gguf"))
    with pytest.raises(ModelError, match="does not exist"):
        load_chat_model(settings)


def test_doctor_marks_a_broken_chat_model_as_failed_but_not_required(tmp_path):
    from engram.core.doctor import _chat_model

    check = _chat_model({"settings": Settings(chat_model=str(tmp_path / "gone.gguf"))})
    assert not check.ok and not check.required
    assert "does not exist" in check.detail and check.fix
