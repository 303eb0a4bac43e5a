"""Memory hygiene: a reply that repeats Engram's instructions is not archived, and recall puts the
person's words and distilled notes before the assistant's replies."""

from __future__ import annotations

from engram.core.conversation.archive import echoed_share
from engram.core.conversation.prompts import FILE_TOOLS, RECALL, SYSTEM
from engram.core.conversation.recall import REPLY_WEIGHT, persons_words_first
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchHit


def test_echoed_share_counts_copied_runs_in_any_order():
    instructions = SYSTEM["en"] + "\n\n" + FILE_TOOLS["en"]
    copied = FILE_TOOLS["en"][200:300] + " " + SYSTEM["en"]
    assert echoed_share(copied, instructions) > 0.95
    assert echoed_share("Peanuts are legumes, so skip the trail mix with peanuts.", instructions) == 0.0
    half = "Here is a plan for your trip: first the museum, then lunch. " + SYSTEM["en"][:40]
    assert 0 < echoed_share(half, instructions) < 0.5
    assert echoed_share("", instructions) == 0.0 and echoed_share("short", "") == 0.0


def test_a_reply_that_repeats_the_instructions_is_not_archived(make_engram):
    replies = iter(["Sure: " + SYSTEM["en"] + " " + FILE_TOOLS["en"][:120], "Trail mix without peanuts."])
    engram = make_engram(lambda messages: next(replies))
    engram.sessions.get_or_create("s", "u")
    first = engram.turn_engine.send("s", "hi")
    engram.turn_engine.send("s", "a snack?")
    engram.outbox.run_due()
    archived = {m.text for m in engram.store.list(Scope(user="u"), kinds=["message"])}
    assert archived == {"hi", "a snack?", "Trail mix without peanuts."}
    assert first.reply.content in [m.content for m in engram.sessions.messages("s")]   # still in the chat


def test_a_reply_that_repeats_the_recalled_memories_is_not_archived(make_engram):
    engram = make_engram(lambda messages: messages[-1]["content"].rsplit("\n\n", 1)[0])   # the recalled block
    engram.store.add("I am allergic to peanuts and I live at 12 Rose Street", Scope(user="u", session="old"),
                     "message")
    engram.sessions.get_or_create("s", "u")
    result = engram.turn_engine.send("s", "where do I live, and am I allergic to peanuts?")
    assert result.reply.content.startswith(RECALL["en"])
    engram.outbox.run_due()
    assert RECALL["en"] not in " ".join(m.text for m in engram.store.list(Scope(user="u"), kinds=["message"]))


def test_a_user_message_that_quotes_the_instructions_is_archived(make_engram):
    engram = make_engram()
    engram.sessions.get_or_create("s", "u")
    engram.turn_engine.send("s", SYSTEM["en"])
    engram.outbox.run_due()
    assert SYSTEM["en"] in {m.text for m in engram.store.list(Scope(user="u"), kinds=["message"])}


def test_the_persons_words_and_notes_come_before_a_reply_that_matches_alike(store):
    scope = Scope(user="u", session="s")
    reply = store.add("Your cat is called Miso", scope, "message", source={"role": "assistant"})
    said = store.add("My cat is called Miso", scope, "message", source={"role": "user"})
    note = store.add("The person's cat is called Miso", scope, "fact")
    hits = persons_words_first([SearchHit(reply, 0.88), SearchHit(said, 0.85), SearchHit(note, 0.84)])
    assert [h.memory.id for h in hits] == [said.id, note.id, reply.id]
    assert hits[-1].score == 0.88 * REPLY_WEIGHT
    alone = persons_words_first([SearchHit(reply, 0.9), SearchHit(said, 0.5)])   # much better: still first
    assert alone[0].memory.id == reply.id
