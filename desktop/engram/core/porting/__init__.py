"""Arriving with one's history and leaving with everything: imports of other assistants' exports
(ChatGPT, Claude, a folder of markdown, Engram's own JSON) and the export of all a person has.

Each format module turns a file into ``Conversation`` items (``conversation.py``); ``importer.py``
stores them as sessions whose messages the outbox archives into memory; ``export.py`` writes a
person's sessions, memories and preferences as one JSON file or a folder of markdown.
``moving.py`` carries the whole store to another database (SQLite to a PostgreSQL server, or back).
"""
