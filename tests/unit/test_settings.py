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


def test_peek_reads_one_setting_and_leaves_a_bad_file_for_load_to_report(tmp_path):
    assert Settings.peek("ui_language", tmp_path) == ""                 # no file yet: the default
    (tmp_path / "settings.json").write_text(json.dumps({"ui_language": "zh_CN", "window_messages": 8}))
    assert Settings.peek("ui_language", tmp_path) == "zh_CN"
    assert Settings.load(tmp_path).ui_language == "zh_CN"
    (tmp_path / "settings.json").write_text(json.dumps({"ui_language": 7}))
    assert Settings.peek("ui_language", tmp_path) == ""                 # mistyped: the default
    (tmp_path / "settings.json").write_text("{ not json")
    assert Settings.peek("ui_language", tmp_path) == ""
    assert (tmp_path / "settings.json").read_text() == "{ not json"     # untouched: load sets it aside and says so
