"""Prompt-level tool calls: parsing, and hiding the markup from the stream."""

from __future__ import annotations

from engram.core.conversation.tool_calls import HiddenMarkup, ToolCall, split


def test_a_tool_call_is_split_from_the_visible_text():
    text = 'Looking. <tool_call>{"name": "search_memory", "arguments": {"query": "花生"}}</tool_call>'
    assert split(text) == ("Looking.", ToolCall("search_memory", {"query": "花生"}), "")
    assert split("no call here") == ("no call here", None, "")
    visible, call, problem = split("<tool_call>{not json</tool_call>")
    assert call is None and "could not be read" in problem


def test_a_call_of_the_wrong_shape_says_what_is_wrong():
    assert split('<tool_call>{"name": "x", "arguments": "{\\"query\\": \\"rice\\"}"}</tool_call>')[1] == \
        ToolCall("x", {"query": "rice"})                  # arguments written as a string of JSON
    for body, problem in [('{"arguments": {}}', "call.name is missing"),
                          ('{"name": 7}', "call.name should be string, not integer"),
                          ('{"name": "x", "arguments": [1]}', "call.arguments should be object, not array")]:
        visible, call, note = split(f"<tool_call>{body}</tool_call>")
        assert call is None and problem in note


def test_markup_split_across_pieces_never_reaches_the_stream():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append)
    for piece in ["Hi ", "<to", "ol_", "call>{\"name\"", ": \"x\"}</tool_call>"]:
        hide(piece)
    hide.flush()
    assert "".join(shown) == "Hi " and hide.text == "Hi "


def test_text_that_only_looks_like_the_start_of_a_tag_is_shown():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append)
    for piece in ["a <", "b", " <tool"]:
        hide(piece)
    hide.flush()
    assert "".join(shown) == "a <b <tool"


def test_text_after_a_tool_result_is_kept_apart_from_the_text_before():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append)
    hide("Checking.<tool_call>{}</tool_call>")
    hide.flush()
    hide.next_round()
    hide("Found it.")
    hide.flush()
    assert hide.text == "Checking. Found it." == "".join(shown)
