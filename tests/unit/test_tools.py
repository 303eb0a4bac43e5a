"""A tool's arguments are checked against its whole JSON schema before it runs."""

from __future__ import annotations

import json

import pytest

from engram.core.conversation.tools import Tool

NOTE = {"type": "object", "required": ["text"],
        "properties": {"text": {"type": "string", "maxLength": 100},
                       "tags": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
                       "k": {"type": "integer", "minimum": 1, "maximum": 20}}}


@pytest.fixture
def note():
    ran = []
    return Tool("note", "Write a note.", NOTE, lambda **args: ran.append(args) or "noted"), ran


def test_a_valid_call_runs(note):
    tool, ran = note
    assert tool.call(json.dumps({"text": "buy rice", "tags": ["food"], "k": 2})) == "noted"
    assert ran == [{"text": "buy rice", "tags": ["food"], "k": 2}]


def test_a_too_long_argument_is_refused_with_its_length_not_its_text(note):
    tool, ran = note
    result = tool.call({"text": "a" * 10_000})
    assert result == "error: bad arguments for note: arguments.text is 10000 characters long; the limit is 100"
    assert ran == []


@pytest.mark.parametrize("arguments, problem", [
    ({"text": "x", "tags": ["a", "b", "c", "d"]}, "arguments.tags has 4 items; the limit is 3"),
    ({"text": "x", "k": 0}, "arguments.k is 0; it should be from 1 to 20"),
    ({"text": "x", "k": True}, "arguments.k should be integer, not boolean"),
    ({"tags": []}, "arguments.text is missing"),
    ({"text": "x", "colour": "red"}, "arguments does not take colour"),
    ("[1, 2]", "arguments should be object, not array"),
    ("{not json", "bad arguments for note: Expecting property name"),
])
def test_bad_arguments_are_refused_before_the_tool_runs(note, arguments, problem):
    tool, ran = note
    result = tool.call(arguments)
    assert result.startswith("error:") and problem in result
    assert ran == []
