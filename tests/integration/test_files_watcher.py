"""The real watcher on a temporary data dir, with another process changing the files."""

import pytest

from engram.core.files import INDEX_NAME
from engram.core.files.index import INDEXED, PROBLEM
from engram.core.memory.scope import Scope
from files_helpers import other_process, start, wait_for

pytestmark = pytest.mark.real_model

DISTRACTORS = {"groceries.md": "# Groceries\nBuy milk, eggs and bread.\n",
               "car.md": "# Car\nThe car needs new tyres before winter.\n"}


@pytest.fixture
def watched(tmp_path, real_embedder):
    w = start(tmp_path / "data", real_embedder)
    yield w
    w.watcher.stop()
    w.db.close()


def chunk_texts(w, name):
    return [m.text for m in w.index.chunk_memories(w.session.folder, name)]


def rebuilt_equals_incremental(w) -> bool:
    """``reindex`` from an empty index gives what the watcher maintained step by step."""
    def snapshot():
        return (w.index.statuses(w.session.folder), [(m.text, m.source) for m in w.index.chunk_memories(w.session.folder)],
                (w.folder / INDEX_NAME).read_text())
    incremental = snapshot()
    with w.db.transaction() as conn:
        conn.execute("DELETE FROM session_file_chunks")
        conn.execute("DELETE FROM session_files")
    w.index.sync_folder(w.session.folder, force=True)
    return snapshot() == incremental


def index_file(w) -> str:
    """memories.md as it is now; it is rewritten just after the chunks are stored."""
    try:
        return (w.folder / INDEX_NAME).read_text()
    except FileNotFoundError:
        return ""


def meaning_top(w, query):
    hits = w.index.search(w.session.folder, query, k=1, mode="meaning")
    return hits[0].name if hits else None


def test_another_process_creates_edits_saves_like_an_editor_and_deletes(watched):
    w = watched
    for name, text in DISTRACTORS.items():
        (w.folder / name).write_text(text)
    other_process("""
        (Path(folder) / "evening.md").write_text("# Saturday\\nSaxophone players in a smoky jazz club downtown.\\n")
    """, folder=str(w.folder))
    wait_for(lambda: chunk_texts(w, "evening.md"), what="evening.md to be indexed")
    wait_for(lambda: len(w.index.statuses(w.session.folder)) == 3, what="the distractors")
    assert meaning_top(w, "live music concert") == "evening.md"
    wait_for(lambda: "- **evening.md**: Saturday" in index_file(w), what="memories.md to list it")

    other_process("""
        (Path(folder) / "evening.md").write_text("# Saturday\\nA long hike in the mountains with a picnic.\\n")
    """, folder=str(w.folder))
    wait_for(lambda: any("hike" in t for t in chunk_texts(w, "evening.md")), what="the edit")
    assert not any("Saxophone" in t for t in chunk_texts(w, "evening.md"))
    assert w.index.search(w.session.folder, "saxophone", mode="words") == []
    assert meaning_top(w, "walking in nature") == "evening.md"

    other_process("""
        tmp = Path(folder) / ".evening.md.swp"
        tmp.write_text("---\\ndescription: Weekend plan\\n---\\n# Sunday\\nMuseum of modern art, then lunch.\\n")
        os.replace(tmp, Path(folder) / "evening.md")
    """, folder=str(w.folder))
    wait_for(lambda: any("Museum" in t for t in chunk_texts(w, "evening.md")), what="the editor-style save")
    assert chunk_texts(w, "evening.md") == ["evening.md › Sunday\nMuseum of modern art, then lunch."]
    wait_for(lambda: "- **evening.md**: Weekend plan" in index_file(w), what="the index")

    other_process("""(Path(folder) / "evening.md").unlink()""", folder=str(w.folder))
    wait_for(lambda: "evening.md" not in index_file(w), what="the delete")
    assert chunk_texts(w, "evening.md") == [] and w.index.search(w.session.folder, "museum", mode="words") == []
    assert w.watcher.errors == 0
    wait_for(w.watcher.idle, what="the watcher to be idle")
    assert rebuilt_equals_incremental(w)


def test_the_apps_own_write_is_indexed_once(watched):
    w = watched
    w.index.write(w.session.folder, "mine.md", "# Mine\nWritten by the app itself.\n", "App note")
    # Another process's file, written after: once it is indexed, the watcher has seen our write too.
    other_process("""(Path(folder) / "later.md").write_text("# Later\\nafter\\n")""", folder=str(w.folder))
    wait_for(lambda: chunk_texts(w, "later.md"), what="later.md")
    wait_for(w.watcher.idle, what="the watcher to be idle")
    assert [e.name for e in w.events].count("mine.md") == 1
    [memory] = w.index.chunk_memories(w.session.folder, "mine.md")
    assert [c.action for c in w.store.history(memory.id)] == ["add"]


def test_bad_files_get_a_status_and_the_watcher_goes_on(watched, tmp_path):
    w = watched
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\noutside the folder\n")
    other_process("""
        f = Path(folder)
        (f / "binary.md").write_bytes(bytes(range(256)))
        (f / "latin1.md").write_bytes("crème brûlée".encode("latin-1"))
        with open(f / "huge.md", "w") as out:
            for _ in range(50):
                out.write("x" * (1024 * 1024))
        (f / "broken.md").write_text("---\\ndescription: [unclosed\\n---\\n# Broken header\\nbody kept\\n")
        os.symlink(outside, f / "link.md")
        (f / "what?.md").write_text("# Question\\nodd name\\n")
        (f / "brief.md").write_text("# Brief\\nhere and gone\\n")
        (f / "brief.md").unlink()
        (f / "good.md").write_text("# Good\\nstill indexed after all that\\n")
    """, folder=str(w.folder), outside=str(outside))
    names = {"binary.md", "latin1.md", "huge.md", "broken.md", "link.md", "what?.md", "good.md"}
    wait_for(lambda: {s.name for s in w.index.statuses(w.session.folder)} >= names, what="every file's status")
    wait_for(lambda: chunk_texts(w, "good.md"), what="good.md")
    # The newest change is indexed first, so huge.md's last write may still be queued behind good.md.
    wait_for(lambda: any(s.name == "huge.md" and "52.4 MB" in s.detail for s in w.index.statuses(w.session.folder)),
             what="huge.md's final size")
    found = {s.name: s for s in w.index.statuses(w.session.folder)}
    assert "binary content" in found["binary.md"].detail
    assert "not valid UTF-8" in found["latin1.md"].detail
    assert "too large (52.4 MB)" in found["huge.md"].detail
    assert found["broken.md"].status == INDEXED and "not valid YAML" in found["broken.md"].detail
    assert "link" in found["link.md"].detail
    assert "some systems do not allow" in found["what?.md"].detail
    assert "brief.md" not in found
    assert all(found[n].status == PROBLEM for n in names - {"broken.md", "good.md"})
    assert not any("outside the folder" in m.text for m in w.index.chunk_memories(w.session.folder))
    assert w.watcher.errors == 0
    wait_for(w.watcher.idle, what="the watcher to be idle")
    assert rebuilt_equals_incremental(w)


def test_a_deleted_sessions_folder_moves_to_the_trash_under_the_watcher(make_engram):
    from engram.core.files.watcher import FolderWatcher

    engram = make_engram()
    gone = engram.sessions.get_or_create("gone", "alice", title="Old plans")
    kept = engram.sessions.get_or_create("kept", "alice", title="New plans")
    engram.files.write(gone.folder, "plan.md", "# Plan\nOld plan\n")
    folder = engram.files.folder(gone.folder).path
    (folder / "by-hand.md").write_text("# Mine\nwritten by hand\n")
    kept_folder = engram.files.folder(kept.folder).path
    kept_folder.mkdir()
    with FolderWatcher(engram.files, debounce=0.05) as watcher:
        wait_for(lambda: engram.files.status(gone.folder, "by-hand.md").status == INDEXED, what="by-hand.md")
        other_process("""(Path(folder) / "late.md").write_text("# Late\\nwritten just before the delete\\n")""",
                      folder=str(folder))
        deleted = engram.delete_session("gone")
        assert deleted.problem is None and not folder.exists()
        # watchdog keeps watching a folder moved out of the tree and reports it under its old path
        other_process("""
            (Path(trashed) / "plan.md").write_text("# Plan\\nedited in the trash\\n")
            (Path(trashed) / "new.md").write_text("# New\\nadded in the trash\\n")
        """, trashed=str(deleted.trashed))
        other_process("""(Path(folder) / "after.md").write_text("# After\\nthe watcher goes on\\n")""",
                      folder=str(kept_folder))
        wait_for(lambda: engram.files.status(kept.folder, "after.md").status == INDEXED, what="after.md")
        wait_for(watcher.idle, what="the watcher to be idle")
        assert watcher.errors == 0
    assert not folder.exists() and engram.files.statuses(gone.folder) == []
    assert sorted(p.name for p in deleted.trashed.iterdir()) == ["by-hand.md", "late.md", "memories.md", "new.md",
                                                                 "plan.md"]
    assert (deleted.trashed / "by-hand.md").read_text() == "# Mine\nwritten by hand\n"
    assert [m.source["folder"] for m in engram.store.list(Scope(user="alice"), kinds=["file"])] == [kept.folder]


def test_a_change_that_cannot_be_indexed_is_reported_until_indexing_works_again(watched, monkeypatch):
    """The database may not grow (as on a full disk): the file gets a problem status that says
    so, and is indexed once there is room again. A failure the index cannot even record reaches
    the watcher, which keeps running and says why (the window's status bar shows it)."""
    w = watched
    w.db.execute(f"PRAGMA max_page_count = {w.db.query_one('PRAGMA page_count')[0]}")
    other_process("""
        (Path(folder) / "long.md").write_text("# Long\\n" + "A paragraph about the trip to Lisbon. " * 2000)
    """, folder=str(w.folder))
    wait_for(lambda: w.index.status(w.session.folder, "long.md").status == PROBLEM, what="a problem status")
    assert "is full" in w.index.status(w.session.folder, "long.md").detail
    w.db.execute("PRAGMA max_page_count = 1073741823")
    other_process("""
        (Path(folder) / "long.md").write_text("# Long\\nA paragraph about the trip to Lisbon.\\n")
    """, folder=str(w.folder))
    wait_for(lambda: w.index.status(w.session.folder, "long.md").status == INDEXED, what="indexed once there is room")

    def unrecordable(folder, name):
        raise RuntimeError("the index could not record anything")

    monkeypatch.setattr(w.index, "sync_file", unrecordable)
    (w.folder / "notes.md").write_text("# Notes\n")
    assert ": the index could not record anything" in wait_for(lambda: w.watcher.problem, what="the report")
    monkeypatch.undo()
    (w.folder / "notes.md").write_text("# Notes\nagain\n")
    wait_for(lambda: not w.watcher.problem, what="the report to clear once indexing works")
