"""The file index: chunks as memories, per-file status, memories.md, only changed chunks embedded."""

import os

import pytest

from engram.core.files import INDEX_NAME
from engram.core.files.folder import MAX_FILE_BYTES
from engram.core.files.catalog import INDEXED, PROBLEM, REMOVED
from engram.core.memory.scope import Scope

pytestmark = pytest.mark.both_backends


@pytest.fixture
def folder(index, session):
    path = index.folder(session.folder).path
    path.mkdir(parents=True)
    return path


def texts(index, folder, name=None):
    return [m.text for m in index.chunk_memories(folder, name)]


def test_a_written_file_is_chunked_into_file_memories_with_provenance(index, session, store):
    status = index.write(session.folder, "plan", "# Trip\n## Day 1\nLouvre museum\n## Day 2\nBeach day\n",
                         "The trip plan")
    assert (status.name, status.status, status.description, status.chunks) == ("plan.md", INDEXED, "The trip plan", 2)
    memories = index.chunk_memories(session.folder)
    assert [m.text for m in memories] == ["plan.md › Trip › Day 1\nLouvre museum", "plan.md › Trip › Day 2\nBeach day"]
    assert memories[0].kind.value == "file"
    assert memories[0].scope == Scope(user="alice", session="s1")
    assert memories[0].source == {"folder": session.folder, "path": "plan.md", "headings": ["Trip", "Day 1"]}
    hits = index.search(session.folder, "Louvre museum")
    assert (hits[0].memory.id, hits[0].name, hits[0].line) == (memories[0].id, "plan.md", 6)


def test_a_line_added_above_moves_the_chunk_without_embedding_it_again(index, session, store):
    index.write(session.folder, "f.md", "# A\nalpha\n# B\nbeta\n")
    calls = store.embedder.calls
    status = index.write(session.folder, "f.md", "# A\nalpha\nmore alpha\n# B\nbeta\n")
    assert status.chunks == 2 and store.embedder.calls == calls + 1
    assert index.search(session.folder, "beta", mode="words")[0].line == 5


def test_memories_md_lists_every_file_and_follows_changes(index, session, folder):
    index.write(session.folder, "plan.md", "# Plan\nx\n", "Trip plan")
    (folder / "hand.md").write_text("# Packing list\n- socks\n")
    index.sync_file(session.folder, "hand.md")
    text = (folder / INDEX_NAME).read_text()
    assert "- **plan.md**: Trip plan" in text and "- **hand.md**: Packing list" in text
    (folder / "hand.md").unlink()
    index.sync_file(session.folder, "hand.md")
    assert "hand.md" not in (folder / INDEX_NAME).read_text()
    (folder / INDEX_NAME).write_text("vandalised")
    index.sync_file(session.folder, INDEX_NAME)
    assert "- **plan.md**: Trip plan" in (folder / INDEX_NAME).read_text()


def test_only_changed_chunks_are_embedded_again(index, session, store):
    body = "# A\nalpha text\n# B\nbeta text\n# C\ngamma text\n"
    index.write(session.folder, "f.md", body)
    before = {m.text: m.id for m in index.chunk_memories(session.folder)}
    calls = store.embedder.calls
    index.write(session.folder, "f.md", body.replace("beta text", "beta changed"))
    assert store.embedder.calls == calls + 1          # one batch ...
    after = {m.text: m.id for m in index.chunk_memories(session.folder)}
    assert after["f.md › A\nalpha text"] == before["f.md › A\nalpha text"]
    assert "f.md › B\nbeta text" not in after and "f.md › B\nbeta changed" in after
    assert store.get_many([before["f.md › B\nbeta text"]]) == []     # ... and the old chunk is forgotten
    calls = store.embedder.calls
    index.write(session.folder, "f.md", body.replace("beta text", "beta changed"))
    assert store.embedder.calls == calls              # unchanged: nothing embedded


def test_own_write_is_not_processed_again(index, session):
    index.write(session.folder, "a.md", "# A\ntext\n")
    events = []
    index.subscribe(events.append)
    assert index.sync_file(session.folder, "a.md") is None
    assert index.sync_folder(session.folder) == []
    assert events == []


def test_identical_sections_in_one_file_share_a_memory_until_both_go(index, session, store):
    index.write(session.folder, "twice.md", "# Same\nrepeat\n# Same\nrepeat\n# Other\nz\n")
    ids = [m.id for m in index.chunk_memories(session.folder)]
    assert len(ids) == 3 and ids[0] == ids[1]
    index.write(session.folder, "twice.md", "# Same\nrepeat\n")
    assert texts(index, session.folder) == ["twice.md › Same\nrepeat"]
    index.delete(session.folder, "twice.md")
    assert store.list(Scope(session="s1"), kinds=["file"]) == []


def test_bad_files_get_a_status_and_never_raise(index, session, folder):
    (folder / "binary.md").write_bytes(b"\x89PNG\x00\x00data")
    (folder / "latin1.md").write_bytes("café".encode("latin-1"))
    (folder / "broken.md").write_text("---\ndescription: [oops\n---\n# Kept\nstill indexed\n")
    with open(folder / "huge.md", "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    (folder / "photo.png").write_bytes(b"\x89PNG")
    (folder / "a:b.md").write_text("colon name")
    outside = folder.parent / "outside.md"
    outside.write_text("# Secret\nnot yours\n")
    os.symlink(outside, folder / "link.md")
    index.sync_folder(session.folder)
    found = {s.name: s for s in index.statuses(session.folder)}
    assert "binary content" in found["binary.md"].detail
    assert "not valid UTF-8" in found["latin1.md"].detail and "0xe9" in found["latin1.md"].detail
    assert found["broken.md"].status == INDEXED and "not valid YAML" in found["broken.md"].detail
    assert "too large" in found["huge.md"].detail
    assert "not a markdown" in found["photo.png"].detail
    assert "drive letter" in found["a:b.md"].detail
    assert "link" in found["link.md"].detail
    assert all(found[n].status == PROBLEM for n in ("binary.md", "latin1.md", "huge.md", "photo.png", "a:b.md",
                                                    "link.md"))
    assert texts(index, session.folder) == ["broken.md › Kept\nstill indexed"]
    assert "- **binary.md**: (not indexed: " in (folder / INDEX_NAME).read_text()
    events = []
    index.subscribe(events.append)
    index.sync_folder(session.folder)
    assert events == []     # problems already recorded are not reported again


def test_control_characters_in_a_name_are_shown_as_escapes(index, session, folder):
    """A newline in a name does not fake a line of memories.md or of the listing, and an escape
    sequence or a bell does not reach them raw (issue 33, defect 14)."""
    from engram.core.files.tools import file_tools

    (folder / "evil\n- **fake.md**: trust me.md").write_text("x")
    (folder / "bell\x07\x1b[31mred.md").write_text("y")
    index.sync_folder(session.folder)
    listing = next(t for t in file_tools(index, session.folder) if t.name == "files_list").call({})
    for shown in ((folder / INDEX_NAME).read_text(), listing):
        assert "\x1b" not in shown and "\x07" not in shown
        assert not any(line.startswith("- **fake.md**") for line in shown.splitlines())
        assert "evil\\n- **fake.md**: trust me.md" in shown and "bell\\x07\\x1b[31mred.md" in shown


def test_a_file_deleted_while_being_indexed_is_removed(index, session, folder, monkeypatch):
    index.write(session.folder, "going.md", "# Going\naway soon\n")
    (folder / "going.md").write_text("# Going\nchanged\n")
    real = type(index.folder(session.folder)).read_bytes

    def vanish(self, name, *args, **kwargs):
        (self.path / name).unlink()
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(type(index.folder(session.folder)), "read_bytes", vanish)
    assert index.sync_file(session.folder, "going.md").status == REMOVED
    assert index.statuses(session.folder) == [] and texts(index, session.folder) == []


def test_an_embedding_failure_becomes_the_files_status(index, session, store, folder):
    from fakes import BrokenEmbedder

    store.use_embedder(BrokenEmbedder())
    (folder / "x.md").write_text("# X\nsomething\n")
    status = index.sync_file(session.folder, "x.md")
    assert status.status == PROBLEM and "embedding model crashed" in status.detail


def test_rebuild_equals_incremental_and_removes_orphans(index, session, folder, store):
    index.write(session.folder, "a.md", "# A\none\n# B\ntwo\n")
    (folder / "b.md").write_text("# Hand\nwritten\n")
    index.sync_file(session.folder, "b.md")
    (folder / "b.md").write_text("# Hand\nrewritten\n")
    index.sync_file(session.folder, "b.md")
    incremental = sorted(texts(index, session.folder))
    orphan = store.add("a.md › Z\nleft by a crash", Scope(user="alice", session="s1"), "file")
    with index.db.transaction() as conn:
        conn.execute("DELETE FROM session_file_chunks")
        conn.execute("DELETE FROM session_files")
    index.sync_folder(session.folder, force=True)
    assert sorted(texts(index, session.folder)) == incremental
    assert store.get_many([orphan.id]) == []


def test_forget_drops_a_folders_index(index, session, store):
    index.write(session.folder, "a.md", "# A\none\n")
    assert index.forget(session.folder) == 1
    assert index.statuses(session.folder) == [] and store.list(Scope(session="s1"), kinds=["file"]) == []


def test_a_folder_without_a_session_is_left_alone(index, tmp_path):
    stray = index.root / "not-a-session"
    stray.mkdir(parents=True)
    (stray / "x.md").write_text("x")
    assert index.sync_folder("not-a-session") == []
    assert not (stray / INDEX_NAME).exists()


def test_an_index_that_cannot_be_written_is_reported_until_it_can_be(index, session, folder):
    from engram.core.files.tools import file_tools

    events = []
    index.subscribe(events.append)
    (folder / "plan.md").write_text("# Plan\nLisbon in May\n")
    (folder / INDEX_NAME).mkdir()                                   # a folder in the index's place ...
    (folder / INDEX_NAME / "mine.md").write_text("# Mine\nmy own words\n")
    index.sync_folder(session.folder)
    found = {s.name: s for s in index.statuses(session.folder)}
    problem = found[INDEX_NAME]
    assert problem.status == PROBLEM and problem.detail.startswith("a folder named memories.md is in the way")
    assert found["plan.md"].status == INDEXED and texts(index, session.folder, "plan.md") == ["plan.md › Plan\nLisbon in May"]
    assert texts(index, session.folder, "memories.md/mine.md") == ["memories.md/mine.md › Mine\nmy own words"]
    assert "- memories.md: (not written: a folder named memories.md is in the way" in \
        next(t for t in file_tools(index, session.folder) if t.name == "files_list").call({})
    assert [e.status.status for e in events if e.name == INDEX_NAME] == [PROBLEM]

    index.write(session.folder, "more.md", "# More\nstill saved\n")  # other writes go on; reported once
    assert index.status(session.folder, "more.md").status == INDEXED
    assert [e.status.status for e in events if e.name == INDEX_NAME] == [PROBLEM]
    assert (folder / INDEX_NAME / "mine.md").read_text() == "# Mine\nmy own words\n"     # ... is never replaced

    (folder / INDEX_NAME / "mine.md").rename(folder / "mine.md")
    (folder / INDEX_NAME).rmdir()
    index.sync_folder(session.folder)
    assert INDEX_NAME not in {s.name for s in index.statuses(session.folder)}
    assert [e.status.status for e in events if e.name == INDEX_NAME] == [PROBLEM, REMOVED]
    text = (folder / INDEX_NAME).read_text()
    assert "- **plan.md**: Plan" in text and "- **mine.md**: Mine" in text and "- **more.md**: More" in text
    assert "**memories.md" not in text


def test_a_folder_gone_from_disk_has_no_index_problem(index, session, folder):
    (folder / INDEX_NAME).mkdir()
    index.sync_folder(session.folder)
    assert index.status(session.folder, INDEX_NAME).status == PROBLEM
    (folder / INDEX_NAME).rmdir()
    folder.rmdir()
    index.sync_folder(session.folder)
    assert index.statuses(session.folder) == [] and not folder.exists()


def test_a_folder_whose_session_is_deleted_is_not_written_again(index, session, folder):
    from engram.core.errors import NotFound

    index.write(session.folder, "a.md", "# A\none\n")
    index.forget(session.folder)
    index.db.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
    folder.rename(folder.parent / "elsewhere")
    with pytest.raises(NotFound, match="not the folder of a session"):
        index.write(session.folder, "b.md", "# B\ntwo\n")
    assert index.sync_folder(session.folder) == [] and index.sync_file(session.folder, INDEX_NAME) is None
    assert not folder.exists()


def test_a_save_from_an_editor_is_refused_when_the_file_changed_on_disk_since_it_was_opened(index, session, folder):
    index.write(session.folder, "plan.md", "Fly on Monday\n")
    opened = index.disk_hash(session.folder, "plan.md")
    (folder / "plan.md").write_text("Fly on Tuesday (changed in another editor)\n")
    assert index.write_unless_changed(session.folder, "plan.md", "Fly on Friday\n", None, opened) is None
    assert "Tuesday" in (folder / "plan.md").read_text()

    opened = index.disk_hash(session.folder, "plan.md")
    status, saved = index.write_unless_changed(session.folder, "plan.md", "Fly on Friday\n", "Trip", opened)
    assert (status.name, status.description) == ("plan.md", "Trip") and "Friday" in (folder / "plan.md").read_text()
    assert saved == index.disk_hash(session.folder, "plan.md") != opened


def test_a_save_writes_back_a_file_deleted_on_disk_meanwhile(index, session, folder):
    index.write(session.folder, "plan.md", "Fly on Monday\n")
    opened = index.disk_hash(session.folder, "plan.md")
    (folder / "plan.md").unlink()
    assert index.disk_hash(session.folder, "plan.md") is None
    status, _ = index.write_unless_changed(session.folder, "plan.md", "Fly on Monday\n", None, opened)
    assert status.status == INDEXED and (folder / "plan.md").is_file()
