"""Reading a model's name, size and context length from its GGUF header (Settings shows them)."""

from __future__ import annotations

import struct

import pytest

from engram.core.errors import ModelError
from engram.core.models.gguf_info import read_model_info
from engram.core.paths import BUNDLED_EMBEDDING_MODEL


def test_the_bundled_embedding_model_is_described_from_its_header():
    info = read_model_info(BUNDLED_EMBEDDING_MODEL, "embedding")
    assert info.architecture == "bert" and info.context_length == 512 and info.embedding_length == 384
    assert info.size == BUNDLED_EMBEDDING_MODEL.stat().st_size
    assert "512 tokens of context" in info.summary()


def test_a_text_file_is_not_a_model(tmp_path):
    path = tmp_path / "notes.gguf"
    path.write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF model file"):
        read_model_info(path)


def test_a_damaged_header_is_reported_not_crashed_on(tmp_path):
    path = tmp_path / "cut.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 5) + struct.pack("<Q", 1000) + b"short")
    with pytest.raises(ModelError, match="header is damaged"):
        read_model_info(path)
