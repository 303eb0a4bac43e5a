"""The Qt-free core, in layers; each imports only those below it (import-linter contracts in
pyproject.toml keep it so):

- ``app`` (the facade the window and the command line use), ``doctor``, ``forget``, ``relocate``:
  one data folder's parts put together;
- ``files/``: the session folders' memory files, their index, watcher and tools;
- ``conversation/``: the turn engine, sessions, turn records, context providers, the outbox and
  its background jobs;
- ``memory/``: records, scopes, the store and its search;
- ``models/``: the chat and embedding models, model files, the catalog and downloads;
- ``storage/``: the database and its migrations.

``errors``, ``paths`` and ``settings`` are the vocabulary every layer shares.
"""
