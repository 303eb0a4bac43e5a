"""Errors a person can act on: each says what went wrong and how to fix it."""


class EngramError(Exception):
    """Base class; ``hint`` tells the user what to do about it."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text}\n  fix: {self.hint}" if self.hint else text


class InvalidInput(EngramError):
    """The caller gave something Engram cannot store or use; nothing was changed."""


class NotFound(EngramError):
    """A memory, session or file that does not exist (any more)."""


class DataDirError(EngramError):
    """The data folder cannot be created, written or read."""


class DatabaseError(EngramError):
    """The database file is unusable (not SQLite, corrupt, or from a newer Engram)."""


class ModelError(EngramError):
    """A model file is missing, not a GGUF file, or failed to load."""


class DownloadError(EngramError):
    """A model download failed; what arrived is kept to resume from, unless it was wrong (then deleted)."""
