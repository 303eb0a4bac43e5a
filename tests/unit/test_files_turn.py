"""Session files in real turns: the model's tool calls (scripted, so the test is deterministic)
write a file in one turn and read it in a later one; the index rides along in the context."""

import json

from engram.core.files import INDEX_NAME


def call(tool: str, **arguments) -> str:
    return "<tool_call>" + json.dumps({"name": tool, "arguments": arguments}) + "</tool_call>"


def scripted(messages: list[dict]) -> str:
    last = messages[-1]["content"]
    if last.startswith("<tool_response>"):
        return "Done: " + last.removeprefix("<tool_response>").removesuffix("</tool_response>").strip()
    if "save the plan" in last:
        return call("files_write", name="plan", content="# Plan\nFly to Lisbon on Friday.", description="Trip plan")
    if "what was the plan" in last:
        return call("files_read", name="plan.md")
    if "escape" in last:
        return call("files_write", name="../../outside.md", content="x")
    return "OK."


def test_one_turn_writes_a_file_and_a_later_turn_reads_it(make_engram):
    engram = make_engram(scripted)
    session = engram.sessions.get_or_create("s", "u")
    first = engram.turn_engine.send("s", "please save the plan")
    assert first.record.tool_calls[0]["name"] == "files_write"
    assert first.reply.content == "Done: saved plan.md (63 bytes)"
    folder = engram.files.folder(session.folder).path
    assert (folder / "plan.md").read_text() == "---\ndescription: Trip plan\n---\n# Plan\nFly to Lisbon on Friday.\n"
    assert "- **plan.md**: Trip plan" in (folder / INDEX_NAME).read_text()

    second = engram.turn_engine.send("s", "what was the plan?")
    assert "- plan.md: Trip plan" in second.record.messages[0]["content"]       # the index is in the context
    assert second.record.tool_calls == [{"name": "files_read", "arguments": {"name": "plan.md"},
                                         "result": "# Plan\nFly to Lisbon on Friday.\n"}]
    assert "Fly to Lisbon on Friday." in second.reply.content
    assert second.record.tokens["sections"]["files"] > 0


def test_a_bad_tool_call_is_answered_and_the_turn_goes_on(make_engram, tmp_path):
    engram = make_engram(scripted)
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "escape the folder")
    assert result.reply.status == "complete"
    assert result.record.tool_calls[0]["result"].startswith("error: '../../outside.md' does not stay inside")
    assert not list(tmp_path.rglob("outside.md"))


def test_deleting_a_session_forgets_its_file_index(make_engram):
    engram = make_engram(scripted)
    session = engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", "please save the plan")
    assert engram.files.statuses(session.folder)
    engram.delete_session("s")
    assert engram.files.statuses(session.folder) == []
    assert engram.db.query_one("SELECT count(*) FROM memories WHERE kind = 'file'")[0] == 0
