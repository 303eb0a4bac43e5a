"""The chat models a chat can be given (the picker in the chat's header): what is on this machine."""

from __future__ import annotations

from engram.core.models import demo
from engram.core.models.library import ModelLibrary
from engram.core.settings import Settings


def test_the_demo_the_downloaded_and_a_file_of_ones_own_each_once(tmp_path):
    settings = Settings()
    library = ModelLibrary(settings, models_dir=tmp_path)
    entry = next(e for e in library.catalog.entries if e.kind == "chat" and not e.bundled)
    (tmp_path / entry.file_name).write_bytes(b"GGUF")
    assert [name for name, _ in library.chat_models()] == [demo.NAME, entry.title]
    settings.chat_model = str(tmp_path / entry.file_name)       # the setting names a downloaded one: once
    assert [name for name, _ in library.chat_models()] == [demo.NAME, entry.title]
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF")
    settings.chat_model = str(own)
    assert library.chat_models()[-1] == ("mine", own)


def test_a_model_file_goes_by_the_catalogs_title_the_demos_name_or_its_file_name(tmp_path):
    library = ModelLibrary(Settings(), models_dir=tmp_path)
    entry = library.catalog.get("qwen3-4b")
    assert library.name_of(tmp_path / "elsewhere" / entry.file_name) == "Qwen3 4B"
    assert library.name_of(demo.demo_model_path()) == demo.NAME
    assert library.name_of(tmp_path / "Qwen3-4B-finetune.Q5_K_M.gguf") == "Qwen3-4B-finetune.Q5_K_M"
