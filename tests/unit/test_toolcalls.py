"""Tool calls in each family's own format: parsing, teaching, and hiding the markup from the stream.

Every catalog family's format is read from replies written in it: a single call, parallel calls,
a call after some text, and a malformed one, which gets the "could not be read" note.
"""

from __future__ import annotations

import json

import pytest

from engram.core.conversation.tool_calls import EXAMPLES, HiddenMarkup, ToolCall, describe, response_message, split
from engram.core.conversation.tools import Tool
from engram.core.models.catalog import TOOL_FORMATS

NAMES = ("search_memory", "files_read")
SEARCH, READ = ToolCall("search_memory", {"query": "花生"}), ToolCall("files_read", {"name": "plan.md"})


def hermes(*calls):
    return "\n".join(f'<tool_call>{{"name": "{c.name}", "arguments": {json.dumps(c.arguments)}}}</tool_call>'
                     for c in calls)


def llama3(*calls, tag=""):      # llama.cpp drops <|python_tag|> (a control token) from the text; some keep it
    return tag + ";\n".join(json.dumps({"name": c.name, "parameters": c.arguments}) for c in calls)


def mistral(*calls, tag=""):     # likewise [TOOL_CALLS]
    return tag + " " + json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls])


def phi4(*calls, tag=True):      # likewise <|tool_call|>
    body = json.dumps([{"name": c.name, "arguments": c.arguments} for c in calls])
    return f"<|tool_call|>{body}<|/tool_call|>" if tag else body


def fenced(*calls):
    value = [{"name": c.name, "arguments": c.arguments} for c in calls]
    return "```json\n" + json.dumps(value[0] if len(value) == 1 else value, indent=2) + "\n```"


WRITERS = {"hermes": hermes, "llama3": llama3, "llama3 <|python_tag|>": lambda *c: llama3(*c, tag="<|python_tag|>"),
           "mistral": mistral, "mistral [TOOL_CALLS]": lambda *c: mistral(*c, tag="[TOOL_CALLS]"),
           "phi4": phi4, "phi4 bare": lambda *c: phi4(*c, tag=False), "json": fenced}
MALFORMED = {"hermes": '<tool_call>{"name": "search_memory", "arguments": {"query": </tool_call>',
             "llama3": '{"name": "search_memory", "parameters": {"query": "x"}',
             "llama3 <|python_tag|>": '<|python_tag|>search_memory.call(query="x")',
             "mistral": ' [{"name": "search_memory", "arguments": {"query": "x"}]',
             "mistral [TOOL_CALLS]": '[TOOL_CALLS] [{"name": "search_memory", "arguments": {"query": "x"}]',
             "phi4": '<|tool_call|>[{"name": "search_memory", "arguments": "{query}"}]<|/tool_call|>',
             "phi4 bare": '[{"name": "search_memory", "arguments": {"query": "x"}}, {"name": "files_read", }]',
             "json": '```json\n{"name": "search_memory", "arguments": {query: "x"}}\n```'}


def streamed(text: str, size: int, names=NAMES) -> tuple[str, HiddenMarkup]:
    shown: list[str] = []
    hide = HiddenMarkup(shown.append, names)
    for i in range(0, len(text), size):
        hide(text[i:i + size])
    hide.flush()
    assert "".join(shown) == hide.text
    return hide.text, hide


@pytest.mark.parametrize("writer", WRITERS)
def test_each_format_reads_a_single_call_parallel_calls_and_a_call_after_text(writer):
    write = WRITERS[writer]
    assert split(write(SEARCH), NAMES) == ("", [SEARCH], "")
    assert split(write(SEARCH, READ), NAMES) == ("", [SEARCH, READ], "")
    assert split("Let me look that up.\n" + write(READ), NAMES) == ("Let me look that up.", [READ], "")


@pytest.mark.parametrize("writer", WRITERS)
def test_each_format_hides_its_calls_from_the_stream_in_pieces_of_any_size(writer):
    reply = "Let me look that up.\n" + WRITERS[writer](SEARCH, READ)
    for size in (1, 2, 5, 40):
        assert streamed(reply, size)[0].strip() == "Let me look that up."


@pytest.mark.parametrize("writer", MALFORMED)
def test_a_malformed_call_in_each_format_gets_the_note_and_is_not_shown(writer):
    visible, calls, note = split("Checking.\n" + MALFORMED[writer], NAMES, "llama3")
    assert visible == "Checking." and calls == [] and "could not be read" in note
    assert '"parameters"' in note                                     # the hint shows the model's own format
    assert streamed("Checking.\n" + MALFORMED[writer], 3)[0].strip() == "Checking."


def test_the_readable_calls_of_a_reply_run_beside_a_broken_one():
    visible, calls, note = split(hermes(SEARCH) + '\n<tool_call>{"name": 7}</tool_call>', NAMES)
    assert calls == [SEARCH] and "call.name should be string, not integer" in note


def test_a_call_of_the_wrong_shape_says_what_is_wrong():
    assert split('<tool_call>{"name": "x", "arguments": "{\\"query\\": \\"rice\\"}"}</tool_call>')[1] == \
        [ToolCall("x", {"query": "rice"})]                # arguments written as a string of JSON
    assert split('<tool_call>{"type": "function", "function": {"name": "x", "arguments": {}}}</tool_call>')[1] == \
        [ToolCall("x", {})]                               # OpenAI's nesting
    for body, problem in [('{"arguments": {}}', "call.name is missing"),
                          ('{"name": 7}', "call.name should be string, not integer"),
                          ('{"name": "x", "arguments": [1]}', "call.arguments should be object, not array"),
                          ("", "no JSON after <tool_call>")]:
        visible, calls, note = split(f"<tool_call>{body}</tool_call>")
        assert calls == [] and problem in note and "<tool_call>" in note


def test_json_that_names_no_offered_tool_is_an_answer_not_a_call():
    answer = ('Your record: {"name": "Alice", "parameters": {"age": 3}} and [1, 2].\n'
              '```json\n{"name": "search_memory", "arguments": {}}\n```\n```python\nprint({"a": [1]})\n```')
    assert split(answer, ("files_read",)) == (answer, [], "")
    assert split(answer) == (answer, [], "")                          # no tools offered: no JSON is a call
    for size in (1, 4, 1000):
        assert streamed(answer, size, ("files_read",))[0] == answer
    assert split(llama3(SEARCH), ()) == (llama3(SEARCH), [], "")


def test_braces_in_prose_are_held_back_only_until_they_cannot_be_json():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append, NAMES)
    for piece in 'Write {"key": value} in the file, then save it.':
        hide(piece)
    assert "".join(shown) == 'Write {"key": value} in the file, then save it.'     # before the reply ends


def test_markup_split_across_pieces_never_reaches_the_stream():
    text, _ = streamed('Hi <tool_call>{"name": "x"}</tool_call>', 3)
    assert text == "Hi "
    text, _ = streamed('Hi [TOOL_CALLS] [{"name": "x", "arguments": {}}]', 2)
    assert text == "Hi "


def test_text_that_only_looks_like_the_start_of_a_call_is_shown():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append, NAMES)
    for piece in ["a <", "b", " <tool", " [see", " {note} `x` ``"]:
        hide(piece)
    assert "".join(shown) == "a <b <tool [see {note} `x` "            # only what may yet be a fence waits
    hide.flush()
    assert hide.text == "a <b <tool [see {note} `x` ``"


def test_text_after_a_tool_result_is_kept_apart_from_the_text_before():
    shown: list[str] = []
    hide = HiddenMarkup(shown.append)
    hide("Checking.<tool_call>{}</tool_call>")
    hide.flush()
    hide.next_round()
    hide("Found it.")
    hide.flush()
    assert hide.text == "Checking. Found it." == "".join(shown)


def test_each_format_is_taught_in_its_own_words_and_read_back():
    tool = Tool("search_memory", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}},
                lambda query: "")
    assert set(EXAMPLES) == set(TOOL_FORMATS)
    for name in TOOL_FORMATS:
        lesson = describe([tool], name)
        example = EXAMPLES[name][0].replace('"<tool name>"', '"search_memory"').replace("{...}", '{"query": "x"}')
        assert EXAMPLES[name][0] in lesson and '"name": "search_memory"' in lesson
        assert split(example, ["search_memory"])[1] == [ToolCall("search_memory", {"query": "x"})], name


def test_the_results_of_parallel_calls_come_back_in_order_in_one_message():
    message = response_message("first", "second")
    assert message["role"] == "user"
    assert message["content"] == "<tool_response>\nfirst\n</tool_response>\n<tool_response>\nsecond\n</tool_response>"
