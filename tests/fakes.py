"""Fast stand-ins for the models, for unit tests only. Each has a real-model test beside it."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable, Sequence

import numpy as np

from engram.core.models.chat_model import Generation
from engram.core.models.embeddings import normalise_rows
from engram.core.models.reasoning import ReasoningSplit
from engram.core.memory.search.words.tokens import _terms


class FakeEmbedder:
    """Deterministic bag-of-words hashing: texts that share words get similar vectors. A query is
    embedded like any text (as a model without query/document prefixes does); ``queries`` lists them."""

    name = "fake-embedder"
    unrelated_similarity = 0.0

    def __init__(self, dimensions: int = 64):
        self.dimensions = dimensions
        self.fingerprint = f"fake-{dimensions}"
        self.calls = 0
        self.queries: list[str] = []

    def embed_query(self, query: str) -> np.ndarray:
        self.queries.append(query)
        return self.embed([query])[0]

    def count_tokens(self, texts: Sequence[str]) -> int:
        return sum(len(text.split()) for text in texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in _terms(text) or ["<empty>"]:
                digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dimensions
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
        return normalise_rows(out)


class BrokenEmbedder(FakeEmbedder):
    """An embedder whose model fails mid-way, to prove that nothing is half-written."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("embedding model crashed")


class FakeChatModel:
    """Follows the ChatModel protocol with scripted replies: a list (used in order, the last one
    repeats) or a function from the messages to the reply. Streams word by word (each piece keeps
    its trailing spaces, so the pieces join to the reply), honours stop and max_tokens (one word =
    one token), and keeps a copy of the messages of every call in ``calls``. A reply's
    ``<think>…</think>`` goes through the real ReasoningSplit, as a reasoning model's does."""

    name = "fake-chat"
    takes_tools = False          # True: tools come as ``tools=`` (kept in ``tools``), as a template takes them

    def __init__(self, replies: Sequence[str] | Callable[[list[dict]], str] = ("OK.",),
                 context_tokens: int = 4096):
        self.replies = replies
        self.context_tokens = context_tokens
        self.calls: list[list[dict]] = []
        self.schemas: list[dict | None] = []
        self.tools: list[list[dict] | None] = []
        self.thinking: list[bool] = []          # each call's ``thinking``

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def count_tool_tokens(self, tools: list[dict]) -> int:
        return self.count_tokens(json.dumps(tools))

    def generate(self, messages: list[dict], *, on_token: Callable[[str], None] | None = None,
                 stop: threading.Event | None = None, max_tokens: int | None = 512,
                 json_schema: dict | None = None, tools: list[dict] | None = None, thinking: bool = False,
                 on_reasoning: Callable[[str], None] | None = None) -> Generation:
        self.calls.append([dict(m) for m in messages])
        self.schemas.append(json_schema)
        self.tools.append(tools)
        self.thinking.append(thinking)
        if callable(self.replies):
            reply = self.replies(messages)
        else:
            reply = self.replies[min(len(self.calls), len(self.replies)) - 1]
        pieces, finish = [], "stop"
        split = ReasoningSplit(on_token, on_reasoning)
        for piece in re.findall(r"\s+|\S+\s*", reply):
            if stop is not None and stop.is_set():
                finish = "stopped"
                break
            if len(pieces) >= (max_tokens or 512):
                finish = "length"
                break
            pieces.append(piece)
            split(piece)
        split.flush()
        return Generation(split.answer_text, stopped=finish == "stopped", finish_reason=finish,
                          prompt_tokens=sum(self.count_tokens(m.get("content") or "") for m in messages),
                          completion_tokens=len(pieces), reasoning=split.reasoning_text,
                          reasoning_tokens=split.reasoning_tokens)



class FakeReranker:
    """Scores each document as ``scores`` says (0 for any other), so that a test states the order a
    reranker gives; ``calls`` keeps each (query, documents)."""

    name = "fake-reranker"

    def __init__(self, scores: dict[str, float]):
        self.scores = scores
        self.calls: list[tuple[str, list[str]]] = []

    def score(self, query: str, documents: Sequence[str]) -> np.ndarray:
        self.calls.append((query, list(documents)))
        return np.array([self.scores.get(d, 0.0) for d in documents], dtype=np.float32)
