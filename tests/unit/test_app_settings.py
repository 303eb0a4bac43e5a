"""Changed settings reach the running parts without a restart."""

from engram.core.scope import Scope


def test_a_new_storage_scope_reaches_the_background_archiver(make_engram):
    engram = make_engram()
    engram.outbox.start()
    session = engram.sessions.get_or_create("s1", engram.user)
    engram.turn_engine.send(session.id, "first words")
    assert engram.outbox.drain(30)
    assert {m.scope.session for m in engram.store.list(Scope(user=engram.user))} == {"s1"}

    engram.settings.storage_scope = "user"
    engram.apply_settings({"storage_scope"})
    assert engram.outbox.running
    engram.turn_engine.send(session.id, "second words")
    assert engram.outbox.drain(30)
    stored = {m.text: m.scope.session for m in engram.store.list(Scope(user=engram.user))}
    assert stored["second words"] == ""
