"""``engram chat`` (interactive, streaming) and ``engram ask`` (one turn, optionally as JSON).

``--session S`` names a session by an id the caller chooses; it is created on first use. The
background work of the turn (archiving, summaries) is finished before the command exits, and work
left over by an earlier crash is resumed when it starts.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from engram.cli import open_engram
from engram.cli.terminal import count
from engram.core.app import Engram
from engram.core.conversation.engine import TurnResult

DRAIN_SECONDS = 30


def register(commands, common: argparse.ArgumentParser) -> None:
    def options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--user", help="who is talking (default: this desktop's profile)")
        p.add_argument("--session", help="the session id (created on first use; default: a new session)")
        p.add_argument("--max-tokens", type=count, help="longest reply in tokens (default: the chat model's setting)")

    ask = commands.add_parser("ask", parents=[common], help="send one message and print the reply")
    options(ask)
    ask.add_argument("--json", action="store_true", help="print one JSON object with the reply and the turn record")
    ask.add_argument("message")
    ask.set_defaults(run=_ask)

    chat = commands.add_parser("chat", parents=[common], help="talk with Engram in this terminal (Ctrl-C stops a reply)")
    options(chat)
    chat.set_defaults(run=_chat)


@contextmanager
def _open(args, first_words: str = "") -> Iterator[tuple[Engram, str]]:
    """The facade and the session to talk in; the turns' background work is finished (or left for
    the next start) before the facade closes, however the conversation ends."""
    with open_engram(args) as engram:
        session = engram.sessions.get_or_create(args.session, args.user or engram.user, title=first_words)
        engram.outbox.start()                     # resumes work an earlier run left behind
        try:
            yield engram, session.id
        finally:
            _finish(engram)


def _finish(engram: Engram) -> None:
    engram.outbox.stop()
    if not engram.outbox.drain(DRAIN_SECONDS):
        health = engram.outbox.health()
        print(f"note: {health.pending} background job(s) still pending, {health.failed} failed;"
              " they resume on the next start (see `engram doctor`)", file=sys.stderr)


def turn_json(result: TurnResult) -> dict:
    return {"session_id": result.session.id, "reply": result.reply.content, "status": result.reply.status,
            "user_message_id": result.user_message.id, "reply_message_id": result.reply.id,
            "recalled_ids": [m["id"] for m in result.record.recalled], "turn": result.record.to_json(),
            "profile": [change.to_json() for change in result.noted]}


def _ask(args) -> int:
    with _open(args, args.message) as (engram, session_id):
        if args.json:
            result = engram.turn_engine.send(session_id, args.message, max_tokens=args.max_tokens)
            print(json.dumps(turn_json(result), ensure_ascii=False))
        else:
            _stream(engram, session_id, args.message, args.max_tokens)
        return 0


def _stream(engram: Engram, session_id: str, text: str, max_tokens: int | None) -> TurnResult:
    """Run the turn on a thread so that Ctrl-C here can stop it; the partial reply is kept."""
    stop, outcome = threading.Event(), {}

    def work() -> None:
        try:
            outcome["result"] = engram.turn_engine.send(session_id, text, max_tokens=max_tokens, stop=stop,
                                                        on_token=lambda piece: print(piece, end="", flush=True))
        except BaseException as e:  # handed to the main thread, which reports it
            outcome["error"] = e

    worker = threading.Thread(target=work, name="engram-turn")
    worker.start()
    while worker.is_alive():
        try:
            worker.join(0.2)
        except KeyboardInterrupt:
            stop.set()
    print()
    if "error" in outcome:
        raise outcome["error"]
    if outcome["result"].stopped:
        print("[stopped]")
    for change in outcome["result"].noted:       # on stderr: the reply alone stays on stdout
        print(f"{'noted' if change.action == 'noted' else 'waiting for your OK'} in your profile:"
              f" [{change.line.id}] {change.line.text}  (`engram profile remove {change.line.id}` takes it back)",
              file=sys.stderr)
    return outcome["result"]


def _chat(args) -> int:
    with _open(args) as (engram, session_id):
        print(f"session {session_id} — type /quit to leave; Ctrl-C stops a reply")
        while True:
            try:
                text = input("you> ")
            except (EOFError, KeyboardInterrupt):
                print()
                return 0
            except UnicodeDecodeError:
                print("error: that line was not valid UTF-8 text; nothing was sent", file=sys.stderr)
                continue
            if text.strip() in ("/quit", "/exit"):
                return 0
            if text.strip():
                print("engram> ", end="", flush=True)
                _stream(engram, session_id, text, args.max_tokens)
