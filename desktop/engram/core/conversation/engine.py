"""The turn: one message from the person and the model's reply, as DESIGN.md describes it.

1. The user message is committed (with its archive job) before anything else can fail.
2. Context providers contribute sections; the token budget decides what fits.
3. The reply streams; tool calls (all of a reply's, in the model's own format) run in a bounded
   loop; Stop keeps the partial reply.
4. The reply, the turn record and the reply's background jobs are committed together (on Retry,
   in place of the last reply, which becomes another version of it: core/conversation/branches.py).
5. The outbox worker archives the messages, writes summaries and distills memories afterwards.

A chat's own settings (core/conversation/chat_settings.py) join in: its instructions follow the
system prompt, its model answers, and with memory off nothing is archived, learned or recalled.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engram.core.conversation.archive import ARCHIVE_JOB, forget_message
from engram.core.conversation.branches import Branches
from engram.core.conversation.chat_settings import ChatSettings, ChatSettingsStore
from engram.core.models.chat_model import ChatModel, Generation
from engram.core.conversation.context import (PROFILE, RECALLED, STABLE, SUMMARY, WINDOW, ContextProvider, Section,
                                              TurnContext, fit)
from engram.core.conversation.distill import DISTILL_JOB, mark_distilled, sessions_to_distill
from engram.core.errors import ContextTooLong, DiskFull, EngramError, InvalidInput
from engram.core.conversation.memory_options import MemoryOptions, session_scope
from engram.core.conversation.outbox import Outbox
from engram.core.conversation.prompts import recall_prompt, system_prompt, turn_language
from engram.core.conversation.quoting import block
from engram.core.conversation.sessions import Message, Session, Sessions
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.store import MemoryStore
from engram.core.conversation.summary import SUMMARY_JOB, needs_summary
from engram.core.conversation.tool_calls import HiddenMarkup, describe, response_message, split
from engram.core.conversation.tools import Tool
from engram.core.conversation.turn_records import TurnRecord, Turns

DEFAULT_REPLY_TOKENS = 512
SAFETY_TOKENS = 32            # the chat format's own markers around the whole prompt


@dataclass
class TurnResult:
    session: Session
    user_message: Message
    reply: Message
    record: TurnRecord
    generation: Generation      # the last model call of the turn
    noted: list = field(default_factory=list)   # profile changes learned from the message (ProfileChange)
    reasoning: str = ""         # what the model thought (chat_thinking on), every call's; never stored

    @property
    def stopped(self) -> bool:
        return self.reply.status == "stopped"


def assemble(sections: Sequence[Section], text: str, default_prompt: str) -> list[dict]:
    """The messages the model sees: one system message (stable parts, then the profile and the
    summary; ``stable`` says how many of its characters are the stable part), the window, then the
    person's words preceded by the recalled memories as a fenced block."""
    def texts(slot: str) -> list[str]:
        return [m["content"] for s in sections if s.slot == slot for m in s.messages]

    stable = "\n\n".join(texts(STABLE))
    system = "\n\n".join(part for part in (stable, *texts(PROFILE), *texts(SUMMARY)) if part)
    window = [m for s in sections if s.slot == WINDOW for m in s.messages]
    blocks = [block(s.data.get("prompt", default_prompt), [m["content"] for m in s.messages])
              for s in sections if s.slot == RECALLED and s.messages]
    head = [{"role": "system", "content": system, "stable": len(stable)}] if system else []
    return head + window + [{"role": "user", "content": "\n\n".join([*blocks, text])}]


def _profile_record(sections: Sequence[Section], learned: dict) -> dict:
    """The record's ``profile``: what the message added to it (``noted``, ``problem``) and, under
    ``context``, what of it the model saw: the ids of its lines and of those its budget left out
    (ids, not words: the words are in the messages, where forgetting finds them), and its file."""
    seen = next((s.data for s in sections if s.slot == PROFILE), None)
    profile = learned | ({"context": seen} if seen else {})
    return {"profile": profile} if profile else {}


def _chat_record(chosen: ChatSettings, model: ChatModel) -> dict:
    """The record's ``chat``: what this chat's own settings changed in the turn (empty: nothing)."""
    chat = {**({"memory": False} if not chosen.memory else {}),
            **({"instructions": chosen.instructions} if chosen.instructions else {}),
            **({"model": getattr(model, "name", "")} if chosen.model else {})}
    return {"chat": chat} if chat else {}


class TurnEngine:
    def __init__(self, sessions: Sessions, turns: Turns, store: MemoryStore, outbox: Outbox,
                 chat_model: Callable[..., ChatModel], providers: Sequence[ContextProvider], options: MemoryOptions,
                 *, max_tokens: int | None = None, max_tool_rounds: int = 3,
                 preferred_language: Callable[[str], str] = lambda user: "",
                 learn: Callable[[Session, Message], list] = lambda session, message: []):
        self.sessions = sessions
        self.turns = turns
        self.store = store
        self.outbox = outbox
        self.chat_model = chat_model          # called per turn (with a chat's own model file); loads it on first use
        self.providers = list(providers)
        self.options = options
        self.max_tokens = max_tokens
        self.max_tool_rounds = max_tool_rounds
        self.preferred_language = preferred_language    # user -> their ``language`` preference, or ""
        self.learn = learn              # the profile's changes from a stored message (core/profile/learning.py)
        self.chat_settings = ChatSettingsStore(sessions.db, sessions.cleaned)
        self.branches = Branches(sessions.db)

    def send(self, session_id: str, text: str, *, on_token: Callable[[str], None] | None = None,
             stop: threading.Event | None = None, max_tokens: int | None = None,
             on_reasoning: Callable[[str], None] | None = None, json_schema: dict | None = None) -> TurnResult:
        """Run one turn. ``on_token`` gets the visible reply as it streams (never tool-call or think
        markup), on the model's worker thread; ``on_reasoning`` what the model thinks, when
        chat_thinking is on; setting ``stop`` ends the reply early and keeps what came. With
        ``json_schema`` the reply is JSON matching it (grammar-constrained; no tool calls)."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("the message is empty", hint="type something to say")
        started = time.perf_counter()
        session = self.sessions.get(session_id)
        chosen = self.chat_settings.get(session_id)
        with self.sessions.db.transaction() as conn:
            user_message = self.sessions.add_message(session_id, "user", text, conn=conn)
            self._keep(session_id, user_message.id, chosen.memory, conn)
        self.outbox.wake()
        return self._after_message(session, user_message, chosen, on_token, stop, max_tokens, started, on_reasoning,
                                   json_schema)

    def edit(self, session_id: str, message_id: int, text: str, *, on_token: Callable[[str], None] | None = None,
             stop: threading.Event | None = None, max_tokens: int | None = None,
             on_reasoning: Callable[[str], None] | None = None, json_schema: dict | None = None) -> TurnResult:
        """Send ``text`` in place of the person's message ``message_id``, and answer it (streaming
        as ``send`` does): the chat from that message on becomes a version kept aside (a branch),
        the new message and its reply the version shown."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("the message is empty", hint="type something to say")
        started = time.perf_counter()
        session = self.sessions.get(session_id)
        edited = self.sessions.message(message_id)
        if edited.session_id != session_id or edited.role != "user":
            raise InvalidInput(f"message #{message_id} is not one of your messages in this chat")
        chosen = self.chat_settings.get(session_id)
        with self.sessions.db.transaction() as conn:
            shelved = self.branches.shelve(session_id, message_id, conn)
            user_message = self.sessions.add_message(session_id, "user", text, conn=conn)
            self._keep(session_id, user_message.id, chosen.memory, conn)
            self._set_aside(session, shelved)
        self.outbox.wake()
        return self._after_message(session, user_message, chosen, on_token, stop, max_tokens, started, on_reasoning,
                                   json_schema)

    def show_version(self, session_id: str, fork_id: int) -> None:
        """Show another version of the chat (``Branches.versions`` names them): the one shown
        from that place is kept aside in its stead; only the shown one is archived."""
        session = self.sessions.get(session_id)
        with self.sessions.db.transaction() as conn:
            shelved, restored = self.branches.show(session_id, fork_id, conn)
            self._set_aside(session, shelved)
            if self.chat_settings.get(session_id).memory:
                for message in restored:
                    self.outbox.enqueue(ARCHIVE_JOB, {"message_id": message.id}, conn)
        self.outbox.wake()

    def _keep(self, session_id: str, message_id: int, memory: bool, conn) -> None:
        """A stored message of the person's is archived; with the chat's memory off, passed over."""
        if memory:
            self.outbox.enqueue(ARCHIVE_JOB, {"message_id": message_id}, conn)
        else:
            mark_distilled(conn, session_id, message_id)

    def _set_aside(self, session: Session, shelved: list[Message]) -> None:
        """Messages no longer shown leave long-term memory, with the summaries that covered them
        (the next turn summarises the shown version when it is long enough)."""
        for message in shelved:
            forget_message(self.store, session.user, message)
        if shelved:
            for summary in self.store.list(Scope(session=session.id), kinds=[Kind.SUMMARY], limit=1000):
                if int(summary.source.get("through_message_id", 0)) >= shelved[0].id:
                    self.store.delete(summary.id)

    def _after_message(self, session: Session, user_message: Message, chosen: ChatSettings, on_token, stop,
                       max_tokens, started: float, on_reasoning, json_schema) -> TurnResult:
        """Name the chat, learn from the stored message (memory on) and answer it."""
        text = user_message.content
        session = self.sessions.name_from_first_words(session, text)
        try:
            noted, problem = (self.learn(session, user_message), "") if chosen.memory else ([], "")
        except EngramError as e:        # the message is safe; the reply comes, and says what failed
            noted, problem = [], str(e)
        learned = {"noted": [c.to_json() for c in noted]} if noted else {}
        result = self._answer(session, user_message, [], on_token, stop, max_tokens, started,
                              learned | ({"problem": problem} if problem else {}), on_reasoning, json_schema)
        result.noted = noted
        return result

    def regenerate(self, session_id: str, *, on_token: Callable[[str], None] | None = None,
                   stop: threading.Event | None = None, max_tokens: int | None = None,
                   on_reasoning: Callable[[str], None] | None = None, json_schema: dict | None = None) -> TurnResult:
        """Answer the session's last user message again (Retry), streaming like ``send``; after a
        turn that failed, answer it for the first time. The message is not stored again; its old
        reply is set aside as another version (``show_version`` shows it again) in the transaction
        that stores the new one (until then nothing is lost), and leaves long-term memory."""
        started = time.perf_counter()
        session = self.sessions.get(session_id)
        user_message, replies = self.sessions.last_exchange(session_id)
        return self._answer(session, user_message, replies, on_token, stop, max_tokens, started, {}, on_reasoning,
                            json_schema)

    def _answer(self, session: Session, user_message: Message, replaced: list[Message],
                on_token: Callable[[str], None] | None, stop: threading.Event | None, max_tokens: int | None,
                started: float, learned: dict, on_reasoning: Callable[[str], None] | None = None,
                json_schema: dict | None = None) -> TurnResult:
        """Build the context for a stored user message, stream the reply and store it (with its
        turn record and background jobs) in place of the ``replaced`` replies. ``learned``: what the
        message added to the profile, for the record."""
        session_id, text = session.id, user_message.content
        chosen = self.chat_settings.get(session_id)
        model = self.chat_model(chosen.model) if chosen.model else self.chat_model()
        turn = TurnContext(session, text, user_message.id, session_scope(session, self.options.storage_scope),
                           session_scope(session, self.options.search_scope), model.count_tokens,
                           turn_language(self.preferred_language(session.user), text), self.options.tools,
                           memory=chosen.memory)
        turn.in_context_messages.update(m.id for m in replaced)    # recall must not bring a replaced reply back
        sections, tools = self._context(turn, model, chosen.instructions)
        names = [t.name for t in tools]
        specs = [t.spec() for t in tools] if tools and model.takes_tools else None
        reply_tokens = max_tokens or self.max_tokens or DEFAULT_REPLY_TOKENS
        user_tokens = model.count_tokens(text)
        budget = model.context_tokens - reply_tokens - user_tokens - SAFETY_TOKENS
        cut = fit(sections, budget, model.count_tokens)
        if sum(s.tokens for s in sections) > budget:
            raise ContextTooLong(f"the message and the system prompt need more than the model's {model.context_tokens}"
                             " tokens of context", hint="shorten the message (it is saved) or raise the context size")
        context_ms = (time.perf_counter() - started) * 1000
        messages = assemble(sections, text, recall_prompt(self.options.recall_prompt, turn.language))

        shown = HiddenMarkup(on_token, names)
        generations, first_token = [], [0.0]
        tool_calls: list[dict] = []

        def stream(piece: str) -> None:
            first_token[0] = first_token[0] or time.perf_counter()
            shown(piece)

        for round_ in range(self.max_tool_rounds + 1):
            generation = model.generate(messages, on_token=stream, stop=stop, max_tokens=reply_tokens,
                                        tools=specs if json_schema is None else None, json_schema=json_schema,
                                        thinking=self.options.thinking,
                                        on_reasoning=on_reasoning if self.options.thinking else None)
            generations.append(generation)
            shown.flush()
            _, calls, problem = split(generation.text, names, self.options.tool_format)
            if (generation.stopped or json_schema is not None or (not calls and not problem)
                    or round_ == self.max_tool_rounds):
                break
            results: list[str] = []
            for call in calls:          # several in one reply (parallel calls): each runs, each has its result
                results.append(self._call(tools, call))
                tool_calls.append({"name": call.name, "arguments": call.arguments, "result": results[-1]})
            if problem:
                results.append(f"error: {problem}")
                tool_calls.append({"name": None, "arguments": None, "result": results[-1]})
            messages = [*messages, {"role": "assistant", "content": generation.text}, response_message(*results)]
            shown.next_round()

        status = "stopped" if generation.stopped else "complete"
        record = TurnRecord(session_id, user_message.id, None, messages,
                            recalled=[m for s in sections if s.slot == RECALLED for m in s.data.get("memories", [])]
                            + turn.recalled,
                            tokens=self._tokens(sections, user_tokens, budget, generations, cut),
                            timings=self._timings(sections, turn, generations, started, context_ms, first_token[0]),
                            tool_calls=tool_calls, recall=turn.recall | _profile_record(sections, learned)
                            | _chat_record(chosen, model))
        try:
            reply = self._store_reply(session, shown.text.strip(), status, replaced, record, chosen.memory)
        except DiskFull as e:    # the person's message was stored before the model was asked
            raise DiskFull(e.where, "your message was kept; the reply was not stored") from e
        self.outbox.wake()
        thought = "\n\n".join(g.reasoning for g in generations if g.reasoning) if self.options.thinking else ""
        return TurnResult(self.sessions.get(session_id), user_message, reply, record, generation, reasoning=thought)

    def _store_reply(self, session: Session, text: str, status: str, replaced: list[Message],
                     record: TurnRecord, memory: bool = True) -> Message:
        """Store the reply with its turn record and background jobs, in place of ``replaced``
        (kept as another version); with ``memory`` off, without jobs."""
        session_id = session.id
        with self.sessions.db.transaction() as conn:
            # Only now are the replaced replies set aside: a reply that fails to be stored loses none.
            if replaced:
                self._set_aside(session, self.branches.shelve(session_id, replaced[0].id, conn))
            reply = self.sessions.add_message(session_id, "assistant", text, status, conn=conn)
            record.reply_message_id = reply.id
            self.turns.save(record, conn)
            if not memory:
                mark_distilled(conn, session_id, reply.id)
                return reply
            if reply.content:
                self.outbox.enqueue(ARCHIVE_JOB, {"message_id": reply.id}, conn)
            if needs_summary(self.sessions, self.store, session_id, self.options.summary_threshold):
                self.outbox.enqueue(SUMMARY_JOB, {"session_id": session_id}, conn, unique=True)
            if self.options.distill:
                for due in sessions_to_distill(self.sessions.db, session):
                    self.outbox.enqueue(DISTILL_JOB, {"session_id": due}, conn, unique=True)
        return reply

    def _context(self, turn: TurnContext, model: ChatModel, instructions: str = "") -> tuple[list[Section], list[Tool]]:
        """The sections and tools of the turn. Tools are taught by the chat template when it takes
        them (as the model was trained), else in the system prompt in the family's format."""
        sections = [Section("system", [{"role": "system",
                                        "content": system_prompt(self.options.system_prompt, turn.language)}])]
        if instructions:
            sections.append(Section("instructions", [{"role": "system", "content": instructions}]))
        tools: list[Tool] = []
        for provider in self.providers:
            sections += provider.sections(turn)
            if turn.can_call_tools:
                tools += provider.tools(turn)
        if tools and model.takes_tools:
            sections.append(Section("tools", [], data={"names": [t.name for t in tools],
                                                       "tokens": model.count_tool_tokens([t.spec() for t in tools])}))
        elif tools:
            sections.append(Section("tools", [{"role": "system", "content": describe(tools, self.options.tool_format)}],
                                    data={"names": [t.name for t in tools]}))
        return sections, tools

    @staticmethod
    def _call(tools: list[Tool], call) -> str:
        tool = next((t for t in tools if t.name == call.name), None)
        if tool is None:
            return f"error: there is no tool named {call.name!r}; the tools are " + ", ".join(t.name for t in tools)
        return tool.call(call.arguments)

    @staticmethod
    def _tokens(sections, user_tokens, budget, generations, cut) -> dict:
        tokens: dict = {}
        for s in sections:
            tokens[s.name] = tokens.get(s.name, 0) + s.tokens
        return {"sections": tokens, "user": user_tokens, "context": sum(tokens.values()) + user_tokens,
                "budget": budget + user_tokens, "prompt": generations[-1].prompt_tokens,
                "reply": sum(g.completion_tokens for g in generations),
                "reasoning": sum(g.reasoning_tokens for g in generations), "cut": cut}

    @staticmethod
    def _timings(sections, turn, generations, started, context_ms, first_token) -> dict:
        generate_ms = sum(g.generate_ms for g in generations)
        completion = sum(g.completion_tokens for g in generations)
        return {"embed_ms": turn.timings.get("embed_ms", 0.0), "search_ms": turn.timings.get("search_ms", 0.0),
                **({"rerank_ms": turn.timings["rerank_ms"]} if "rerank_ms" in turn.timings else {}),
                "context_ms": round(context_ms, 2),
                "prompt_ms": round(sum(g.prompt_ms for g in generations), 2),
                "generate_ms": round(generate_ms, 2),
                "tokens_per_second": round(completion / (generate_ms / 1000), 2) if generate_ms > 0 else 0.0,
                "first_token_ms": round((first_token - started) * 1000, 2) if first_token else None,
                "total_ms": round((time.perf_counter() - started) * 1000, 2),
                "cached_tokens": generations[0].timings.get("cached_tokens"),
                "model_calls": len(generations)}
