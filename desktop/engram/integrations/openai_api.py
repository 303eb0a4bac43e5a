"""The OpenAI-compatible API: ``/v1/models``, ``/v1/chat/completions`` (streamed or not) and
``/v1/embeddings``, as a Starlette app (api_server.py runs it with uvicorn).

A chat request is one turn of Engram's own turn engine, so memory, recall and the turn record
apply as in the window. Engram keeps each session's history itself: of the messages a client
sends, the last one (the person's) is the turn; the earlier ones only pick the session when the
client names none (one session per conversation, found by its first message). The request's
``user`` picks the Engram user (default: this desktop's profile). Turns of one session run one at
a time, in the order they came (a second request waits, as it would for a busy model). A client
that closes a stream stops the reply; what came is kept, marked stopped, as Stop does in the window.

Every request needs the key (``Authorization: Bearer KEY``); errors have OpenAI's shape, whatever
went wrong. A request's size is bounded (the body, each text, the number of messages; pydantic's
JSON parser bounds the nesting), and a body that is too large is refused before the rest is read.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Annotated, Literal, TypeVar

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from engram.core.app import Engram
from engram.core.errors import ContextTooLong, EngramError, InvalidInput, ModelError, NotFound
from engram.core.conversation.engine import TurnResult
from engram.core.conversation.sessions import Session, Sessions
from engram.core.models.grammar import schema_grammar
from engram.core.profile.document import CATEGORIES, ProfileLine
from engram.integrations import json_problem
from engram.integrations.api_key import accepts

log = logging.getLogger(__name__)

MODEL_ID = "engram"
SESSION_HEADER = "X-Engram-Session"
MAX_EMBED_INPUTS = 256
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_TEXT_CHARS = 200_000        # a message or a text to embed: far more than a local model's context holds
MAX_MESSAGES = 2048             # OpenAI's own limit
BODY_TIMEOUT_S = 30.0           # a body that takes longer to arrive is refused (408)
RETRY_WINDOW_S = 120            # how long a stored message may be taken for the one a retry repeats
RETRY_HEADER = "x-stainless-retry-count"    # the OpenAI SDKs number each try of a request: 0, 1, 2...
DISCONNECT_CHECK_S = 0.25       # how often a reply that is not streamed looks whether its client is still there

Model = TypeVar("Model", bound=BaseModel)


def bounded(value):
    """Refuses a text, or a text in a list (of texts or of a message's parts), of more than
    MAX_TEXT_CHARS characters."""
    texts = [getattr(t, "text", t) for t in (value if isinstance(value, list) else [value])]
    longest = max((len(t) for t in texts if t is not None), default=0)
    if longest > MAX_TEXT_CHARS:
        raise ValueError(f"a text may hold at most {MAX_TEXT_CHARS} characters, not {longest}")
    return value


def Bounded(kinds):          # noqa: N802 (a type)
    """``kinds`` (a type or a union) with its texts bounded, checked once its type is known."""
    return Annotated[kinds, AfterValidator(bounded)]


class ApiError(Exception):
    """An error answered in OpenAI's shape: {"error": {"message", "type", "param", "code"}}."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", code: str | None = None,
                 param: str | None = None):
        super().__init__(message)
        self.status, self.kind, self.code, self.param = status, kind, code, param

    def response(self) -> JSONResponse:
        return JSONResponse({"error": {"message": str(self), "type": self.kind, "param": self.param,
                                       "code": self.code}}, status_code=self.status)


class Strict(BaseModel):
    """Fields of the wrong type are refused, not coerced ("stream": "yes" is not true); fields
    Engram does not use are ignored."""

    model_config = ConfigDict(extra="ignore", strict=True)


class TextPart(Strict):
    type: Literal["text"]
    text: str


class ChatMessage(Strict):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Bounded(str | list[TextPart] | None) = None

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else "".join(p.text for p in self.content or [])


class JsonSchemaFormat(Strict):
    name: str = ""
    output: dict = Field(default_factory=lambda: {"type": "object"}, alias="schema")


class ResponseFormat(Strict):
    type: Literal["text", "json_object", "json_schema"]
    json_schema: JsonSchemaFormat | None = None

    @property
    def output_schema(self) -> dict | None:
        """The JSON schema the reply must match (None: free text)."""
        if self.type == "text":
            return None
        if self.type == "json_object":
            return {"type": "object"}
        if self.json_schema is None:
            raise ApiError(400, "response_format: type 'json_schema' needs a 'json_schema' holding the schema",
                           param="response_format")
        return self.json_schema.output


class ChatRequest(Strict):
    model: str
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    n: int = 1
    response_format: ResponseFormat | None = None
    stream: bool = False
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    user: str | None = None
    session: str | None = None          # Engram's own field; the X-Engram-Session header does the same


class ProfileProposal(Strict):
    model_config = ConfigDict(extra="forbid", strict=True)
    text: str = Field(min_length=1, max_length=300)
    category: str = Field(default="other", pattern="^(" + "|".join(CATEGORIES) + ")$")
    user: str = ""


class EmbeddingRequest(Strict):
    model: str = ""
    input: Bounded(str | list[str]) = Field(min_length=1)
    encoding_format: Literal["float", "base64"] = "float"


async def read_body(request: Request) -> bytes:
    """The body, refused with 413 as soon as it is known to be too large (by its declared length,
    before any of it is read; else once more has come than may), and with 408 when it is slow."""
    too_large = ApiError(413, f"the request body is larger than {MAX_BODY_BYTES // 2**20} MiB", code="request_too_large")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_TIMEOUT_S):
            async for piece in request.stream():
                body += piece
                if len(body) > MAX_BODY_BYTES:
                    raise too_large
    except TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {BODY_TIMEOUT_S:.0f} s",
                       code="request_timeout") from None
    return bytes(body)


def parsed(model: type[Model], body: bytes) -> Model:
    """The request body as ``model``, or a 400 that says what is wrong and where. pydantic parses
    the JSON itself: it refuses invalid UTF-8, lone surrogates and nesting deeper than its limit."""
    try:
        return model.model_validate_json(body)
    except ValidationError as e:
        first = e.errors()[0]
        if first["type"] == "json_invalid":
            raise ApiError(400, f"the request body is not JSON: {json_problem(first['msg'])}",
                           code="invalid_json") from None
        where = ".".join(str(p) for p in first["loc"])
        more = f" ({len(e.errors()) - 1} more problems)" if len(e.errors()) > 1 else ""
        raise ApiError(400, f"{where or 'body'}: {first['msg'].removeprefix('Value error, ')}{more}",
                       param=where or None, code=first["type"]) from None


def derived_id(*parts: str) -> str:
    return "api-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def conversation_session(user: str, messages: list[ChatMessage]) -> str:
    """The session of a client's conversation that names none: found by the user and its first message."""
    return derived_id(user, next((m.text for m in messages if m.role == "user"), ""))


def open_session(sessions: Sessions, user: str, name: str, first_words: str) -> Session:
    """The user's session called ``name``, made on first use. Session ids are shared by all users,
    so when another user's session has this one, the user's own is kept under an id made from both:
    another user's session reads exactly like one that does not exist."""
    try:
        taken = sessions.get(name).user != user
    except NotFound:
        taken = False
    return sessions.get_or_create(derived_id(user, "session", name) if taken else name, user, first_words)


def is_retry(sessions: Sessions, session_id: str, text: str, tries: str | None) -> bool:
    """Whether the request repeats one whose message is stored already (a client's retry after a
    timeout, a dropped connection or a 5xx): it is answered again, not stored twice. The OpenAI
    SDKs number their tries; from other clients, the same text stored moments ago and left
    unanswered (the turn failed, or stopped when its client left) is taken for that message."""
    if tries == "0":
        return False
    asked = sessions.messages(session_id, roles=("user",), last=1)
    if not asked or asked[0].content != text or age_s(asked[0].created_at) > RETRY_WINDOW_S:
        return False
    replies = sessions.messages(session_id, roles=("assistant",), after_id=asked[0].id)
    return tries is not None or all(reply.status != "complete" for reply in replies)


def age_s(iso: str) -> float:
    return (datetime.now(timezone.utc) - datetime.fromisoformat(iso)).total_seconds()


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
                except ClientDisconnect:        # it left mid-body: no one to answer, nothing was stored
                    return ApiError(499, "the client closed the request").response()
                except (ApiError, EngramError) as e:
                    return as_api_error(e).response()
                except Exception as e:          # a bug: said in OpenAI's shape too, and logged whole
                    log.exception("the API failed on %s %s", request.method, request.url.path)
                    return as_api_error(e).response()
            return run

        async def http_error(request: Request, e: Exception) -> JSONResponse:
            """An unknown path or method, answered in OpenAI's shape like every other error."""
            assert isinstance(e, HTTPException)
            return ApiError(e.status_code, f"{request.method} {request.url.path}: {e.detail}",
                            code="not_found" if e.status_code == 404 else None).response()

        return Starlette(routes=[Route("/v1/models", endpoint(self.models), methods=["GET"]),
                                 Route("/v1/models/{name:path}", endpoint(self.model), methods=["GET"]),
                                 Route("/v1/chat/completions", endpoint(self.chat), methods=["POST"]),
                                 Route("/v1/embeddings", endpoint(self.embeddings), methods=["POST"]),
                                 Route("/v1/engram/profile", endpoint(self.profile), methods=["GET"]),
                                 Route("/v1/engram/profile/proposals", endpoint(self.propose), methods=["POST"])],
                         exception_handlers={HTTPException: http_error})

    # -- /v1/models ----------------------------------------------------------------------------

    def listed(self) -> dict[str, dict]:
        engram = self.engram()
        names = [MODEL_ID] + ([engram.embedder.name] if engram.embedder is not None else [])
        return {name: {"id": name, "object": "model", "created": 0, "owned_by": "engram"} for name in names}

    async def models(self, request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": list(self.listed().values())})

    async def model(self, request: Request) -> JSONResponse:
        name = request.path_params["name"]
        if name not in self.listed():
            raise ApiError(404, f"there is no model {name!r}; GET /v1/models lists them", param="model",
                           code="model_not_found")
        return JSONResponse(self.listed()[name])

    # -- /v1/embeddings ------------------------------------------------------------------------

    async def embeddings(self, request: Request) -> JSONResponse:
        asked = parsed(EmbeddingRequest, await read_body(request))
        texts = [asked.input] if isinstance(asked.input, str) else asked.input
        if len(texts) > MAX_EMBED_INPUTS or not all(t.strip() for t in texts):
            raise ApiError(400, f"input must be 1 to {MAX_EMBED_INPUTS} texts, none of them empty", param="input")
        embedder = self.engram().embedder
        if embedder is None:
            raise ApiError(503, "Engram has no embedding model loaded (see `engram doctor`)", "server_error")
        vectors = await asyncio.to_thread(embedder.embed, texts)
        tokens = await asyncio.to_thread(embedder.count_tokens, texts)
        data = [{"object": "embedding", "index": i,
                 "embedding": (base64.b64encode(np.asarray(v, dtype="<f4").tobytes()).decode("ascii")
                               if asked.encoding_format == "base64" else [float(x) for x in v])}
                for i, v in enumerate(vectors)]
        return JSONResponse({"object": "list", "data": data, "model": embedder.name,
                             "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    # -- /v1/engram/profile: Engram's own, beside OpenAI's ----------------------------------------

    async def profile(self, request: Request) -> JSONResponse:
        """The person's profile: the lines in use, and those waiting for their OK."""
        engram = self.engram()
        doc = await asyncio.to_thread(engram.profiles.read, request.query_params.get("user") or engram.user)
        return JSONResponse(doc.listing())

    async def propose(self, request: Request) -> JSONResponse:
        """A line proposed for the profile; it waits for the person's OK in the window."""
        asked = parsed(ProfileProposal, await read_body(request))
        engram = self.engram()
        change = await asyncio.to_thread(engram.profiles.propose, asked.user or engram.user,
                                         ProfileLine(asked.text, asked.category, by="api", source="the API"))
        return JSONResponse({"proposed": change is not None} | ({"id": change.line.id, "text": change.line.text}
                                                                if change else {"why": "the profile already says this"}))

    # -- /v1/chat/completions ------------------------------------------------------------------

    async def chat(self, request: Request):
        asked = parsed(ChatRequest, await read_body(request))
        if asked.messages[-1].role != "user" or not asked.messages[-1].text.strip():
            raise ApiError(400, "the last message must be the person's (role 'user') and hold text: Engram answers"
                                " it and keeps the conversation's history itself", param="messages")
        if asked.n != 1:
            raise ApiError(400, "n must be 1: Engram gives one reply a turn (send the turn again for another)",
                           param="n")
        schema = asked.response_format.output_schema if asked.response_format else None
        if schema is not None:          # a schema the grammar cannot express is refused before anything is stored
            await asyncio.to_thread(schema_grammar, schema)
        engram = self.engram()
        user = asked.user or engram.user
        name = request.headers.get(SESSION_HEADER) or asked.session or conversation_session(user, asked.messages)
        text = asked.messages[-1].text
        try:
            session = await asyncio.to_thread(open_session, engram.sessions, user, name, text)
        except EngramError as e:
            raise ApiError(400, e.args[0], param="session") from None
        turn = Turn(engram, self._lock(session.id), session.id, text,
                    asked.max_completion_tokens or asked.max_tokens or engram.settings.chat_max_tokens,
                    schema, request.headers.get(RETRY_HEADER), name)
        turn.start()
        headers = {SESSION_HEADER: name}
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
            yield sse(chunk(turn, {}, finish_reason(result)) | {"usage": usage(result), "engram": engram_part(turn, result)})
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

    def __init__(self, engram: Engram, lock: threading.Lock, session_id: str, text: str, max_tokens: int,
                 json_schema: dict | None, tries: str | None, name: str):
        """``tries`` is the client's count of its tries (RETRY_HEADER); ``name`` is the session as
        the client named it (the stored id differs for a name another user's session has)."""
        self.engram, self.lock, self.session_id, self.text, self.max_tokens = engram, lock, session_id, text, max_tokens
        self.json_schema, self.tries, self.name = json_schema, tries, name
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
                options = dict(max_tokens=self.max_tokens, json_schema=self.json_schema, stop=self.stop,
                               on_token=lambda piece: put(("piece", piece)),
                               on_reasoning=lambda piece: put(("reasoning", piece)))
                if is_retry(self.engram.sessions, self.session_id, self.text, self.tries):
                    result = self.engram.turn_engine.regenerate(self.session_id, **options)
                else:
                    result = self.engram.turn_engine.send(self.session_id, self.text, **options)
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
    if isinstance(error, ContextTooLong):
        return ApiError(400, str(error), param="messages", code="context_length_exceeded")
    if isinstance(error, ModelError):
        return ApiError(503, str(error), "server_error", code="model_unavailable")
    return ApiError(500, f"Engram failed on this request: {error}", "server_error")


def sse(data: dict) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


def finish_reason(result: TurnResult) -> str:
    return "length" if result.generation.finish_reason == "length" else "stop"


def usage(result: TurnResult) -> dict:
    prompt, reply = result.record.tokens.get("prompt", 0), result.record.tokens.get("reply", 0)
    return {"prompt_tokens": prompt, "completion_tokens": reply, "total_tokens": prompt + reply}


def engram_part(turn: Turn, result: TurnResult) -> dict:
    """What Engram adds to OpenAI's answer (clients ignore it): the session (as the client named
    it), the stored messages and what was recalled, as in the turn record."""
    return {"session": turn.name, "user_message_id": result.user_message.id,
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
            "usage": usage(result), "engram": engram_part(turn, result)}
