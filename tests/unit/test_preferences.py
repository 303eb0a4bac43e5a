"""Reply preferences: kept per user, replaced in place, removed; on both backends."""

from __future__ import annotations

import pytest

from engram.core.conversation.preferences import Preferences
from engram.core.errors import InvalidInput

pytestmark = pytest.mark.both_backends


def test_preferences_are_set_replaced_and_unset_per_user(db):
    preferences = Preferences(db)
    preferences.set("ann", "language", "中文")
    preferences.set("ann", "emoji", "no")
    assert preferences.set("ann", "language", "English") == {"emoji": False, "language": "English"}
    assert preferences.get("bob") == {}
    preferences.set("bob", "detail", "brief")
    assert preferences.unset("ann", "emoji") == {"language": "English"}
    assert preferences.get("bob") == {"detail": "brief"}
    assert db.query_one("SELECT count(*) FROM preferences")[0] == 2


def test_a_bad_preference_is_refused_and_changes_nothing(db):
    preferences = Preferences(db)
    preferences.set("ann", "detail", "normal")
    with pytest.raises(InvalidInput):
        preferences.set("ann", "detail", "endless")
    with pytest.raises(InvalidInput):
        preferences.set("ann", "colour", "blue")
    assert preferences.get("ann") == {"detail": "normal"}
