"""Health checks for ``engram doctor``: each part, what is wrong, the fix (the window does not show them yet)."""

from __future__ import annotations

import platform
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from engram.core import paths
from engram.core.app import check_writable, embedding_model_path, open_data
from engram.core.storage.database import DAMAGED_HINT, Database, disk_full, versions
from engram.core.storage.postgres import redacted
from engram.core.models import gpu
from engram.core.models.embeddings import WORDS_ONLY, GGUFEmbedder
from engram.core.errors import EngramError
from engram.core.memory.scope import Scope
from engram.core.memory.search.options import SearchOptions
from engram.core.settings import Settings
from engram.core.memory.store import MemoryStore


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def _python(_: dict) -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, f"{platform.python_implementation()} {platform.python_version()}",
                 "" if ok else "install Python 3.11 or newer")


def _data_dir(ctx: dict) -> Check:
    folder = paths.data_dir(ctx["data_dir"] or ctx["settings"].data_dir or None)
    try:
        check_writable(folder)
    except EngramError as e:
        return Check("data folder", False, e.message, e.hint)
    if disk_full(folder):
        return Check("data folder", False, f"{folder}: the disk is full ({shutil.disk_usage(folder).free:,} bytes"
                     " free): what is stored can be read, nothing new can be stored",
                     "free some space on that disk")
    return Check("data folder", True, f"{folder} (writable)")


def _database(ctx: dict) -> Check:
    folder = paths.data_dir(ctx["data_dir"] or ctx["settings"].data_dir or None)
    url = paths.database_url(ctx["database_url"], ctx["settings"].database_url)
    try:
        db = ctx["db"] = open_data(folder, url)
    except EngramError as e:
        return Check("database", False, e.message, e.hint)
    if url:
        return _server(db, url)
    v = versions(db)
    return Check("database", True, f"{db.path} (schema {db.schema_version()}); SQLite {v['sqlite']},"
                                   f" sqlite-vec {v['sqlite-vec']}, apsw {v['apsw']}")


def _server(db, url: str) -> Check:
    """A PostgreSQL server: reached, its version, the schema's, and pgvector (vectors need it)."""
    (server,) = db.query_one("SHOW server_version")
    row = db.query_one("SELECT default_version, installed_version FROM pg_available_extensions WHERE name = 'vector'")
    detail = f"{redacted(url)} (schema {db.schema_version()}); PostgreSQL {server.split()[0]}"
    if row is None:
        return Check("database", False, f"{detail}, without the pgvector extension",
                     "install pgvector on the server (its package, e.g. postgresql-18-pgvector, or"
                     " https://github.com/pgvector/pgvector), then restart Engram")
    installed = f"pgvector {row[1]}" if row[1] else f"pgvector {row[0]} available (not yet created in this database)"
    return Check("database", True, f"{detail}, {installed}")


def _password_at_rest(ctx: dict) -> Check | None:
    """A password in the saved setting is a secret in a plain file: libpq reads it from its own places."""
    if urlsplit(ctx["settings"].database_url).password is None:
        return None
    return Check("database password", False, "settings.json holds the server's password in plain text",
                 "put it in ~/.pgpass (mode 600) or PGPASSWORD, and remove it from the database_url setting",
                 required=False)


def _integrity(ctx: dict) -> Check:
    """SQLite's quick check of every page (seconds at a million memories): a file damaged by a
    failing disk is found here, not halfway through someone's work."""
    if "db" not in ctx:
        return Check("database integrity", False, "not checked: the database did not open")
    if ctx["db"].dialect != "sqlite":
        return Check("database integrity", True, "kept by the server (its checksums, backups and replicas)",
                     required=False)
    try:
        problems = [row[0].replace("\n", "; ") for row in ctx["db"].query("PRAGMA quick_check(5)") if row[0] != "ok"]
    except EngramError as e:
        problems = [e.message]
    if not problems:
        ctx["db"].mark_healthy()
        return Check("database integrity", True, "every page reads back (SQLite quick_check)")
    ctx["db"].mark_damaged("; ".join(problems))      # from now on Engram only reads it
    return Check("database integrity", False, "the database file is damaged: " + "; ".join(problems)
                 + "; Engram only reads it from now on", DAMAGED_HINT)


def _tokenizer(_: dict) -> Check:
    db = Database(":memory:")
    try:
        store = MemoryStore(db, None)
        store.add("我对花生过敏", Scope(user="doctor"))
        store.add("The allergies were listed", Scope(user="doctor"))
        found_zh = store.search("花生", Scope(user="doctor"), _words()).hits
        found_en = store.search("allergy list", Scope(user="doctor"), _words()).hits
        ok = len(found_zh) == 1 and len(found_en) == 1
        return Check("word search (FTS5)", ok, "porter unicode61 + CJK bigrams: finds '花生' in '我对花生过敏'"
                     " and 'allergy list' in 'The allergies were listed'" if ok else "word search failed its self-test",
                     "" if ok else "reinstall Engram (apsw's SQLite must include FTS5)")
    finally:
        db.close()


def _words() -> SearchOptions:
    return SearchOptions(mode="words", k=5)


def _embedding_model(ctx: dict) -> Check:
    path = embedding_model_path(ctx["settings"].embedding_model)
    try:
        started = time.perf_counter()
        embedder = GGUFEmbedder(path, gpu_layers=ctx["settings"].embedding_gpu_layers)
        loaded = time.perf_counter() - started
        embedder.embed(["warm-up"])  # the first call allocates llama.cpp's buffers
        started = time.perf_counter()
        embedder.embed_query("a short test sentence")
        embed_ms = (time.perf_counter() - started) * 1000
        detail = (f"{path} ({Path(path).stat().st_size / 1e6:.1f} MB), {embedder.dimensions} dimensions,"
                  f" loaded in {loaded * 1000:.0f} ms, one query embedded in {embed_ms:.1f} ms,"
                  f" on {embedder.placement.describe()}")
        embedder.close()
        return Check("embedding model", True, detail)
    except EngramError as e:
        return Check("embedding model", False, f"{e.message}. {WORDS_ONLY}",
                     e.hint or "reinstall Engram to restore the bundled model, or choose a .gguf in settings")


def _model_metadata(ctx: dict) -> Check | None:
    """The embedding models and rerankers on this machine, by their headers: pooling, rank head,
    rerank template. Only the ones in use make the check fail."""
    from engram.core.models.library import ModelLibrary
    from engram.core.models.role_check import embedder_problems, reranker_problems

    settings = ctx["settings"]
    files = {embedding_model_path(settings.embedding_model): ("embedding", True)}
    if settings.rerank_model:
        files[Path(settings.rerank_model).expanduser()] = ("reranker", True)
    try:
        for status in ModelLibrary(settings).statuses():
            if status.installed and status.entry.kind != "chat":
                files.setdefault(status.path, (status.entry.kind, False))
    except EngramError:
        pass                      # a broken catalog is not this check's to report
    lines, failing = [], False
    for path, (kind, in_use) in files.items():
        check = embedder_problems if kind == "embedding" else reranker_problems
        try:
            said, problems = check(path)
        except EngramError as e:
            said, problems = "", [e.message]
        failing |= in_use and bool(problems)
        lines.append(f"{path.name} ({kind}{', in use' if in_use else ''}): {said}"
                     + (f" — {'; '.join(problems)}" if problems else ""))
    return Check("model metadata", not failing, " | ".join(lines),
                 "" if not failing else "choose another file for that role (engram models list)", required=False)


def _outbox(ctx: dict) -> Check:
    """Background work (archiving, summaries): failed jobs mean memories are missing."""
    if "db" not in ctx:
        return Check("background work", False, "not checked: the database did not open")
    from engram.core.conversation.outbox import Outbox

    health = Outbox(ctx["db"]).health(errors=1)
    detail = f"{health.pending} pending ({health.retrying} retrying), {health.failed} failed"
    if health.errors:
        detail += f"; last error: {health.errors[0].kind}: {health.errors[0].last_error}"
    if not health.ok:
        return Check("background work", False, detail, "fix the cause above, then run `engram outbox retry`")
    if health.pending:      # e.g. an import's archiving cut short: its messages are not searchable yet
        return Check("background work", False, detail + "; waiting for Engram to run it",
                     "open the window, or run `engram outbox retry` to do it now", required=False)
    return Check("background work", True, detail)


def _vector_graph(ctx: dict) -> Check | None:
    """PostgreSQL: a graph an older Engram built is built again beside it by an open window (an
    hour or more at a million memories); every window on the server says so while it runs, and
    why it stopped if it did, but only while a window is open."""
    if "db" not in ctx or ctx["db"].dialect != "postgresql":
        return None
    from engram.core.memory.search.vectors.pgvector_table import EF_CONSTRUCTION, M, outdated_graphs

    outdated = outdated_graphs(ctx["db"])
    if not outdated:
        return Check("vector graph", True, f"HNSW, m {M}, ef_construction {EF_CONSTRUCTION}", required=False)
    (table, (graph, building)), *_ = outdated.items()
    detail = (f"{table}'s graph was built by an older Engram (m {graph['m']}, ef_construction"
              f" {graph['ef_construction']}); searches use it, finding fewer of the nearest at a million memories")
    if building:
        return Check("vector graph", True, f"{detail}; the new one is being built beside it ({building})",
                     required=False)
    return Check("vector graph", False, f"{detail}; no new one is being built",
                 "open Engram's window and leave it open until the new graph is built (about 40 minutes a"
                 " million memories on 2 cores); if it stops, the log says why", required=False)


def _chat_model(ctx: dict) -> Check:
    """Chat needs it; memory features work without it, so a broken one is reported, not fatal."""
    from engram.core.models.chat_model import chat_model_path, load_chat_model

    try:
        path = chat_model_path(ctx["settings"])
        model = load_chat_model(ctx["settings"])
    except EngramError as e:
        return Check("chat model", False, e.message,
                     e.hint or "choose a chat model .gguf in settings", required=False)
    detail = (f"{path} ({path.stat().st_size / 1e6:.1f} MB), chat format {model.chat_format},"
              f" context {model.context_tokens} tokens, loaded in {model.load_seconds * 1000:.0f} ms,"
              f" on {model.placement.describe()}")
    model.close()
    return Check("chat model", True, detail, required=False)


def _gpu(ctx: dict) -> Check:
    """Which device the models run on: informative, as the CPU is a working fallback."""
    from engram.core.models.chat_model import chat_model_path

    settings = ctx["settings"]
    built = ", ".join(gpu.backends())
    device = gpu.best_device()
    if not device.gpu:
        other = [b for b in gpu.backends() if b != "CPU"]
        why = (f"the {' and '.join(other)} backend found no GPU device" if other
               else "no GPU backend: this llama.cpp build has none, or its driver is missing")
        return Check("gpu", True, f"none: models run on the CPU ({why}; backends: {built})", required=False)
    try:
        planned = gpu.plan(chat_model_path(settings), settings.chat_gpu_layers, settings.chat_context_size, device)
        layers = (f"chat model: {planned.layers}/{planned.total} layers planned"
                  f" (chat_gpu_layers {settings.chat_gpu_layers})")
    except EngramError as e:
        layers = f"chat model: not planned ({e.message})"
    return Check("gpu", True, f"{device.label} ({device.name}), {device.memory()}; {layers}; backends: {built}",
                 required=False)


CHECKS: list[Callable[[dict], Check | None]] = [_python, _data_dir, _database, _password_at_rest, _integrity,
                                                _tokenizer, _gpu, _embedding_model, _model_metadata, _outbox,
                                                _vector_graph, _chat_model]


def run_checks(data_dir: str | None = None, config_dir: str | None = None,
               database_url: str | None = None) -> list[Check]:
    # What checks share.
    ctx: dict[str, Any] = {"data_dir": data_dir, "database_url": database_url, "settings": Settings.load(config_dir)}
    results = []
    if ctx["settings"].problem:
        results.append(Check("settings", True, ctx["settings"].problem, required=False))
    for check in CHECKS:
        try:
            result = check(ctx)
        except EngramError as e:    # a part too damaged to check: said, and the others go on
            result = Check(check.__name__.strip("_").replace("_", " "), False, e.message, e.hint)
        if result is not None:
            results.append(result)
    if "db" in ctx:
        ctx["db"].close()
    return results
