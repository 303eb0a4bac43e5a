"""The Qt-free core, in layers; each imports only those below it (import-linter contracts in
pyproject.toml keep it so):

- ``app`` (the facade the window and the command line use), ``doctor``, ``forget``: one data
  folder's parts put together; ``porting/``: imports, exports and moving the store to another database;
- ``files/``: the session folders' memory files, their index, watcher and tools; ``profile/``: what
  matters about the person, always in context;
- ``conversation/``: the turn engine, sessions, turn records, context providers, the outbox and
  its background jobs;
- ``memory/``: records, scopes, the store and its search;
- ``models/``: the chat and embedding models, model files, the catalog and downloads;
- ``storage/``: the database and its migrations, and moving the data folder.

``errors``, ``paths``, ``settings`` and ``texts`` are the vocabulary every layer shares.
"""
