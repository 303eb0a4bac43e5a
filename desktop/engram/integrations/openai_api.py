"""The OpenAI-compatible API: ``/v1/models``, ``/v1/chat/completions`` (streamed or not) and
``/v1/embeddings``, as a Starlette app (api_server.py runs it with uvicorn).

A chat request is one turn of Engram's own turn engine, so memory, recall and the turn record
apply as in the window. Engram keeps each session's history itself: of the messages a client
sends, the last one (the person's) is the turn; the earlier ones only pick the session when the
client names none (one session per conversation, found by its first message). The request's
``user`` picks the Engram user (default: this desktop's profile). Turns of one session run one at
a time, in the order they came (a second request waits, as it would for a busy model). A client
that closes a stream stops the reply; what came is kept, marked stopped, as Stop does in the window.

Every request needs the key (``Authorization: Bearer KEY``); errors have OpenAI's shape.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from engram.core.app import Engram
from engram.core.errors import EngramError, InvalidInput, ModelError, NotFound
from engram.core.conversation.engine import TurnResult
from engram.core.profile.document import CATEGORIES, PROPOSED, ProfileLine
from engram.integrations.api_key import accepts

MODEL_ID = "engram"
SESSION_HEADER = "X-Engram-Session"
MAX_EMBED_INPUTS = 256
DISCONNECT_CHECK_S = 0.25       # how often a reply that is not streamed looks whether its client is still there


class ApiError(Exception):
    """An error answered in OpenAI's shape: {"error": {"message", "type", "param", "code"}}."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
                 param: str | None = None):
        super().__init__(message)
        self.status, self.kind, self.code, self.param = status, kind, code, param

    def response(self) -> JSONResponse:
        return JSONResponse({"error": {"message": str(self), "type": self.kind, "param": self.param,
                                       "code": self.code}}, status_code=self.status)


class TextPart(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["text"]
    text: str


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[TextPart] | None = None

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else "".join(p.text for p in self.content or [])


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    user: str | None = None
    session: str | None = None          # Engram's own field; the X-Engram-Session header does the same


class ProfileProposal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=300)
    category: str = Field(default="other", pattern="^(" + "|".join(CATEGORIES) + ")$")
    user: str = ""


class EmbeddingRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = ""
    input: str | list[str] = Field(min_length=1)
    encoding_format: Literal["float", "base64"] = "float"


def parsed(model: type[BaseModel], body: bytes) -> BaseModel:
    """The request body as ``model``, or a 400 that says what is wrong and where."""
    try:
        data = json.loads(body)
    except ValueError:
        raise ApiError(400, "the request body is not JSON") from None
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ApiError(400, f"{where or 'body'}: {first['msg']}" + (f" ({len(e.errors()) - 1} more problems)"
                                                                    if len(e.errors()) > 1 else ""),
                       param=where or None) from None


def conversation_session(user: str, messages: list[ChatMessage]) -> str:
    """The session of a client's conversation that names none: found by the user and its first message."""
    first = next((m.text for m in messages if m.role == "user"), "")
    return "api-" + hashlib.sha256(f"{user}\n{first}".encode()).hexdigest()[:12]


class ChatApi:
    """The endpoints, over whatever Engram is open now (the window may close and reopen its data)."""

    def __init__(self, engram: Callable[[], Engram | None]):
        self.engram_now = engram
        self._session_locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def engram(self) -> Engram:
        engram = self.engram_now()
        if engram is None:
            raise ApiError(503, "Engram's data is not open right now; try again in a moment", "server_error")
        return engram

    def check_key(self, request: Request) -> None:
        scheme, _, offered = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not accepts(self.engram().data_dir, offered.strip()):
            raise ApiError(401, "a wrong or missing API key: send 'Authorization: Bearer KEY' with the key that"
                                " `engram serve --show-key` (or Settings › Integrations) shows", code="invalid_api_key")

    def app(self) -> Starlette:
        def endpoint(handler):
            async def run(request: Request):
                try:
                    self.check_key(request)
                    return await handler(request)
                except (ApiError, EngramError) as e:
                    return as_api_error(e).response()
            return run

        return Starlette(routes=[Route("/v1/models", endpoint(self.models), methods=["GET"]),
                                 Route("/v1/chat/completions", endpoint(self.chat), methods=["POST"]),
                                 Route("/v1/embeddings", endpoint(self.embeddings), methods=["POST"]),
                                 Route("/v1/engram/profile", endpoint(self.profile), methods=["GET"]),
                                 Route("/v1/engram/profile/proposals", endpoint(self.propose), methods=["POST"])])

    # -- /v1/models ----------------------------------------------------------------------------

    async def models(self, request: Request) -> JSONResponse:
        engram = self.engram()
        listed = [MODEL_ID] + ([engram.embedder.name] if engram.embedder is not None else [])
        return JSONResponse({"object": "list", "data": [{"id": name, "object": "model", "created": 0,
                                                         "owned_by": "engram"} for name in listed]})

    # -- /v1/embeddings ------------------------------------------------------------------------

    async def embeddings(self, request: Request) -> JSONResponse:
        asked = parsed(EmbeddingRequest, await request.body())
        texts = [asked.input] if isinstance(asked.input, str) else asked.input
        if len(texts) > MAX_EMBED_INPUTS or not all(t.strip() for t in texts):
            raise ApiError(400, f"input must be 1 to {MAX_EMBED_INPUTS} texts, none of them empty", param="input")
        embedder = self.engram().embedder
        if embedder is None:
            raise ApiError(503, "Engram has no embedding model loaded (see `engram doctor`)", "server_error")
        vectors = await asyncio.to_thread(embedder.embed, texts)
        data = [{"object": "embedding", "index": i,
                 "embedding": (base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode("ascii")
                               if asked.encoding_format == "base64" else [float(x) for x in v])}
                for i, v in enumerate(vectors)]
        return JSONResponse({"object": "list", "data": data, "model": embedder.name,
                             "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    # -- /v1/engram/profile: Engram's own, beside OpenAI's ----------------------------------------

    async def profile(self, request: Request) -> JSONResponse:
        """The person's profile: the lines in use, and those waiting for their OK."""
        engram = self.engram()
        doc = (await asyncio.to_thread(engram.profiles.read, request.query_params.get("user") or engram.user)).numbered()
        return JSONResponse({"lines": [{"id": line.id, "text": line.text, "category": line.category}
                                       for line in doc.active()],
                             "waiting_for_ok": [{"id": line.id, "text": line.text, "category": line.proposed_for}
                                                for line in doc.lines if line.category == PROPOSED]})

    async def propose(self, request: Request) -> JSONResponse:
        """A line proposed for the profile; it waits for the person's OK in the window."""
        asked = parsed(ProfileProposal, await request.body())
        engram = self.engram()
        change = await asyncio.to_thread(engram.profiles.propose, asked.user or engram.user,
                                         ProfileLine(asked.text, asked.category, by="api", source="the API"))
        return JSONResponse({"proposed": change is not None} | ({"id": change.line.id, "text": change.line.text}
                                                                if change else {"why": "the profile already says this"}))

    # -- /v1/chat/completions ------------------------------------------------------------------

    async def chat(self, request: Request):
        asked = parsed(ChatRequest, await request.body())
        if asked.messages[-1].role != "user" or not asked.messages[-1].text.strip():
            raise ApiError(400, "the last message must be the person's (role 'user') and hold text: Engram answers"
                                " it and keeps the conversation's history itself", param="messages")
        engram = self.engram()
        user = asked.user or engram.user
        session_id = request.headers.get(SESSION_HEADER) or asked.session or conversation_session(user, asked.messages)
        text = asked.messages[-1].text
        try:
            session = await asyncio.to_thread(engram.sessions.get_or_create, session_id, user, text)
        except EngramError as e:
            raise ApiError(400, e.args[0], param="session") from None
        turn = Turn(engram, self._lock(session.id), session.id, text,
                    asked.max_completion_tokens or asked.max_tokens or engram.settings.chat_max_tokens)
        turn.start()
        headers = {SESSION_HEADER: session.id}
        if asked.stream:
            return TurnStream(turn, self._stream(turn), headers=headers | {"Cache-Control": "no-cache"})
        return JSONResponse(completion(turn, await self._awaited(turn, request)), headers=headers)

    @staticmethod
    async def _awaited(turn: "Turn", request: Request) -> TurnResult:
        """The turn's outcome; a client that leaves meanwhile (a timeout, say) stops it, as a closed stream does."""
        outcome = asyncio.ensure_future(turn.outcome())
        while not outcome.done():
            await asyncio.wait({outcome}, timeout=DISCONNECT_CHECK_S)
            if not outcome.done() and await request.is_disconnected():
                turn.stop.set()
        return outcome.result()

    def _lock(self, session_id: str) -> threading.Lock:
        with self._locks_lock:
            return self._session_locks.setdefault(session_id, threading.Lock())

    async def _stream(self, turn: "Turn"):
        """Server-sent events as OpenAI sends them; a client that goes away stops the turn."""
        try:
            yield sse(chunk(turn, {"role": "assistant", "content": ""}))
            async for kind, piece in turn.pieces():     # the reasoning (chat_thinking on) never as content
                yield sse(chunk(turn, {"reasoning_content" if kind == "reasoning" else "content": piece}))
            result = await turn.outcome()
            yield sse(chunk(turn, {}, finish_reason(result)) | {"usage": usage(result), "engram": engram_part(result)})
            yield "data: [DONE]\n\n"
        except ApiError as e:       # the turn failed after the stream began: say so in the stream
            yield sse({"error": {"message": str(e), "type": e.kind, "param": None, "code": e.code}})


class TurnStream(StreamingResponse):
    """A turn's events; however the response ends (done, the client gone, the server stopping),
    the turn is told to stop, which changes nothing once it is over."""

    media_type = "text/event-stream"

    def __init__(self, turn: "Turn", content, headers: dict):
        super().__init__(content, headers=headers)
        self.turn = turn

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.turn.stop.set()
            await self.body_iterator.aclose()


class Turn:
    """One turn run on its own thread (the model's worker streams into it), handed to the event
    loop piece by piece. It waits for the session's lock first: one turn per session at a time."""

    def __init__(self, engram: Engram, lock: threading.Lock, session_id: str, text: str, max_tokens: int):
        self.engram, self.lock, self.session_id, self.text, self.max_tokens = engram, lock, session_id, text, max_tokens
        self.id = "chatcmpl-" + uuid.uuid4().hex
        self.created = int(time.time())
        self.stop = threading.Event()
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue = asyncio.Queue()
        self._last: tuple | None = None      # the item that ended the pieces: ("done", result) or ("error", e)

    def start(self) -> None:
        threading.Thread(target=self._run, name="engram-api-turn", daemon=True).start()

    def _run(self) -> None:
        def put(item: tuple) -> None:
            try:
                self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
            except RuntimeError:        # the server stopped: no one is listening, the turn ends as it may
                self.stop.set()

        try:
            with self.lock:
                if self.stop.is_set():          # the client left while it waited: nothing is said
                    raise ApiError(499, "the client closed the request")
                result = self.engram.turn_engine.send(self.session_id, self.text, max_tokens=self.max_tokens,
                                                      stop=self.stop, on_token=lambda piece: put(("piece", piece)),
                                                      on_reasoning=lambda piece: put(("reasoning", piece)))
            put(("done", result))
        except BaseException as e:      # handed to the request, which answers with it
            put(("error", e))

    async def pieces(self):
        while (item := await self.queue.get())[0] in ("piece", "reasoning"):
            yield item
        self._last = item

    async def outcome(self) -> TurnResult:
        item = self._last
        while item is None or item[0] in ("piece", "reasoning"):
            item = await self.queue.get()
        self._last = item
        if item[0] == "error":
            raise as_api_error(item[1])
        return item[1]


def as_api_error(error: BaseException) -> ApiError:
    if isinstance(error, ApiError):
        return error
    if isinstance(error, InvalidInput):
        return ApiError(400, str(error))
    if isinstance(error, NotFound):
        return ApiError(404, str(error), code="not_found")
    if isinstance(error, ModelError):
        return ApiError(503, str(error), "server_error", code="model_unavailable")
    return ApiError(500, f"the turn failed: {error}", "server_error")


def sse(data: dict) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


def finish_reason(result: TurnResult) -> str:
    return "length" if result.generation.finish_reason == "length" else "stop"


def usage(result: TurnResult) -> dict:
    prompt, reply = result.record.tokens.get("prompt", 0), result.record.tokens.get("reply", 0)
    return {"prompt_tokens": prompt, "completion_tokens": reply, "total_tokens": prompt + reply}


def engram_part(result: TurnResult) -> dict:
    """What Engram adds to OpenAI's answer (clients ignore it): the session, the stored messages
    and what was recalled, as in the turn record."""
    return {"session": result.session.id, "user_message_id": result.user_message.id,
            "reply_message_id": result.reply.id, "status": result.reply.status,
            "recalled": [{"id": m["id"], "text": m["text"]} for m in result.record.recalled],
            "profile": [change.to_json() for change in result.noted]}


def chunk(turn: Turn, delta: dict, finish: str | None = None) -> dict:
    return {"id": turn.id, "object": "chat.completion.chunk", "created": turn.created, "model": MODEL_ID,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def completion(turn: Turn, result: TurnResult) -> dict:
    return {"id": turn.id, "object": "chat.completion", "created": turn.created, "model": MODEL_ID,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": result.reply.content}
                         | ({"reasoning_content": result.reasoning} if result.reasoning else {}),
                         "finish_reason": finish_reason(result)}],
            "usage": usage(result), "engram": engram_part(result)}
