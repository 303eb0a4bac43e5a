"""``engram mcp``: the person's memories and session files as tools for an MCP client, over stdio.

Built on the official MCP Python SDK (``mcp``). Every tool works inside one user's scope: another
user's memory or session reads as missing. With ``read_only`` the writing tools are not offered
at all. A memory added here names the client (its MCP ``clientInfo``) in its source, which the
window's Memories tab shows, and its history says a model added it (the history's actors are a
fixed set: user, model, system). Forgetting goes through core/forget.py, so it is as complete as
in the window.

Standard input is read here rather than by the SDK (see ``serve``): every line gets an answer.
"""

from __future__ import annotations

import functools
import io
import json
import sys
from typing import Annotated, BinaryIO

import anyio
from anyio.abc import ObjectSendStream
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_PARAMS, PARSE_ERROR, ErrorData, JSONRPCError, ToolAnnotations, jsonrpc_message_adapter
from pydantic import Field, ValidationError

from engram.core.app import Engram
from engram.core.errors import EngramError, NotFound
from engram.core.files.tools import file_tools
from engram.core.forget import LOG_LEFT, forget_memory
from engram.core.memory.records import Actor, Kind, Memory
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.conversation.sessions import Session
from engram.integrations import json_problem
from engram.core.profile.document import CATEGORIES, ProfileLine

MAX_RESULTS = 50
MemoryId = Annotated[int, Field(ge=1, le=2**63 - 1)]      # what the database can hold
READING = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADDING = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
REPLACING = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
FORGETTING = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def client_name(ctx: Context) -> str:
    """The name the MCP client gave itself when it connected ("an MCP client" when it gave none)."""
    params = ctx.session.client_params
    return params.client_info.name if params is not None and params.client_info.name else "an MCP client"


def memory_json(memory: Memory, score: float | None = None) -> dict:
    return {"id": memory.id, "text": memory.text, "kind": memory.kind.value, "session": memory.scope.session,
            "created_at": memory.created_at, "source": memory.source, "pinned": memory.pinned} | (
        {"score": round(score, 4)} if score is not None else {})


def build_server(engram: Engram, user: str, *, read_only: bool = False) -> MCPServer:
    """The MCP server for one user of this data folder."""
    mine = Scope(user=user)
    server = MCPServer("engram", version="0.1.0", log_level="WARNING", instructions=(
        "Engram is this person's long-term memory, kept on their computer. Search it before answering"
        " questions about them; add a memory for a lasting fact or preference they tell you."
        + (" This server is read-only." if read_only else "")))

    def tool(annotations: ToolAnnotations, name: str | None = None):
        """Register a tool; Engram's own errors (bad input, not found) become its error text, said plainly."""
        def register(fn):
            @functools.wraps(fn)
            def run(*args, **kwargs):
                try:
                    return fn(*args, **kwargs)
                except EngramError as e:
                    raise ToolError(str(e)) from None
            server.add_tool(run, name=name, annotations=annotations)
            return fn
        return register

    def session_of(session_id: str) -> Session:
        """The user's session; another user's reads exactly as a missing one."""
        try:
            session = engram.sessions.get(session_id)
        except NotFound:
            session = None
        if session is None or session.user != user:
            raise ToolError(f"there is no session {session_id!r}; list_sessions shows them")
        return session

    def files_tool(session_id: str, name: str):
        return {t.name: t for t in file_tools(engram.files, session_of(session_id).folder)}[name].run

    @tool(READING)
    def search_memory(query: str, k: int = 5, kinds: list[str] | None = None,
                      include_history: bool = False) -> list[dict]:
        """Find the person's memories by meaning and words, best first. kinds limits the kinds
        (message, fact, preference, task, summary, experience, file). include_history: also what is
        no longer true (an old address, a changed plan), each with "outdated" saying why ("" when
        it is still true); default false."""
        options = SearchOptions(k=max(1, min(k, MAX_RESULTS)), kinds=tuple(kinds or ()),
                                include_superseded=include_history)
        return [memory_json(hit.memory, hit.score)
                | ({"outdated": hit.memory.outdated(options.moment)} if include_history else {})
                for hit in engram.store.search(query, mine, options).hits]

    @tool(READING)
    def list_memories(kind: str | None = None, contains: str = "", limit: int = 20) -> list[dict]:
        """The person's memories, newest first; kind and contains (any case) narrow the list."""
        return [memory_json(m) for m in engram.store.list(mine, kinds=[kind] if kind else [], contains=contains,
                                                           limit=max(1, min(limit, 500)))]

    @tool(READING)
    def list_sessions() -> list[dict]:
        """The person's chat sessions, newest first: id, title and dates."""
        return [{"id": s.id, "title": s.title, "created_at": s.created_at, "updated_at": s.updated_at}
                for s in engram.sessions.list(user)]

    @tool(READING)
    def read_profile() -> dict:
        """What matters about the person, as Engram keeps it in every chat (health, who they are,
        family, diet, limits, how to answer, commitments): the lines in use and those waiting for
        their OK, each with its number and heading."""
        return engram.profiles.read(user).listing()

    @tool(READING)
    def read_session_file(session: str, name: str) -> str:
        """Read a markdown file from a session's folder of files."""
        return files_tool(session, "files_read")(name=name)

    @tool(READING)
    def search_session_files(session: str, query: str) -> str:
        """Find passages in a session's files by meaning and words."""
        return files_tool(session, "files_search")(query=query)

    if read_only:
        return server

    @tool(ADDING)
    def add_memory(text: str, kind: str = "fact", ctx: Context = None) -> dict:
        """Remember a text for the person (kind: fact, preference, task or experience). The same
        text of the same kind is stored once."""
        if kind not in (Kind.FACT, Kind.PREFERENCE, Kind.TASK, Kind.EXPERIENCE):
            raise ToolError(f"kind must be fact, preference, task or experience, not {kind!r}")
        client = client_name(ctx)
        memory = engram.store.add(text, mine, kind, actor=Actor.MODEL, source={"client": client, "via": "mcp"})
        return memory_json(memory)

    @tool(ADDING)
    def propose_profile_line(text: str, category: str = "other", ctx: Context = None) -> dict:
        """Propose a lasting fact about the person for their profile (one short sentence; category:
        health, identity, people, diet, limits, style, commitments or other). It waits for the
        person's OK in Engram's window before it is used."""
        if category not in CATEGORIES:
            raise ToolError(f"category must be one of {', '.join(CATEGORIES)}, not {category!r}")
        change = engram.profiles.propose(user, ProfileLine(text, category, by="mcp", source=client_name(ctx)))
        if change is None:
            return {"proposed": False, "why": "the profile already says this"}
        return {"proposed": True, "id": change.line.id, "text": change.line.text}

    @tool(FORGETTING, name="forget_memory")
    def forget(id: MemoryId) -> str:
        """Forget one of the person's memories for good (with the notes made from it)."""
        engram.store.get(id, mine)                  # another user's memory reads as missing
        done = forget_memory(engram, id, actor=Actor.MODEL)
        made = done.ids[1:]
        return (f"forgot #{id}" + (f" and the notes made from it: #{', #'.join(map(str, made))}" if made else "")
                + ("" if done.log_released else f" (note: {LOG_LEFT})"))

    @tool(REPLACING)
    def write_session_file(session: str, name: str, text: str, description: str = "") -> str:
        """Save a markdown file in a session's folder (creates or replaces it), with a one-line description."""
        return files_tool(session, "files_write")(name=name, content=text, description=description or None)

    return server


def serve(engram: Engram, user: str, *, read_only: bool = False) -> None:
    """Answer one MCP client on standard input and output until it closes them."""
    anyio.run(serve_stdio, build_server(engram, user, read_only=read_only), sys.stdin.buffer)


async def serve_stdio(server: MCPServer, stdin: BinaryIO) -> None:
    """The SDK's stdio transport (it keeps stray output off standard output), reading ``stdin``
    itself. The SDK (mcp 2.3) decodes bytes that are not UTF-8 as U+FFFD, which would be stored,
    and drops a line it cannot parse (malformed JSON, a lone surrogate) without a word, so the
    client waits for its timeout. Here such a line gets a JSON-RPC error."""
    lowlevel = server._lowlevel_server         # noqa: SLF001 (MCPServer.run_stdio_async does the same)
    async with stdio_server(stdin=anyio.wrap_file(io.StringIO())) as (_, replies):   # its own reader stops at once
        requests, inbox = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read_lines, anyio.wrap_file(stdin), requests, replies)
            await lowlevel.run(inbox, replies, lowlevel.create_initialization_options())


async def read_lines(stdin: anyio.AsyncFile[bytes], requests: ObjectSendStream[SessionMessage],
                     replies: ObjectSendStream[SessionMessage]) -> None:
    """Each line of ``stdin`` to the server as a message, or, when it is not one, an error to the client."""
    async with requests:
        async for line in stdin:
            if not line.strip():
                continue
            try:
                message = jsonrpc_message_adapter.validate_json(line.decode("utf-8"), by_name=False)
            except (UnicodeDecodeError, ValidationError) as e:
                await replies.send(SessionMessage(refusal(line, e)))
                continue
            await requests.send(SessionMessage(message))


def refusal(line: bytes, error: UnicodeDecodeError | ValidationError) -> JSONRPCError:
    """-32602 (invalid params) for a request whose id can be read (its text is not UTF-8 or holds
    a lone surrogate, which Python's own parser reads); -32700 (parse error) for one that is not JSON."""
    problem = ("the message is not UTF-8 text; nothing was stored" if isinstance(error, UnicodeDecodeError)
               else json_problem(error.errors()[0]["msg"]))
    try:
        request_id = json.loads(line.decode("utf-8", "replace")).get("id")
    except (ValueError, AttributeError):
        return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=problem))
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=INVALID_PARAMS, message=problem))
