"""Everything one data folder needs, opened together: the facade the CLI and the window use."""

from __future__ import annotations

import os
import threading
import errno
import uuid
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import cast

from engram.core import paths
from engram.core.memory.search.words.index import REINDEX_JOB
from engram.core.conversation.archive import ARCHIVE_JOB, Archiver, forget_session
from engram.core.models.chat_model import ChatModel
from engram.core.conversation.context import ContextProvider
from engram.core.storage import open_database
from engram.core.storage.database import Database
from engram.core.storage.postgres import is_server_url, redacted
from engram.core.conversation.distill import DISTILL_JOB, Distiller
from engram.core.models.embeddings import Embedder, GGUFEmbedder
from engram.core.models.reranker import GGUFReranker
from engram.core.errors import DataDirError, InvalidInput, ModelError
from engram.core.files import SESSIONS_DIR, TRASH_DIR, FileIndex
from engram.core.files.documents import CONVERT_JOB, Documents
from engram.core.files.provider import FileMemoryProvider
from engram.core.settings import EMBEDDING_FIELDS, Settings
from engram.core.conversation.memory_options import MemoryOptions
from engram.core.conversation.outbox import Outbox
from engram.core.conversation.preferences import Preferences, PreferencesProvider
from engram.core.conversation.recall import RecallProvider
from engram.core.conversation.triggers import TriggerWords
from engram.core.conversation.upkeep import EMPTY_LOG_JOB, empty_log, empty_log_job
from engram.core.conversation.sessions import Sessions
from engram.core.memory.store import MemoryStore
from engram.core.conversation.summary import SUMMARY_JOB, Summariser, SummaryProvider, summarised_through
from engram.core.conversation.engine import TurnEngine
from engram.core.conversation.turn_records import Turns
from engram.core.conversation.window import WindowProvider
from engram.core.profile.lines import CATEGORIES as LEARNED_CATEGORIES
from engram.core.profile.learning import ProfileLearning
from engram.core.profile.profiles import PROFILES_DIR, Profiles
from engram.core.profile.provider import ProfileProvider


def check_writable(folder: Path) -> Path:
    """Create the folder if needed and prove that a file can be written in it. A full disk passes:
    what is stored can still be read, and a change then says the disk is full."""
    probe = folder / f".engram-write-test-{uuid.uuid4().hex}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            probe.write_bytes(b"ok")
        finally:
            probe.unlink(missing_ok=True)     # made but not written to, on a full disk
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            return folder
        raise DataDirError(f"the data folder {folder} is not writable: {e.strerror}",
                           hint="choose a writable folder with --data-dir or ENGRAM_DATA_DIR, or fix its permissions") from e
    return folder


EMBED_JOB = "embed_pending"


def open_data(data_dir: Path, url: str) -> Database:
    """The database: on the PostgreSQL server ``url`` names, or (empty) the SQLite file in the data
    folder. Typed as SQLite's: the server's has the same calls, which is what the repositories use."""
    if not url:
        return Database(data_dir / paths.DATABASE_FILE)
    if not is_server_url(url):
        raise InvalidInput(f"the database URL {redacted(url)!r} does not name a PostgreSQL server",
                           hint="write it as postgresql://user@host:5432/database (database_url,"
                                " ENGRAM_DATABASE_URL or --database-url), or leave it empty for SQLite")
    return cast(Database, open_database(url))


def embedding_model_path(setting: str) -> Path:
    """The file an ``embedding_model`` setting names; empty: the bundled model."""
    return Path(setting).expanduser() if setting else paths.BUNDLED_EMBEDDING_MODEL


@dataclass(frozen=True)
class DeletedSession:
    """What deleting a session did: how many messages went, and where its folder of files went
    (``trashed``; None when it had none), or why the folder is still in place (``problem``)."""

    messages: int
    folder: Path
    trashed: Path | None = None
    problem: DataDirError | None = None


class Engram:
    """One data folder opened: ``with Engram(...) as engram:`` closes it (models, outbox, database)
    however the block ends."""

    def __init__(self, data_dir: str | os.PathLike | None = None, config_dir: str | os.PathLike | None = None,
                 embedder: Embedder | None = None, chat_model: ChatModel | None = None, *, meaning: bool = True,
                 database_url: str | None = None):
        """``meaning=False`` opens without the embedding model: enough to list, read and forget
        memories. A missing or broken embedding model does not stop Engram either: it opens with
        search by words only, and ``embedding_problem`` says why. ``database_url`` (else
        ENGRAM_DATABASE_URL, else the setting) keeps the data on a PostgreSQL server; the session
        files stay in the data folder."""
        self.settings = Settings.load(config_dir)
        self.data_dir = check_writable(paths.data_dir(data_dir or self.settings.data_dir or None))
        self.db = open_data(self.data_dir, paths.database_url(database_url, self.settings.database_url))
        self.embedding_problem: ModelError | None = None
        if embedder is None and meaning:
            try:
                embedder = GGUFEmbedder(embedding_model_path(self.settings.embedding_model),
                                        gpu_layers=self.settings.embedding_gpu_layers)
            except ModelError as e:
                self.embedding_problem = e
        self.store = MemoryStore(self.db, embedder)
        self.store.clean = self._sensitive_mask()
        self.rerank_problem: ModelError | None = None
        if meaning and self.settings.rerank_model:
            try:
                self.store.reranker = GGUFReranker(Path(self.settings.rerank_model).expanduser(),
                                                   gpu_layers=self.settings.embedding_gpu_layers)
            except ModelError as e:
                self.rerank_problem = e
        self._chat_model = chat_model
        self._chat_model_path = ""            # the file of the loaded chat model; "": the settings' one
        self._chat_model_lock = threading.Lock()

    @property
    def user(self) -> str:
        return self.settings.profile

    @property
    def embedder(self) -> Embedder | None:
        """The embedding model in use; None: memories are found by words only."""
        return self.store.embedder

    # -- the embedding model (switched without a restart) ------------------------------------------

    def use_embedding_model(self, setting: str, gpu_layers: int | str | None = None) -> None:
        """Load the embedding model an ``embedding_model`` setting names and use it from now on:
        Settings' new model, the broken one put right, or the one in use with other ``gpu_layers``
        (None: the setting's). Takes seconds, so never on the GUI thread. When it does not load,
        ModelError is raised and nothing changes."""
        layers = self.settings.embedding_gpu_layers if gpu_layers is None else gpu_layers
        self.use_embedder(GGUFEmbedder(embedding_model_path(setting), gpu_layers=layers))

    def use_embedder(self, embedder: Embedder) -> None:
        """Embed and search with this model from now on, while the window's threads and the outbox
        go on using the store. The old model closes once the calls it has in hand are done; the
        outbox embeds what the new one has not, which is found by words meanwhile."""
        old = self.store.use_embedder(embedder)
        self.embedding_problem = None
        if hasattr(old, "close"):
            old.close()
        self.store.warm(self.user)
        self.embed_later()

    def use_rerank_model(self, setting: str) -> None:
        """Rerank with the model a ``rerank_model`` setting names from the next search on (empty: no
        reranking). When it does not load, ModelError is raised and nothing changes."""
        new = GGUFReranker(Path(setting).expanduser(), gpu_layers=self.settings.embedding_gpu_layers) if setting else None
        old, self.store.reranker = self.store.reranker, new
        self.rerank_problem = None
        if hasattr(old, "close"):
            old.close()

    def embed_later(self) -> None:
        """Queue the embedding of the memories the model in use lacks (after a switch, or after
        words only) as background work: shown in the memory health, retried, resumed after a crash."""
        if self.store.pending_embeddings():
            self.outbox.enqueue(EMBED_JOB, {}, unique=True)

    # -- conversations (the chat model loads only when a turn or a summary needs it) -------------

    @cached_property
    def sessions(self) -> Sessions:
        sessions = Sessions(self.db)
        sessions.clean = self._sensitive_mask()
        return sessions

    def _sensitive_mask(self):
        """core/memory/sensitive.py's mask when the person chose ``sensitive_details: mask``, else None."""
        if self.settings.sensitive_details != "mask":
            return None
        from engram.core.memory.sensitive import mask

        return mask

    @cached_property
    def turns(self) -> Turns:
        return Turns(self.db)

    @cached_property
    def preferences(self) -> Preferences:
        return Preferences(self.db)

    @cached_property
    def profiles(self) -> Profiles:
        """The people's profile files (``<data>/profiles/<user>.md``): what matters about each person."""
        def set_preference(user: str, key: str, value) -> None:
            if value is None:
                self.preferences.unset(user, key)
            else:
                self.preferences.set(user, key, value)

        return Profiles(self.data_dir / PROFILES_DIR, clean=self._sensitive_mask(), set_preference=set_preference,
                        language=lambda: "zh" if self.settings.ui_language.startswith("zh") else "en")

    @cached_property
    def profile_learning(self) -> ProfileLearning:
        return ProfileLearning(self.profiles, self.settings.profile_learning)

    def _note_profile(self, session, candidate) -> None:
        """A distilled note the model put under a profile heading, into the profile (as the person chose)."""
        self.profile_learning.from_model(session.user, session, candidate.text, candidate.profile,
                                         importance=round(candidate.importance * 5),
                                         message_id=candidate.source_ids[-1], by="model")

    @cached_property
    def memory_options(self) -> MemoryOptions:
        return MemoryOptions.from_settings(self.settings)

    def chat_model(self, path: str = "") -> ChatModel:
        """The chat model, loaded on first use: the settings' one, or with ``path`` a chat's own
        (the GGUF file it chose). One is held at a time: another is loaded in its place once the
        one held has finished its replies. A missing or broken model raises ModelError here, and
        only here: memory features never need it."""
        from engram.core.models.chat_model import chat_model_path, load_chat_model

        wanted = str(Path(path).expanduser()) if path else ""
        if wanted and Path(wanted).resolve() == chat_model_path(self.settings).resolve():
            wanted = ""
        with self._chat_model_lock:
            if self._chat_model is not None and self._chat_model_path != wanted:
                old, self._chat_model = self._chat_model, None
                if hasattr(old, "close"):
                    old.close()
            if self._chat_model is None:
                self._chat_model = load_chat_model(replace(self.settings, chat_model=wanted) if wanted
                                                   else self.settings)
                self._chat_model_path = wanted
            return self._chat_model

    def any_chat_model(self) -> ChatModel:
        """The chat model held now (a chat's own too), else the settings' one: for background work
        (summaries, notes), which must not make the models take turns in memory."""
        with self._chat_model_lock:
            held = self._chat_model
        return held if held is not None else self.chat_model()

    @cached_property
    def outbox(self) -> Outbox:
        """Background work; call ``outbox.start()`` to run it on a thread (the window, ``engram chat``)."""
        options = self.memory_options
        return Outbox(self.db, {
            ARCHIVE_JOB: Archiver(self.sessions, self.store, options.storage_scope),
            EMBED_JOB: lambda payload: self.store.embed_pending(),
            REINDEX_JOB: lambda payload: self.store.words.reindex(self.db),
            SUMMARY_JOB: Summariser(self.sessions, self.store, self.any_chat_model, options.summary_threshold,
                                    options.summary_keep),
            DISTILL_JOB: Distiller(self.sessions, self.store, self.any_chat_model, options, self._note_profile,
                                   LEARNED_CATEGORIES),
            EMPTY_LOG_JOB: empty_log_job(self.db),
            CONVERT_JOB: lambda payload: self.documents.run(payload),
        })

    def context_providers(self) -> list[ContextProvider]:
        """What a turn's context is built from; window and summary come before recall, which skips
        what they already hold."""
        options = self.memory_options
        return [PreferencesProvider(self.preferences), ProfileProvider(self.profile_learning, self.settings.profile_tokens),
                SummaryProvider(self.store),
                WindowProvider(self.sessions, options.window_messages,
                               lambda session_id: summarised_through(self.store, session_id)),
                RecallProvider(self.store, options, TriggerWords.of(self.settings.recall_triggers_en,
                                                                    self.settings.recall_triggers_zh)),
                FileMemoryProvider(self.files, options=options)]

    @cached_property
    def files(self) -> FileIndex:
        """The session folders' index; the window keeps it current with
        ``engram.core.files.watcher.FolderWatcher(engram.files).start()``."""
        index = FileIndex(self.store, self.data_dir / SESSIONS_DIR)
        self.__dict__["files"] = index           # documents (below) reads it while it is made
        _ = self.documents
        return index

    @cached_property
    def documents(self) -> Documents:
        """Documents attached to chats (PDF, DOCX, ...), converted to markdown by the outbox; made
        with ``files``, so that a document the watcher finds in a folder is converted too."""
        return Documents(self.files, lambda payload: self.outbox.enqueue(CONVERT_JOB, payload, unique=True),
                         lambda: self.settings.document_max_mb, self.embed_later)

    @cached_property
    def turn_engine(self) -> TurnEngine:
        return TurnEngine(self.sessions, self.turns, self.store, self.outbox, self.chat_model,
                          self.context_providers(), self.memory_options,
                          preferred_language=lambda user: str(self.preferences.get(user).get("language", "")),
                          learn=self.profile_learning.from_message)

    def delete_session(self, session_id: str) -> DeletedSession:
        """Forget a session for real: messages, turn records and the memories taken from it. Then,
        its folder of files (which may hold a person's own notes) moves to <data dir>/trash/. When
        it cannot move, the session is deleted all the same and the problem is returned."""
        session = self.sessions.get(session_id)
        folder = self.files.folder(session.folder)
        messages = self.sessions.delete(session_id, lambda s: (self.files.forget(s.folder),
                                                               forget_session(self.store, s.user, s.id)))
        with self.db.transaction() as conn:
            self.store.words.purge(conn, session.user)      # the deleted words leave the index's bytes too
        empty_log(self.db, self.outbox)
        try:
            return DeletedSession(messages, folder.path, self.files.discard(folder.name, self.data_dir / TRASH_DIR))
        except DataDirError as e:
            return DeletedSession(messages, folder.path, problem=e)

    def apply_settings(self, changed: set[str] = frozenset()) -> None:
        """Use changed settings without a restart (the window's Settings): memory options from the
        next turn on; a changed chat model, context size, threads or GPU layers on the model's next
        use (the old model is closed once its current reply ends). A new embedding model (or reranker) is
        loaded before its setting is saved, by ``use_embedding_model`` (``use_rerank_model``); alone, it
        restarts nothing here (the outbox may be busy re-embedding for minutes). Changed embedding GPU
        layers (the embedding model was loaded with them before) reload the reranker, which shares
        them; one that does not load then is named in ``rerank_problem``, the one in use stays."""
        if "sensitive_details" in changed:
            self.store.clean = self.sessions.clean = self.profiles.clean = self._sensitive_mask()
        if "profile_learning" in changed:
            self.profile_learning.mode = self.settings.profile_learning
        if "embedding_gpu_layers" in changed and self.store.reranker is not None:
            try:
                self.use_rerank_model(self.settings.rerank_model)
            except ModelError as e:
                self.rerank_problem = e
        if not changed or changed - EMBEDDING_FIELDS:
            for name in ("memory_options", "turn_engine"):
                self.__dict__.pop(name, None)
            if (old_outbox := self.__dict__.pop("outbox", None)) is not None and old_outbox.running:
                # Its jobs live in the database; a new outbox picks them up with the new options.
                old_outbox.stop()
                self.outbox.start()
        if any(key.startswith("chat_") and key not in ("chat_max_tokens", "chat_tools", "chat_thinking")
               for key in changed):
            with self._chat_model_lock:
                old, self._chat_model, self._chat_model_path = self._chat_model, None, ""
            if old is not None and hasattr(old, "close"):
                old.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Stop the background work after the job in hand, close the models, then the database."""
        if "outbox" in self.__dict__:
            self.outbox.stop()
        if self._chat_model is not None and hasattr(self._chat_model, "close"):
            self._chat_model.close()
        if hasattr(self.embedder, "close"):
            self.embedder.close()
        if hasattr(self.store.reranker, "close"):
            self.store.reranker.close()
        self.db.close()
