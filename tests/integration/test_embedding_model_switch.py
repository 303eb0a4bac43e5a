"""The embedding model missing, broken or switched while Engram runs, with the real bundled model
(the chat model is the fake: no test here looks at a reply's words)."""

from __future__ import annotations

import json

import pytest

from engram.core.app import Engram
from engram.core.errors import ModelError
from engram.core.paths import BUNDLED_EMBEDDING_MODEL, MINILM_EMBEDDING_MODEL
from engram.core.memory.records import Kind
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from fakes import FakeChatModel

pytestmark = pytest.mark.real_model

MEANING = SearchOptions(mode="meaning", k=1)


def broken_model(folder) -> str:
    """A file that starts like a GGUF model and is not one: llama.cpp refuses to load it."""
    path = folder / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 64)
    return str(path)


def set_embedding_model(isolated_dirs, path: str) -> None:
    (isolated_dirs / "config").mkdir(exist_ok=True)
    (isolated_dirs / "config" / "settings.json").write_text(json.dumps({"embedding_model": path}))


@pytest.fixture
def engrams():
    """engrams() -> Engram on the test's folders, loading the embedding model its settings name."""
    opened = []

    def open_one() -> Engram:
        opened.append(Engram(chat_model=FakeChatModel(["Noted."])))
        return opened[-1]

    yield open_one
    for engram in opened:
        engram.close()


def test_a_broken_embedding_model_opens_with_words_only_and_loses_nothing(isolated_dirs, engrams):
    set_embedding_model(isolated_dirs, broken_model(isolated_dirs))
    engram = engrams()
    assert engram.embedder is None
    assert "could not load" in str(engram.embedding_problem) and "broken.gguf" in str(engram.embedding_problem)

    engram.outbox.start()
    first = engram.sessions.get_or_create("one", engram.user)
    engram.turn_engine.send(first.id, "I am allergic to peanuts")
    engram.store.add("The spare key is under the blue flowerpot", Scope(user=engram.user))
    engram.files.write(first.folder, "trip.md", "# Trip\nBook the night train to Vienna\n")
    assert engram.outbox.drain(30) and engram.outbox.health().failed == 0
    me = Scope(user=engram.user)
    assert {"I am allergic to peanuts", "Noted."} <= {m.text for m in engram.store.list(me, kinds=[Kind.MESSAGE])}

    found = engram.store.search("peanuts", me)
    assert found.hits[0].memory.text == "I am allergic to peanuts" and "words only" in found.notes[0]
    second = engram.sessions.get_or_create("two", engram.user)
    recalled = engram.turn_engine.send(second.id, "Are peanuts in this cake?").record.recalled
    assert "I am allergic to peanuts" in [m["text"] for m in recalled]            # recall by words

    engram.use_embedding_model("")                                            # the bundled model
    assert engram.embedder is not None and engram.embedding_problem is None
    assert engram.store.pending_embeddings() > 0
    assert engram.outbox.drain(60) and engram.store.pending_embeddings() == 0
    def nearest(query: str) -> str:
        return engram.store.search(query, me, MEANING).hits[0].memory.text

    assert nearest("what am I allergic to?") == "I am allergic to peanuts"
    assert nearest("spare key location").startswith("The spare key")
    assert engram.files.search(first.folder, "travelling by rail", mode="meaning")[0].name == "trip.md"


def test_switching_the_embedding_model_live_fills_the_new_models_own_table(isolated_dirs, tmp_path, engrams):
    engram = engrams()
    engram.outbox.start()
    me = Scope(user=engram.user)
    engram.store.add("I am allergic to peanuts", me)
    engram.store.add("The train to Lyon leaves at noon", me)
    old, old_table = engram.embedder, engram.store.vectors.table
    other = tmp_path / "other-model.gguf"          # the same weights in another file: to Engram, another model
    other.write_bytes(BUNDLED_EMBEDDING_MODEL.read_bytes() + b"\0" * 4096)

    engram.use_embedding_model(str(other))
    assert engram.store.vectors.table != old_table and engram.embedder.path == other
    assert engram.db.query_one("SELECT count(*) FROM embedding_models")[0] == 2
    with pytest.raises(ModelError, match="closed"):
        old.embed(["the old model is closed"])
    assert engram.outbox.drain(60) and engram.store.pending_embeddings() == 0
    assert engram.store.vectors.count() == engram.store.count() == 2
    result = engram.store.search("which foods should I avoid?", me, MEANING)
    assert result.hits[0].memory.text == "I am allergic to peanuts" and result.hits[0].similarity and not result.notes


def test_a_model_that_does_not_load_leaves_the_one_in_use(tmp_path, engrams):
    engram = engrams()
    me = Scope(user=engram.user)
    engram.store.add("I am allergic to peanuts", me)
    in_use = engram.embedder
    truncated = tmp_path / "truncated.gguf"        # its header reads well; llama.cpp cannot load it
    truncated.write_bytes(BUNDLED_EMBEDDING_MODEL.read_bytes()[: 2 << 20])

    with pytest.raises(ModelError, match="could not load"):
        engram.use_embedding_model(str(truncated))
    assert engram.embedder is in_use and engram.embedding_problem is None
    assert engram.db.query_one("SELECT count(*) FROM embedding_models")[0] == 1
    result = engram.store.search("which foods should I avoid?", me, MEANING)
    assert result.hits[0].memory.text == "I am allergic to peanuts" and result.hits[0].similarity and not result.notes


def test_a_database_of_the_previous_default_model_is_re_embedded_by_the_new_one(isolated_dirs, engrams):
    """Upgrading Engram changes the default model (all-MiniLM-L6-v2 before, multilingual-e5-small
    now): what the old one embedded is found by words at once and re-embedded in the background."""
    set_embedding_model(isolated_dirs, str(MINILM_EMBEDDING_MODEL))
    before = engrams()
    me = Scope(user=before.user)
    before.store.add("我对花生过敏", me)
    before.store.add("The train to Lyon leaves at noon", me)
    assert before.store.pending_embeddings() == 0 and before.embedder.name.startswith("all-MiniLM")

    set_embedding_model(isolated_dirs, "")                         # the setting as a new install has it
    engram = engrams()
    assert engram.embedder.path == BUNDLED_EMBEDDING_MODEL and engram.store.pending_embeddings() == 2
    found = engram.store.search("花生", me)
    assert found.hits[0].memory.text == "我对花生过敏" and "not embedded yet" in found.notes[0]

    engram.outbox.start()
    engram.embed_later()                                           # what the window does when it opens
    assert engram.outbox.drain(60) and engram.store.pending_embeddings() == 0
    result = engram.store.search("Which train do I take to France?", me, MEANING)
    assert result.hits[0].memory.text == "The train to Lyon leaves at noon" and not result.notes
