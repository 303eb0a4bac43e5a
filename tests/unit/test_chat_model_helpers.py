"""The pure parts of the chat runtime: Gemma turn folding, schema checks, the JSON retry loop,
and the fake chat model the turn-engine tests stand on (its real twin: tests/integration/test_chat_model.py)."""

from __future__ import annotations

import threading

import pytest

from engram.core.models.chat_template import gemma_turns
from engram.core.errors import ModelError
from engram.core.models.structured import generate_json, schema_errors
from fakes import FakeChatModel

PERSON = {"type": "object", "required": ["name", "age"],
          "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                         "tags": {"type": "array", "items": {"type": "string"}}}}


def test_gemma_turns_keep_the_system_text_and_tool_results():
    turns = gemma_turns([{"role": "system", "content": "Be brief."},
                         {"role": "user", "content": "hi"},
                         {"role": "assistant", "content": "hello"},
                         {"role": "tool", "name": "search_memory", "content": "peanut allergy"}])
    assert turns == [{"role": "user", "content": "Be brief.\n\nhi"},
                     {"role": "assistant", "content": "hello"},
                     {"role": "user", "content": "[search_memory]\npeanut allergy"}]


def test_gemma_turns_system_only_becomes_a_user_turn():
    assert gemma_turns([{"role": "system", "content": "S"}, {"role": "assistant", "content": "A"}]) == [
        {"role": "user", "content": "S"}, {"role": "assistant", "content": "A"}]


@pytest.mark.parametrize("value, problem", [
    ({"name": "Ann", "age": 3}, None),
    ({"name": "Ann"}, "$.age is missing"),
    ({"name": "Ann", "age": "3"}, "$.age should be integer"),
    ({"name": "Ann", "age": True}, "$.age should be integer"),
    ({"name": "Ann", "age": 3, "tags": ["a", 1]}, "$.tags[1] should be string"),
    ([1], "$ should be object"),
])
def test_schema_errors(value, problem):
    errors = schema_errors(value, PERSON)
    assert (errors == []) if problem is None else any(problem in e for e in errors)


def test_schema_enum_and_type_lists():
    schema = {"type": ["string", "null"], "enum": ["low", "high", None]}
    assert schema_errors(None, schema) == []
    assert schema_errors("mid", schema) == ["$ should be one of ['low', 'high', None]"]


def test_generate_json_retries_with_the_reason_then_succeeds():
    model = FakeChatModel(['{"name": "Ann"', '{"name": "Ann"}', '{"name": "Ann", "age": 30}'])
    assert generate_json(model, [{"role": "user", "content": "who?"}], PERSON) == {"name": "Ann", "age": 30}
    assert len(model.calls) == 3
    assert model.schemas == [PERSON] * 3
    assert "not valid JSON" in model.calls[1][-1]["content"]
    assert "$.age is missing" in model.calls[2][-1]["content"]
    assert model.calls[2][0] == {"role": "user", "content": "who?"}


def test_schema_lengths_and_counts_are_checked():
    schema = {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 5}}
    assert schema_errors(["short", "ok"], schema) == []
    assert schema_errors(["much too long", "ok", "three"], schema) == [
        "$ has 3 items; the limit is 2", "$[0] is 13 characters long; the limit is 5"]


def test_generate_json_retries_an_answer_that_is_too_long():
    schema = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 10}}}
    model = FakeChatModel(['{"name": "Annabel Lee of the kingdom by the sea"}', '{"name": "Annabel"}'])
    assert generate_json(model, [{"role": "user", "content": "who?"}], schema) == {"name": "Annabel"}
    assert "$.name is 37 characters long; the limit is 10" in model.calls[1][-1]["content"]


def test_generate_json_accepts_raw_newlines_inside_strings():
    """llama-cpp-python's JSON grammar lets control characters into strings; they are harmless."""
    model = FakeChatModel(['{"name": "Ann\nLee", "age": 30}'])
    assert generate_json(model, [{"role": "user", "content": "who?"}], PERSON)["name"] == "Ann\nLee"


def test_generate_json_gives_up_after_the_retries():
    model = FakeChatModel(["nope"])
    with pytest.raises(ModelError, match="no usable JSON in 2 tries"):
        generate_json(model, [{"role": "user", "content": "x"}], PERSON, retries=1)
    assert len(model.calls) == 2


def test_fake_chat_model_streams_words_and_records_calls():
    model = FakeChatModel(lambda messages: f"You said {messages[-1]['content']} twice ")
    pieces = []
    generation = model.generate([{"role": "user", "content": "hello"}], on_token=pieces.append)
    assert pieces == ["You ", "said ", "hello ", "twice "]
    assert generation.text == "".join(pieces) == "You said hello twice "
    assert generation.finish_reason == "stop" and not generation.stopped
    assert model.calls == [[{"role": "user", "content": "hello"}]]


def test_fake_chat_model_honours_stop_and_max_tokens():
    model = FakeChatModel(["one two three four five"])
    stop = threading.Event()
    pieces = []

    def on_token(piece):
        pieces.append(piece)
        if len(pieces) == 2:
            stop.set()

    stopped = model.generate([{"role": "user", "content": "count"}], on_token=on_token, stop=stop)
    assert stopped.text == "one two " and stopped.stopped and stopped.finish_reason == "stopped"
    short = model.generate([{"role": "user", "content": "count"}], max_tokens=3)
    assert short.text == "one two three " and short.finish_reason == "length"
    assert short.completion_tokens == 3
