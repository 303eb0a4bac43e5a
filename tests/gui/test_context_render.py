"""The Context tab's rendering of a turn record: every section, the recalled memories, timings."""

from __future__ import annotations

from engram.core.conversation.turn_records import TurnRecord
from engram.ui.context_tab import ContextTab


def test_a_turn_record_is_shown_section_by_section(qtbot):
    record = TurnRecord(
        "s-2", 7, 8,
        messages=[{"role": "system", "content": "You are Engram."},
                  {"role": "user", "content": "```memory\n[2026-11-20 session s-1, user said] I am allergic to"
                                              " peanuts <b>\n```\n\nRecommend me a snack"}],
        recalled=[{"id": 3, "text": "I am allergic to peanuts <b>", "kind": "message", "session": "s-1",
                   "created_at": "2026-11-20T10:00:00Z", "score": 0.98, "similarity": 0.52, "via": "before_call"}],
        tokens={"sections": {"system": 5, "preferences": 9, "summary": 0, "window": 0, "recalled": 20, "files": 30},
                "user": 5, "context": 69, "budget": 3500, "prompt": 75, "reply": 12,
                "cut": ["window: user message"]},
        timings={"embed_ms": 31.0, "search_ms": 2.5, "prompt_ms": 1500.0, "tokens_per_second": 12.3,
                 "first_token_ms": None})
    tab = ContextTab()
    qtbot.addWidget(tab)
    tab.show_record(record)
    text = tab.text()
    for words in ("system", "preferences", "summary", "window", "recalled", "files", "your message",
                  "context budget", "3,500", "Left out to fit the budget: window: user message",
                  "embedding your message", "31.0 ms", "1.50 s", "12.3 tokens/s", "0.980", "similarity 0.520", "via before the reply",
                  "I am allergic to peanuts <b>", "Recommend me a snack"):
        assert words in text, words
    tab.show_record(None)
    assert "Select a reply" in tab.text()


def test_a_reranked_recall_says_so_with_its_time(qtbot):
    recalled = {"id": 3, "text": "I am allergic to peanuts", "kind": "message", "session": "s-1",
                "created_at": "2026-11-20T10:00:00Z", "score": 0.91, "similarity": 0.52, "via": "before_call"}
    tab = ContextTab()
    qtbot.addWidget(tab)
    tab.show_record(TurnRecord("s-2", 7, 8, messages=[], recalled=[recalled | {"reranked": True}],
                               timings={"rerank_ms": 850.0},
                               recall={"mode": "before_call", "searched": True, "reranker": "bge-reranker-v2-m3-Q8_0"}))
    text = tab.text()
    for words in ("reordered by the reranker bge-reranker-v2-m3-Q8_0", "score by the reranker", "reranking memories",
                  "850.0 ms", "0.910"):
        assert words in text, words
    tab.show_record(TurnRecord("s-2", 7, 8, messages=[], recalled=[recalled], recall={"mode": "before_call",
                                                                                     "searched": True}))
    assert "reranker" not in tab.text()
