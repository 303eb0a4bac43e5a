"""``engram mcp`` as an MCP client sees it: the SDK's own client starts the real command over stdio
(the bundled embedding model, a temporary data folder) and lists and calls every tool."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import LATEST_PROTOCOL_VERSION, Implementation

from engram.core.app import Engram
from engram.core.errors import NotFound
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.real_model

DESKTOP = str(Path(__file__).resolve().parents[2] / "desktop")
READING = {"search_memory", "list_memories", "list_sessions", "read_session_file", "search_session_files",
           "read_profile"}
WRITING = {"add_memory", "forget_memory", "write_session_file", "propose_profile_line"}


def server(data_dir: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("ENGRAM_", "HOME", "PATH", "LANG", "LC_"))}
    env["PYTHONPATH"] = os.pathsep.join([DESKTOP, os.environ.get("PYTHONPATH", "")])
    return StdioServerParameters(command=sys.executable, args=["-m", "engram", "mcp", "--data-dir", str(data_dir),
                                                               "--user", "U", *extra], env=env)


def connect(params: StdioServerParameters) -> Client:
    return Client(params, client_info=Implementation(name="Test Client", version="1.0"), read_timeout_seconds=120)


def text_of(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def test_the_sdk_client_lists_and_calls_every_tool_inside_the_users_scope(tmp_path):
    data = tmp_path / "data"
    engram = Engram(data, meaning=False)
    engram.sessions.get_or_create("trip", "U", title="Trip planning")
    engram.sessions.get_or_create("theirs", "V", title="Someone else's")
    secret = engram.store.add("V keeps the spare key under the blue flowerpot", Scope(user="V"), actor="user")
    engram.close()

    async def talk():
        async with connect(server(data)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == READING | WRITING
            assert all(tools[name].annotations.read_only_hint for name in READING)
            assert tools["forget_memory"].annotations.destructive_hint is True
            assert tools["add_memory"].annotations.destructive_hint is False

            added = (await client.call_tool("add_memory", {"text": "I am allergic to peanuts", "kind": "fact"}))
            assert not added.is_error, text_of(added)
            memory = json.loads(text_of(added))
            assert memory["source"] == {"client": "Test Client", "via": "mcp"}
            beside = Engram(data, meaning=False)            # as the window sees it, meanwhile
            try:
                assert beside.store.get(memory["id"]).source == {"client": "Test Client", "via": "mcp"}
                assert [(c.action, c.actor) for c in beside.store.history(memory["id"])] == [("add", "model")]
            finally:
                beside.close()

            found = await client.call_tool("search_memory", {"query": "Which nuts should I avoid?", "k": 3})
            assert [hit["id"] for hit in found.structured_content["result"]][:1] == [memory["id"]]
            theirs = await client.call_tool("search_memory", {"query": "spare key under the blue flowerpot"})
            assert secret.id not in [hit["id"] for hit in theirs.structured_content["result"]]
            listed = await client.call_tool("list_memories", {"contains": "PEANUTS"})
            assert [m["id"] for m in listed.structured_content["result"]] == [memory["id"]]
            sessions = await client.call_tool("list_sessions", {})
            assert [s["id"] for s in sessions.structured_content["result"]] == ["trip"]

            wrote = await client.call_tool("write_session_file", {"session": "trip", "name": "plan.md",
                                                                  "text": "# Plan\nTake the night train to Vienna.",
                                                                  "description": "the route"})
            assert not wrote.is_error and "saved plan.md" in text_of(wrote)
            read = await client.call_tool("read_session_file", {"session": "trip", "name": "plan.md"})
            assert "night train to Vienna" in text_of(read)
            searched = await client.call_tool("search_session_files", {"session": "trip", "query": "railway to Austria"})
            assert "plan.md" in text_of(searched)
            other = await client.call_tool("read_session_file", {"session": "theirs", "name": "plan.md"})
            assert other.is_error and "there is no session 'theirs'" in text_of(other)
            bad = await client.call_tool("add_memory", {"text": "   ", "kind": "fact"})
            assert bad.is_error and "memory text is empty" in text_of(bad)

            refused = await client.call_tool("forget_memory", {"id": secret.id})
            assert refused.is_error and f"there is no memory #{secret.id}" in text_of(refused)
            forgot = await client.call_tool("forget_memory", {"id": memory["id"]})
            assert not forgot.is_error and f"forgot #{memory['id']}" in text_of(forgot)
            return memory["id"]

    memory_id = asyncio.run(talk())
    engram = Engram(data, meaning=False)
    try:
        with pytest.raises(NotFound):
            engram.store.get(memory_id)
        assert [(c.action, c.actor) for c in engram.store.history(memory_id)] == [("delete", "model")]
        assert engram.store.get(secret.id).text.startswith("V keeps")          # another user's, untouched
        assert (data / "sessions" / engram.sessions.get("trip").folder / "plan.md").is_file()
    finally:
        engram.close()


def test_search_shows_what_is_no_longer_true_only_when_asked_and_says_why(tmp_path):
    data = tmp_path / "data"
    engram = Engram(data, meaning=False)
    mine = Scope(user="U")
    old = engram.store.add("I live at 4 Elm Road", mine, actor="user")
    new = engram.store.add("I live at 9 Harbour Lane", mine, actor="user")
    engram.store.update(old.id, superseded_by=new.id)
    lapsed = engram.store.add("I live in the student hall until my exams", mine, actor="user")
    engram.store.update(lapsed.id, valid_to="2020-06-30T00:00:00.000Z")
    engram.close()

    async def talk():
        async with connect(server(data, "--read-only")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["search_memory"].input_schema["properties"]["include_history"]["default"] is False
            now = (await client.call_tool("search_memory", {"query": "Where do I live?", "k": 10}))
            assert [(m["id"], "outdated" in m) for m in now.structured_content["result"]] == [(new.id, False)]
            then = await client.call_tool("search_memory", {"query": "Where do I live?", "k": 10,
                                                            "include_history": True})
            return [(m["id"], m["outdated"]) for m in then.structured_content["result"]]

    found = asyncio.run(talk())
    assert found[0] == (new.id, "")         # the current one first: history counts half its score
    assert dict(found) == {new.id: "", old.id: "superseded", lapsed.id: "out of date since 2020-06-30"}


def test_read_only_offers_no_writing_tool(tmp_path):
    data = tmp_path / "data"
    engram = Engram(data, meaning=False)
    kept = engram.store.add("Our wifi password is on the fridge", Scope(user="U"), actor="user")
    engram.close()

    async def talk():
        async with connect(server(data, "--read-only")) as client:
            assert {t.name for t in (await client.list_tools()).tools} == READING
            refused = await client.call_tool("add_memory", {"text": "sneaky", "kind": "fact"})
            assert refused.is_error
            listed = await client.call_tool("list_memories", {})
            assert [m["id"] for m in listed.structured_content["result"]] == [kept.id]

    asyncio.run(talk())
    engram = Engram(data, meaning=False)
    try:
        assert engram.store.count(Scope(user="U")) == 1
    finally:
        engram.close()


def test_the_profile_is_read_and_a_proposed_line_waits_for_the_persons_ok(tmp_path):
    from engram.core.profile.document import ProfileLine

    data = tmp_path / "data"
    engram = Engram(data, meaning=False)
    engram.profiles.note("U", ProfileLine("Allergic to peanuts.", "health"))
    engram.profiles.note("V", ProfileLine("Lives in Oslo.", "identity"))
    engram.close()

    async def talk():
        async with connect(server(data)) as client:
            proposed = await client.call_tool("propose_profile_line", {"text": "Has a daughter, Mia.",
                                                                       "category": "people"})
            assert not proposed.is_error, text_of(proposed)
            bad = await client.call_tool("propose_profile_line", {"text": "x", "category": "secrets"})
            assert bad.is_error and "category must be one of" in text_of(bad)
            return json.loads(text_of(await client.call_tool("read_profile", {})))

    profile = asyncio.run(talk())
    assert profile["lines"] == [{"id": 1, "text": "Allergic to peanuts.", "category": "health"}]
    assert [(p["text"], p["category"]) for p in profile["waiting_for_ok"]] == [("Has a daughter, Mia.", "people")]
    engram = Engram(data, meaning=False)
    try:
        (waiting,) = [line for line in engram.profiles.read("U").lines if line.category == "proposed"]
        assert (waiting.by, waiting.source) == ("mcp", "Test Client")
        assert [line.text for line in engram.profiles.active("U")] == ["Allergic to peanuts."]
    finally:
        engram.close()


def test_every_line_gets_an_answer_even_one_that_is_no_message(tmp_path):
    """The SDK dropped a line it could not parse (the client waited for its timeout) and stored
    bytes that are not UTF-8 as U+FFFD; an id too large for the database failed with no reason."""
    data = tmp_path / "data"
    Engram(data, meaning=False).close()
    params = server(data)
    process = subprocess.Popen([params.command, *params.args], env=params.env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ask(line: bytes) -> dict:
        process.stdin.write(line + b"\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 120)
        assert ready, f"no answer to {line!r}"
        return json.loads(process.stdout.readline())

    def call(request_id: int, tool: str, arguments: str) -> bytes:
        return (f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {{"name": "{tool}",'
                f' "arguments": {arguments}}}}}').encode()

    try:
        assert "result" in ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}).encode())
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        surrogate = ask(call(2, "add_memory", '{"text": "half a pair \\ud800"}'))
        assert surrogate["id"] == 2 and surrogate["error"]["code"] == -32602
        assert "a lone surrogate" in surrogate["error"]["message"]
        not_utf8 = ask(call(3, "add_memory", '{"text": "caf"}').replace(b"caf", b"caf\xe9"))     # Latin-1
        assert not_utf8["id"] == 3 and not_utf8["error"] == {"code": -32602,
                                                             "message": "the message is not UTF-8 text; nothing was stored"}
        malformed = ask(b'{"jsonrpc": "2.0", "id": 4, "method"')
        assert malformed["id"] is None and malformed["error"]["code"] == -32700
        huge = ask(call(5, "forget_memory", f'{{"id": {2**70}}}'))["result"]
        assert huge["isError"] and "less than or equal to 9223372036854775807" in huge["content"][0]["text"]
        listed = ask(call(6, "list_memories", "{}"))["result"]
        assert listed["structuredContent"] == {"result": []}                  # nothing was stored
    finally:
        process.stdin.close()
        assert process.wait(60) == 0
    assert b"Traceback" not in process.stderr.read()
