"""Long-term recall: find what the person said in earlier sessions and put it in the context.

Search time follows the Agent Framework options: ``before_call`` searches with the person's
words before every reply and injects the hits; ``on_demand`` gives the model a ``search_memory``
tool instead; ``hybrid`` does both; ``triggered`` (seed 001's hybrid) injects only when the message
asks about the past (core/conversation/triggers.py), so that a small model keeps its context for the chat
otherwise. A message that asks about the past says that something is there to find: it is
searched wider (more results, a lower threshold) in every mode. The turn record says why recall
ran or not. Hits are quoted data in a fenced block with date and source,
placed after the stable prefix. Memories already in the context (window, summary) are skipped, so
is a memory with the same words as a better hit (the same sentence said in three chats is one
line, not three), and the search scope always includes the user, so one person's memories never
reach another's turn.

An assistant's reply is not a fact about the person: its score counts ``REPLY_WEIGHT`` of a
memory in the person's words or of a distilled note, so between two hits that match alike the
person's own words come first (a reply that is found alone is still recalled). A reply of a
few words ("There", "OK", 好的) says nothing about the person and is never recalled: found by
meaning alone, it used to take a slot from the person's own statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from engram.core.conversation.context import RECALLED, Section, TurnContext
from engram.core.conversation.memory_options import MemoryOptions
from engram.core.conversation.prompts import recall_prompt
from engram.core.conversation.quoting import block, one_line
from engram.core.memory.records import Kind, now_iso, wording
from engram.core.memory.search.options import SearchHit, SearchOptions
from engram.core.memory.store import MemoryStore
from engram.core.conversation.tools import Tool
from engram.core.conversation.triggers import Trigger, TriggerWords

RECALLED_KINDS = (Kind.MESSAGE, Kind.FACT, Kind.PREFERENCE, Kind.TASK, Kind.EXPERIENCE, Kind.SUMMARY)
REPLY_WEIGHT = 0.95         # mild: on LoCoMo with one speaker stored as the assistant (the worst case),
                            # R@5/@10 0.638/0.735 -> 0.635/0.734, and 0.685/0.783 -> 0.697/0.791 on
                            # questions about the person's own words (tests/bench/hygiene_bench.py)
WIDER_RESULTS = 2           # a message that asks about the past recalls this many more memories,
WIDER_THRESHOLD = 0.5       # ... down to this share of recall_threshold (the person says it is there)


HOLLOW_WORDS = 5            # a reply with fewer words (a Han character counts as one) is not recalled
_WORDS = re.compile(r"[^\W\d_\u3400-\u9fff]+(?:'[^\W\d_]+)?|\d+|[\u3400-\u9fff]")


# Who the words are from, as the block says it. No ids, no brackets: small models copied the block's
# earlier "[2026-12-03 session 1f07…, user said]" lines into their replies (tests/bench/recall_echo_bench.py).
SAID = {"user": "the person said", "assistant": "you replied"}
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def day(moment: str) -> str:
    """An ISO date as words that read the same in any language's prompt: 3 Dec 2026."""
    year, month, date = moment[:10].split("-")
    return f"{int(date)} {MONTHS[int(month) - 1]} {year}"


def quote(hit: SearchHit) -> str:
    """One recalled memory as one line of data: the text as a JSON string after a dash, then who
    said it and when (and, for history, why it is no longer current). Its line breaks and quotes
    are escaped, so nothing in it can start a forged entry or close the block (fences are defused too)."""
    m = hit.memory
    said = SAID.get(str(m.source.get("role")), f"{m.kind.value} noted")
    outdated = f"; {why}" if (why := m.outdated(now_iso())) else ""
    return f"- {one_line(m.text)} ({said}, {day(m.created_at)}{outdated})"


def recalled_json(hit: SearchHit, via: str) -> dict:
    return {"id": hit.memory.id, "text": hit.memory.text, "kind": hit.memory.kind.value,
            "session": hit.memory.scope.session, "created_at": hit.memory.created_at,
            "score": round(hit.score, 4), "similarity": None if hit.similarity is None else round(hit.similarity, 4),
            "reranked": hit.rerank_score is not None, "via": via}


def persons_words_first(hits: Iterable[SearchHit], weight: float = REPLY_WEIGHT) -> list[SearchHit]:
    """The hits best first once the assistant's replies count ``weight`` of their score."""
    weighed = [replace(h, score=h.score * weight) if h.memory.source.get("role") == "assistant" else h
               for h in hits]
    return sorted(weighed, key=lambda h: -h.score)


def hollow(hit: SearchHit) -> bool:
    """An assistant's reply too short to say anything about the person."""
    return hit.memory.source.get("role") == "assistant" and len(_WORDS.findall(hit.memory.text)) < HOLLOW_WORDS


def _distinct(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """The hits without those whose words (case, spacing and end punctuation aside) a better one has."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        words = wording(hit.memory.text).rstrip(".!?。！？ ")
        if words not in seen:
            seen.add(words)
            kept.append(hit)
    return kept


class RecallProvider:
    def __init__(self, store: MemoryStore, options: MemoryOptions, triggers: TriggerWords = TriggerWords()):
        self.store = store
        self.options = options
        self.triggers = triggers

    def _search(self, query: str, turn: TurnContext, wanted: int, threshold: float,
                history: bool = False) -> tuple[list[SearchHit], list[str]]:
        already = len(turn.in_context_messages) + len(turn.in_context_memories) + 1
        result = self.store.search(query, turn.search_scope,
                                   SearchOptions(k=2 * wanted + already, threshold=threshold, kinds=RECALLED_KINDS,
                                                 include_superseded=history,
                                                 recency_half_life_days=self.options.recency_half_life_days))
        hits = _distinct(persons_words_first(h for h in result.hits
                                             if not self._in_context(h, turn) and not hollow(h)))[:wanted]
        if hits:
            self.store.mark_accessed(h.memory.id for h in hits)
        turn.spent(embed_ms=result.embed_ms, search_ms=result.search_ms)
        if result.reranker:
            turn.spent(rerank_ms=result.rerank_ms)
            turn.recall["reranker"] = result.reranker
        return hits, result.notes

    @staticmethod
    def _in_context(hit: SearchHit, turn: TurnContext) -> bool:
        ids = set(hit.memory.source_ids) | {hit.memory.source.get("message_id")}
        return (hit.memory.id in turn.in_context_memories
                or bool(ids & (turn.in_context_messages | {turn.message_id})))

    def _reach(self, trigger: Trigger) -> tuple[int, float]:
        """How many memories a search before the reply recalls, and from what similarity."""
        if trigger:
            return self.options.recall_max_results + WIDER_RESULTS, self.options.recall_threshold * WIDER_THRESHOLD
        return self.options.recall_max_results, self.options.recall_threshold

    def sections(self, turn: TurnContext) -> list[Section]:
        if not turn.memory:
            turn.recall = {"memory": False, "searched": False}
            return []
        mode = self.options.recall_mode
        if mode == "on_demand" and turn.can_call_tools:
            turn.recall = {"mode": mode, "searched": False}
            return []                       # without tools, on_demand recall would recall nothing
        trigger = self.triggers.find(turn.text)
        turn.recall = {"mode": mode, "searched": mode != "triggered" or bool(trigger),
                       "triggers": list(trigger.words), "about_person": trigger.about_person}
        if not turn.recall["searched"]:
            return []
        wanted, threshold = self._reach(trigger)
        turn.recall |= {"widened": bool(trigger), "max_results": wanted, "threshold": round(threshold, 4)}
        hits, notes = self._search(turn.text, turn, wanted, threshold)
        return [Section("recalled", [{"role": "user", "content": quote(h)} for h in hits],
                        data={"memories": [recalled_json(h, "before_call") for h in hits],
                              "prompt": recall_prompt(self.options.recall_prompt, turn.language), "notes": notes},
                        slot=RECALLED)]

    def tools(self, turn: TurnContext) -> list[Tool]:
        if self.options.recall_mode in ("before_call", "triggered") or not turn.memory:
            return []

        def search_memory(query: str, include_history: bool = False) -> str:
            hits, _ = self._search(query, turn, self.options.recall_max_results, self.options.recall_threshold,
                                   history=include_history)
            turn.recalled.extend(recalled_json(h, "search_memory") | {"query": query} for h in hits)
            if not hits:
                return "No memories found."
            return block(recall_prompt(self.options.recall_prompt, turn.language), [quote(h) for h in hits])

        return [Tool("search_memory", "Search what the person said in earlier conversations.",
                     {"type": "object", "properties": {
                         "query": {"type": "string", "description": "what to look for"},
                         "include_history": {"type": "boolean", "description": "also what is no longer true (an"
                                             " old address, a changed plan), marked as such; default false"}},
                      "required": ["query"]}, search_memory)]
