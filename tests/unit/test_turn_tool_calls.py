"""The turn's tool loop with the formats of other families: every call of a reply runs and gets
its result, a malformed one is answered with a note, and a template that takes tools gets them."""

from __future__ import annotations

import json

from engram.core.conversation.tool_calls import EXAMPLES

SEARCH = {"name": "search_memory", "parameters": {"query": "peanuts"}}
LIST = {"name": "files_list", "parameters": {}}


def test_parallel_calls_each_run_and_come_back_with_their_results(make_engram):
    reply = "Let me check both.\n" + json.dumps(SEARCH) + ";\n" + json.dumps(LIST)      # Llama 3.x, no markup
    engram = make_engram(("Noted.", reply, "Avoid peanuts; no files yet."), recall_mode="on_demand")
    engram.sessions.get_or_create("one", "u")
    engram.turn_engine.send("one", "I am allergic to peanuts")
    engram.outbox.run_due()
    engram.sessions.get_or_create("two", "u")
    streamed: list[str] = []
    result = engram.turn_engine.send("two", "recommend a snack", on_token=streamed.append)
    assert "".join(streamed) == "Let me check both.\nAvoid peanuts; no files yet."
    assert result.reply.content == "Let me check both.\nAvoid peanuts; no files yet."
    assert [(c["name"], c["arguments"]) for c in result.record.tool_calls] == [
        ("search_memory", {"query": "peanuts"}), ("files_list", {})]
    assert "allergic to peanuts" in result.record.tool_calls[0]["result"]
    assert set(result.record.tool_calls[1]) == {"name", "arguments", "result"}
    answered = engram.chat_model().calls[-1][-1]["content"]
    assert answered.count("<tool_response>") == 2
    assert answered.index("allergic to peanuts") < answered.index(result.record.tool_calls[1]["result"])


def test_a_malformed_call_is_answered_with_a_note_and_the_turn_goes_on(make_engram):
    broken = 'One moment. [TOOL_CALLS] [{"name": "files_list", "arguments": {}]'
    engram = make_engram((broken, "Sorry, here it is."), chat_model="/m/Mistral-7B-Instruct-v0.3-Q4_K_M.gguf")
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "list my files")
    [failed] = result.record.tool_calls
    assert failed["name"] is None and failed["result"].startswith("error: the tool call could not be read")
    assert EXAMPLES["mistral"][0] in failed["result"]                    # shown how its own format looks
    assert result.reply.content == "One moment. Sorry, here it is."
    system = engram.chat_model().calls[0][0]["content"]
    assert EXAMPLES["mistral"][0] in system                              # taught in its family's format


def test_a_template_that_takes_tools_is_given_them_instead_of_the_prompts_lesson(make_engram):
    engram = make_engram(("Done.",), recall_mode="on_demand")
    engram.chat_model().takes_tools = True
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "hello")
    [tools] = engram.chat_model().tools
    assert {"search_memory", "files_list"} <= {t["function"]["name"] for t in tools}
    assert "You may call a tool" not in engram.chat_model().calls[0][0]["content"]      # nor counted twice
    assert result.record.tokens["sections"]["tools"] == engram.chat_model().count_tool_tokens(tools) > 0
