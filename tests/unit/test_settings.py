import json

from engram.core.settings import Settings


def test_round_trip(tmp_path):
    settings = Settings.load(tmp_path)
    settings.window_messages = 12
    settings.chat_model = "/models/qwen.gguf"
    settings.save()
    again = Settings.load(tmp_path)
    assert again.window_messages == 12 and again.chat_model == "/models/qwen.gguf" and not again.problem


def test_damaged_file_is_kept_aside_and_defaults_used(tmp_path):
    (tmp_path / "settings.json").write_text("{ not json")
    settings = Settings.load(tmp_path)
    assert settings.window_messages == Settings().window_messages
    assert "unreadable" in settings.problem
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("settings.json.broken-")]
    assert len(aside) == 1 and aside[0].read_text() == "{ not json"


def test_whole_numbers_are_fine_for_decimal_settings_and_bad_values_are_reported(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps(
        {"chat_temperature": 1, "window_messages": "many", "colour": "blue", "recall_threshold": True}))
    settings = Settings.load(tmp_path)
    assert settings.chat_temperature == 1.0
    assert settings.window_messages == Settings().window_messages
    assert settings.recall_threshold == Settings().recall_threshold
    assert "colour" in settings.problem and "window_messages" in settings.problem
