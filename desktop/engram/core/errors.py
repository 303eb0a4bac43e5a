"""Errors a person can act on: each says what went wrong and how to fix it.

The message and the hint may be ``Text`` (engram.core.texts): English in a terminal, translated
in the window.
"""

from __future__ import annotations

from engram.core.texts import Text


class EngramError(Exception):
    """Base class; ``hint`` tells the user what to do about it."""

    def __init__(self, message: str | Text, hint: str | Text = ""):
        super().__init__(str(message))
        self.hint = str(hint)
        self.said = (message, hint)          # as given: the window translates a Text

    @property
    def message(self) -> str:
        """What went wrong without the fix: for places that show the hint apart (the window's
        notices, doctor's checks, a file's problem)."""
        return self.args[0] if self.args else ""

    def __str__(self) -> str:
        return f"{self.message}\n  fix: {self.hint}" if self.hint else self.message

    @staticmethod
    def message_of(error: BaseException) -> str:
        """Any error's message without a fix: an EngramError's ``message``, another's ``str()``
        (a bug or a library's error reaching the window has no hint to leave out)."""
        return error.message if isinstance(error, EngramError) else str(error)


class InvalidInput(EngramError):
    """The caller gave something Engram cannot store or use; nothing was changed."""


class NotFound(EngramError):
    """A memory, session or file that does not exist (any more)."""


class DataDirError(EngramError):
    """The data folder cannot be created, written or read."""


class DiskFull(DataDirError):
    """The disk holding the data is full; ``kept`` says what was stored all the same."""

    def __init__(self, where, kept: str = "nothing was changed"):
        super().__init__(f"the disk holding {where} is full: {kept}", hint="free some space on that disk, then try again")
        self.where = where


class DatabaseError(EngramError):
    """The database file is unusable (not SQLite, corrupt, or from a newer Engram)."""


class ModelError(EngramError):
    """A model file is missing, not a GGUF file, or failed to load."""


class ContextTooLong(ModelError):
    """The message, with what must go with it, does not fit the chat model's context. Shortening
    it helps and trying again does not: the API answers 400 (OpenAI's ``context_length_exceeded``),
    which clients do not retry."""


class DownloadError(EngramError):
    """A model download failed; what arrived is kept to resume from, unless it was wrong (then deleted)."""


class SourceUnreachable(DownloadError):
    """The download source could not be reached at all: another source (a mirror) may be."""
