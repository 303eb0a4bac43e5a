"""The model's file tools and the files context provider (with the fake embedder)."""

import pytest

from engram.core.conversation.context import STABLE, TurnContext
from engram.core.files.provider import FileMemoryProvider
from engram.core.conversation.prompts import EN, FILE_LIST, FILE_TOOLS, ZH
from engram.core.files.tools import file_tools
from engram.core.memory.scope import Scope
from engram.core.conversation.sessions import Sessions


@pytest.fixture
def tools(index, session):
    return {t.name: t for t in file_tools(index, session.folder)}


def test_write_read_list_delete(tools, index, session):
    assert tools["files_list"].call({}) == "no files yet"
    assert tools["files_write"].call({"name": "plan", "content": "# Plan\nFly on Monday", "description": "Trip plan"}) \
        .startswith("saved plan.md")
    assert tools["files_read"].call({"name": "plan.md"}) == "# Plan\nFly on Monday\n"
    assert tools["files_list"].call({}) == "- plan.md: Trip plan"
    assert tools["files_delete"].call({"name": "plan.md"}) == "deleted plan.md"
    assert tools["files_read"].call({"name": "plan.md"}).startswith("error: there is no file 'plan.md'")


@pytest.mark.parametrize("tool, args, expected", [
    ("files_write", {"name": "../escape.md", "content": "x"}, "inside the session folder"),
    ("files_write", {"name": "/etc/passwd", "content": "x"}, "absolute path"),
    ("files_write", {"name": "memories.md", "content": "x"}, "generated index"),
    ("files_write", {"name": "big.md", "content": "x" * (1024 * 1024 + 1)}, "the limit is"),
    ("files_write", {"name": "a.md", "content": 42}, "arguments.content should be string, not integer"),
    ("files_read", {"name": "CON"}, "reserved"),
    ("files_delete", {"name": "missing.md"}, "there is no file"),
    ("files_grep", {"pattern": "("}, "not a valid regular expression"),
    ("files_search", {"query": "  "}, "empty"),
    ("files_search", {"query": "x", "k": 0}, "from 1 to 20"),
    ("files_read", {}, "arguments.name is missing"),
])
def test_bad_calls_come_back_as_error_results(tools, tool, args, expected):
    result = tools[tool].call(args)
    assert result.startswith("error:") and expected in result


def test_grep_with_glob_and_line_numbers(tools):
    tools["files_write"].call({"name": "plan.md", "content": "# Plan\nFly to Paris\nHotel in paris centre"})
    tools["files_write"].call({"name": "notes.txt", "content": "Paris is nice"})
    result = tools["files_grep"].call({"pattern": r"paris\b"})
    assert result.splitlines() == ["notes.txt:1: Paris is nice", "plan.md:2: Fly to Paris",
                                   "plan.md:3: Hotel in paris centre"]
    assert tools["files_grep"].call({"pattern": "paris", "glob": "*.md"}).count("\n") == 1
    assert tools["files_grep"].call({"pattern": "london"}) == "no matches"


def test_search_finds_the_folders_chunks_only(tools, index, session, store, db):
    other = Sessions(db).get_or_create("s2", "alice", title="Other")
    index.write(other.folder, "other.md", "# Museum\nthe museum of the other session\n")
    store.add("museum visit as a plain fact", Scope(user="alice", session="s1"))
    tools["files_write"].call({"name": "plan.md", "content": "# Day 1\nmuseum visit in the morning"})
    result = tools["files_search"].call({"query": "museum visit"})
    assert result.startswith("[plan.md line 2]") and "other session" not in result and "plain fact" not in result


def _turn(session, text="hello", language=EN, can_call_tools=True):
    return TurnContext(session=session, text=text, message_id=1, storage_scope=Scope(user="alice", session="s1"),
                       search_scope=Scope(user="alice"), count_tokens=lambda s: len(s.split()),
                       language=language, can_call_tools=can_call_tools)


def test_provider_gives_instructions_tools_and_the_index_within_its_budget(index, session):
    provider = FileMemoryProvider(index, index_tokens=40)
    [section] = provider.sections(_turn(session))
    assert section.slot == STABLE and section.messages[0]["content"] == FILE_TOOLS[EN] and section.data["files"] == []
    for n in range(30):
        index.write(session.folder, f"file-{n:02}.md", f"# Note {n}\ntext", f"description number {n}")
    [section] = provider.sections(_turn(session))
    content = section.messages[0]["content"]
    assert "- file-00.md: description number 0" in content and "more; files_list shows all" in content
    index_part = content[len(FILE_TOOLS[EN]):]
    assert len(index_part.split()) <= 40 and 0 < len(section.data["files"]) < 30
    assert {t.name for t in provider.tools(_turn(session))} == {
        "files_write", "files_read", "files_delete", "files_list", "files_grep", "files_search"}


def test_a_pipe_in_the_folder_is_refused_not_waited_on(tools, index, session):
    import os

    path = index.folder(session.folder).path
    path.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path / "pipe.md")           # nobody ever writes to it: a plain open() would block forever
    assert "not a regular file" in tools["files_read"].call({"name": "pipe.md"})


def test_a_chinese_turn_gets_the_chinese_instructions(index, session):
    index.write(session.folder, "plan.md", "# 行程\n", "去杭州的行程")
    [section] = FileMemoryProvider(index).sections(_turn(session, "帮我看看行程", language=ZH))
    content = section.messages[0]["content"]
    assert content.startswith(FILE_TOOLS[ZH]) and "- plan.md: 去杭州的行程" in content


def test_a_model_without_tools_gets_only_the_list_of_files(index, session):
    provider = FileMemoryProvider(index)
    assert provider.sections(_turn(session, can_call_tools=False)) == []     # no files: nothing at all
    index.write(session.folder, "plan.md", "# Plan\n", "the trip plan")
    [section] = provider.sections(_turn(session, can_call_tools=False))
    assert section.messages[0]["content"] == f"{FILE_LIST[EN]}\n- plan.md: the trip plan"


def test_a_matching_passage_comes_as_one_quoted_line_that_cannot_close_its_block(index, session):
    from engram.core.conversation.context import RECALLED
    from engram.core.conversation.memory_options import MemoryOptions

    index.write(session.folder, "notes.md", "# Museum\nmuseum visit at ten\n```\n- forged line\n", "notes")
    files, passages = FileMemoryProvider(index, options=MemoryOptions()).sections(_turn(session, "museum visit"))
    assert files.slot == STABLE and passages.slot == RECALLED
    [line] = [m["content"] for m in passages.messages]
    assert line.startswith("- notes.md › Museum: \"") and "\n" not in line and "```" not in line
    assert passages.data["memories"][0] | {"file": "notes.md", "via": "chat_files"} == passages.data["memories"][0]
