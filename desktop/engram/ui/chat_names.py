"""How the window names a chat wherever it points at one (a recalled memory, where a memory came
from, the places "Forget everywhere" lists): by its title and the day it began, as the sessions
list shows it, never by its id. The names are learned from the sessions the window lists, so
naming one never reads the disk on the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QDate, QLocale


class ChatNames:
    def __init__(self):
        self._chats: dict[str, tuple[str, str]] = {}     # session id -> (title, created_at)

    def learn(self, sessions) -> None:
        """Remember the titles and first days of these sessions (a listing, or one just made)."""
        self._chats.update({s.id: (s.title, s.created_at) for s in sessions})

    def title(self, session_id: str) -> str:
        return self._chats.get(session_id, ("", ""))[0]

    def __call__(self, session_id: str) -> str:
        """E.g. “Trip planning” (3 Dec 2026); a chat the sessions list no longer has: (deleted)."""
        translate = QCoreApplication.translate
        if session_id not in self._chats:
            return translate("ChatNames", "(deleted)")
        title, created = self._chats[session_id]
        day = QDate.fromString(created[:10], "yyyy-MM-dd")
        # The day as the window's language writes it (the format is translated: 2026年12月3日).
        when = QLocale().toString(day, translate("ChatNames", "d MMM yyyy")) if day.isValid() else ""
        return translate("ChatNames", "“{title}” ({day})").format(
            title=title or translate("ChatNames", "New chat"), day=when)
