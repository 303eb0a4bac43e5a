"""Changed settings reach the running parts without a restart."""

from engram.core.memory.scope import Scope


def after_one_turn(make_engram, words: str):
    """An Engram with its outbox running, once ``words`` were said in session s1 and archived."""
    engram = make_engram()
    engram.outbox.start()
    session = engram.sessions.get_or_create("s1", engram.user)
    engram.turn_engine.send(session.id, words)
    assert engram.outbox.drain(30)
    return engram, session


def test_a_new_storage_scope_reaches_the_background_archiver(make_engram):
    engram, session = after_one_turn(make_engram, "first words")
    assert {m.scope.session for m in engram.store.list(Scope(user=engram.user))} == {"s1"}

    engram.settings.storage_scope = "user"
    engram.apply_settings({"storage_scope"})
    assert engram.outbox.running
    engram.turn_engine.send(session.id, "second words")
    assert engram.outbox.drain(30)
    stored = {m.text: m.scope.session for m in engram.store.list(Scope(user=engram.user))}
    assert stored["second words"] == ""


def test_a_new_embedding_model_is_used_at_once_and_the_outbox_embeds_what_it_lacks(make_engram):
    from engram.core.app import EMBED_JOB
    from engram.core.memory.search.options import SearchOptions
    from fakes import FakeEmbedder

    engram, _ = after_one_turn(make_engram, "my bike is a green Gazelle")
    old_table, count = engram.store.vectors.table, engram.store.count()

    outbox = engram.outbox
    engram.use_embedder(FakeEmbedder(32))
    engram.apply_settings({"embedding_model"})
    assert engram.outbox is outbox                          # not stopped: it may be re-embedding for minutes
    assert engram.store.vectors.table != old_table and engram.store.vectors.dimensions == 32
    assert [job.kind for job in engram.outbox.jobs()][0] == EMBED_JOB
    assert engram.outbox.drain(30) and engram.store.pending_embeddings() == 0
    assert engram.store.vectors.count() == count
    result = engram.store.search("green Gazelle bike", Scope(user=engram.user), SearchOptions(mode="meaning"))
    assert result.hits[0].memory.text == "my bike is a green Gazelle" and not result.notes
