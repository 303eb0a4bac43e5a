"""A query (the person waits, the chat model is idle) is embedded with up to two threads, background
documents with half the cores: the bundled model's context switches between them, and the vectors
do not depend on it."""

import os

import pytest

from engram.core.models.embeddings import GGUFEmbedder
from engram.core.paths import BUNDLED_EMBEDDING_MODEL

pytestmark = pytest.mark.real_model


def test_a_query_takes_two_threads_on_two_cores_and_documents_one(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    try:
        assert (embedder.threads, embedder.query_threads) == (1, 2)
        switched: list[int] = []
        set_n_threads = embedder._llm._ctx.set_n_threads
        monkeypatch.setattr(embedder._llm._ctx, "set_n_threads",
                            lambda n, batch: (switched.append(n), set_n_threads(n, batch)))
        embedder.embed(["我对花生过敏 (threads)"])
        as_query = embedder.embed_query("我对花生过敏 (threads)")
        embedder.embed(["我对花生过敏 (threads) again"])
        assert switched == [2, 1]                     # the query's two threads, then back to one
    finally:
        embedder.close()
    one_thread = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL, n_threads=1)
    try:
        assert float(as_query @ one_thread.embed_query("我对花生过敏 (threads)")) > 0.9999
    finally:
        one_thread.close()


def test_a_query_asked_while_a_document_is_embedded_waits_for_one_group_only():
    """A book's chunks go to the model a group at a time, so a query asked meanwhile is answered
    before the book is done (before: after all of it, a minute on busy cores)."""
    import threading
    import time

    embedder = GGUFEmbedder(BUNDLED_EMBEDDING_MODEL)
    try:
        chunks = [f"chapter {n}: the night train leaves Vienna at ten and reaches Venice at dawn" * 4
                  for n in range(16 * embedder.GROUP)]
        book = threading.Thread(target=embedder.embed, args=(chunks,))
        book.start()
        while not embedder._recent:            # the first group is done
            time.sleep(0.005)
        embedder.embed_query("when does the train leave?")
        assert book.is_alive() and len(embedder._recent) < len(chunks)
        book.join()
    finally:
        embedder.close()
