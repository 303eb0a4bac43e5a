"""Session file memory: a folder of markdown files per session, indexed as memories of kind
``file``, kept current by a watcher, and offered to the model as tools (MAF FileMemoryProvider)."""

from engram.core.files.folder import SessionFolder
from engram.core.files.catalog import FileStatus
from engram.core.files.index import FileEvent, FileIndex
from engram.core.files.names import INDEX_NAME
from engram.core.files.trash import TRASH_DIR

SESSIONS_DIR = "sessions"

__all__ = ["SESSIONS_DIR", "TRASH_DIR", "INDEX_NAME", "FileEvent", "FileIndex", "FileStatus", "SessionFolder"]
