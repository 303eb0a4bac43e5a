"""The durable outbox: jobs survive, failures are retried with backoff, counted and never lost."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from engram.core.conversation.outbox import Outbox, owner_alive, process_owner

pytestmark = pytest.mark.both_backends


class Clock:
    def __init__(self):
        self.at = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock():
    return Clock()


def test_a_job_runs_once_and_is_done(db, clock):
    seen = []
    outbox = Outbox(db, {"note": seen.append}, now=clock)
    outbox.enqueue("note", {"n": 1})
    assert outbox.health().pending == 1
    assert outbox.run_due() == 1 and outbox.run_due() == 0
    assert seen == [{"n": 1}] and outbox.health().pending == 0
    assert outbox.jobs("done")[0].payload == {"n": 1}


def test_failures_are_retried_with_growing_delays_then_marked_failed_and_visible(db, clock):
    calls = []

    def flaky(payload):
        calls.append(clock())
        raise RuntimeError("disk on fire")

    outbox = Outbox(db, {"flaky": flaky}, max_attempts=3, base_delay=2.0, now=clock)
    outbox.enqueue("flaky", {})
    assert outbox.run_due() == 1
    health = outbox.health()
    assert (health.pending, health.retrying, health.failed) == (1, 1, 0)
    assert health.errors[0].last_error == "RuntimeError: disk on fire"
    assert outbox.run_due() == 0                      # not due yet: backoff
    clock.advance(2)
    assert outbox.run_due() == 1
    clock.advance(3)
    assert outbox.run_due() == 0                      # second delay is 4 s
    clock.advance(1)
    assert outbox.run_due() == 1
    health = outbox.health()
    assert (health.pending, health.failed, health.ok) == (0, 1, False)
    assert health.errors[0].attempts == 3 and health.to_json()["errors"][0]["state"] == "failed"
    assert len(calls) == 3

    outbox.handlers["flaky"] = lambda payload: None   # the cause is fixed
    assert outbox.retry_failed() == 1
    assert outbox.run_due() == 1 and outbox.health().ok and outbox.health().pending == 0


def test_finished_jobs_are_pruned_after_a_week_but_failed_ones_stay(db, clock):
    outbox = Outbox(db, {"ok": lambda p: None}, max_attempts=1, now=clock)
    outbox.enqueue("ok", {})
    outbox.enqueue("broken", {})
    outbox.run_due()
    clock.advance(8 * 86400)
    assert outbox.prune() == 1
    assert [j.kind for j in outbox.jobs()] == ["broken"]


def test_a_job_without_a_handler_is_an_error_not_a_silent_drop(db, clock):
    outbox = Outbox(db, {}, max_attempts=1, now=clock)
    outbox.enqueue("mystery", {})
    outbox.run_due()
    assert "no handler" in outbox.health().errors[0].last_error


def test_unique_jobs_are_not_queued_twice(db, clock):
    outbox = Outbox(db, {}, now=clock)
    assert outbox.enqueue("summarise", {"session_id": "s"}, unique=True) is not None
    assert outbox.enqueue("summarise", {"session_id": "s"}, unique=True) is None
    assert outbox.health().pending == 1


def test_a_job_in_a_rolled_back_transaction_does_not_exist(db, clock):
    outbox = Outbox(db, {}, now=clock)
    with pytest.raises(RuntimeError):
        with db.transaction() as conn:
            outbox.enqueue("note", {}, conn)
            raise RuntimeError("crash before commit")
    assert outbox.health().pending == 0


def test_the_worker_thread_runs_jobs_and_stops(db):
    done = []
    outbox = Outbox(db, {"note": done.append})
    outbox.start()
    try:
        outbox.enqueue("note", {"n": 1})
        assert outbox.drain(timeout=5)
    finally:
        outbox.stop()
    assert done == [{"n": 1}]


def test_a_running_worker_owns_the_jobs_it_queues_and_an_idle_one_does_not(db):
    outbox = Outbox(db, {"note": lambda payload: None})
    outbox.enqueue("note", {"n": 1})
    outbox.start()
    try:
        outbox.enqueue("note", {"n": 2})
        assert outbox.drain(timeout=5)
    finally:
        outbox.stop()
    owners = dict(db.query("SELECT payload, owner FROM outbox"))
    assert owners == {'{"n": 1}': process_owner(), '{"n": 2}': process_owner()}    # taken, and queued as its own
    assert outbox.owner == process_owner() and owner_alive(outbox.owner)


def test_a_job_of_another_running_process_is_left_to_it_and_taken_up_once_it_has_ended(db, clock):
    """An importing process's jobs are not embedded by the window beside it; once it has been
    killed, they are not stranded either: the next worker takes them up."""
    ran = []
    outbox = Outbox(db, {"note": ran.append}, now=clock)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with db.transaction() as conn:
            outbox.enqueue("note", {"n": 1}, conn)
            conn.execute("UPDATE outbox SET owner = ?", (process_owner(other.pid),))
        assert owner_alive(process_owner(other.pid))
        assert outbox.run_due() == 0 and outbox.drain(timeout=0) and outbox.health().pending == 1
        assert outbox._seconds_to_next() == 5.0          # nothing of its own to wake up for
    finally:
        other.kill()
        other.wait()
    assert not owner_alive(db.query_one("SELECT owner FROM outbox")[0])
    assert outbox.run_due() == 1 and ran == [{"n": 1}] and outbox.health().pending == 0


def test_an_owner_on_another_machine_or_with_a_reused_process_id_is_not_alive():
    host, pid, started = process_owner().rsplit(" ", 2)
    assert owner_alive(f"{host} {pid} {started}")
    assert not owner_alive(f"{host} {pid} {float(started) - 60:.2f}")     # the id now belongs to another process
    assert not owner_alive(f"elsewhere.example {pid} {started}")         # cannot be asked: its jobs are taken up


def test_a_worker_that_cannot_record_its_work_says_so_and_goes_on_once_it_can(tmp_path, monkeypatch):
    """A full disk (here: the file may not grow) fails the job's own bookkeeping, not just the job:
    the worker thread must neither die silently nor lose the job."""
    import time

    from engram.core.conversation import outbox as outbox_module
    from engram.core.storage.database import Database

    monkeypatch.setattr(outbox_module, "STALLED_RETRY_SECONDS", 0.05)
    db = Database(tmp_path / "engram.sqlite")
    broken = [True]

    def handler(payload):
        if broken[0]:
            raise RuntimeError("no room: " + "x" * 50_000)   # recording this error needs new pages

    outbox = Outbox(db, {"work": handler})
    outbox.enqueue("work", {"n": 1})
    db.execute(f"PRAGMA max_page_count = {db.query_one('PRAGMA page_count')[0]}")
    outbox.start()
    try:
        deadline = time.monotonic() + 10
        while not outbox.health().stalled and time.monotonic() < deadline:
            time.sleep(0.02)
        health = outbox.health()
        assert "is full" in health.stalled and not health.ok and health.pending == 1
        broken[0] = False
        db.execute("PRAGMA max_page_count = 1073741823")
        assert outbox.drain(timeout=10)
        deadline = time.monotonic() + 5
        while outbox.health().stalled and time.monotonic() < deadline:   # cleared just after the job is recorded
            time.sleep(0.02)
        assert outbox.health().ok
    finally:
        outbox.stop()
    assert db.query_one("SELECT state FROM outbox")[0] == "done"


def test_doctor_reports_waiting_and_failed_background_work(tmp_path, clock):
    from engram.core.storage.database import Database
    from engram.core.doctor import _outbox

    db = Database(tmp_path / "x.db")
    outbox = Outbox(db, {}, max_attempts=1, now=clock)
    assert _outbox({"db": db}).ok
    outbox.enqueue("archive_message", {"message_id": 1})
    waiting = _outbox({"db": db})      # e.g. an import killed before its archiving: said, not failed
    assert not waiting.ok and not waiting.required and "1 pending" in waiting.detail
    assert "waiting" in waiting.detail and "engram outbox retry" in waiting.fix
    outbox.run_due()
    check = _outbox({"db": db})
    assert not check.ok and "1 failed" in check.detail and "engram outbox retry" in check.fix
    db.close()


def test_two_workers_on_one_server_never_run_a_job_twice(postgres_url):
    """Two Engram processes' workers (each its own connections) share one queue on PostgreSQL:
    every job runs exactly once, and both workers take jobs."""
    from engram.core.storage import open_database

    databases = [open_database(postgres_url) for _ in range(2)]
    ran: list[tuple[int, int]] = []         # (worker, job number)
    lock = threading.Lock()

    def handler(worker: int):
        def run(payload: dict) -> None:
            time.sleep(0.005)               # long enough for the other worker to come by meanwhile
            with lock:
                ran.append((worker, payload["n"]))
        return run

    outboxes = [Outbox(db, {"note": handler(n)}) for n, db in enumerate(databases)]
    for n in range(80):
        outboxes[0].enqueue("note", {"n": n})
    threads = [threading.Thread(target=outbox.run_due) for outbox in outboxes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert sorted(n for _, n in ran) == list(range(80))         # each once: none twice, none lost
        assert {worker for worker, _ in ran} == {0, 1}
        assert outboxes[1].health().pending == 0 and len(outboxes[1].jobs("done")) == 80
    finally:
        for db in databases:
            db.close()


def test_a_claimed_job_is_passed_by_and_comes_back_when_its_worker_dies(postgres_url):
    from engram.core.storage import open_database

    databases = [open_database(postgres_url) for _ in range(2)]
    ran: list[dict] = []
    first, second = (Outbox(db, {"note": ran.append}) for db in databases)
    first.enqueue("note", {"n": 1})
    try:
        with pytest.raises(RuntimeError), first._claimed() as claim:
            assert claim is not None and claim[0].payload == {"n": 1}
            assert second.run_due() == 0                # claimed: the other worker passes it by
            raise RuntimeError("the worker died before recording anything")
        assert second.run_due() == 1 and ran == [{"n": 1}]
    finally:
        for db in databases:
            db.close()
