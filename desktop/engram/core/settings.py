"""The person's settings, kept as JSON in the config folder.

A damaged settings file is moved aside (never overwritten in place) and defaults are used, so a
bad edit by hand cannot stop Engram from starting; ``problem`` says what happened.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from engram.core import paths
from engram.core.atomic import write_text_atomic
from engram.core.records import now_iso

SETTINGS_FILE = "settings.json"
DEFAULT_PROFILE = "default"


@dataclass
class Settings:
    profile: str = DEFAULT_PROFILE          # the desktop's own user; memories never cross profiles
    data_dir: str = ""                      # empty: platformdirs (or ENGRAM_DATA_DIR)
    embedding_model: str = ""               # empty: the bundled all-MiniLM-L6-v2
    chat_model: str = ""                    # empty: the bundled tiny demo model
    problem: str = field(default="", metadata={"transient": True})
    path: str = field(default="", metadata={"transient": True})

    @classmethod
    def load(cls, config_dir: str | os.PathLike | None = None) -> "Settings":
        path = paths.config_dir(config_dir) / SETTINGS_FILE
        settings = cls(path=str(path))
        if not path.exists():
            return settings
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            aside = path.with_name(f"{path.name}.broken-{now_iso().replace(':', '')}")
            path.replace(aside)
            settings.problem = f"settings file was unreadable ({e}); kept as {aside.name}, using defaults"
            return settings
        known = {f.name: f for f in fields(cls) if not f.metadata.get("transient")}
        for key, value in data.items():
            if key in known and isinstance(value, type(getattr(settings, key))):
                setattr(settings, key, value)
        return settings

    def save(self) -> None:
        data = {k: v for k, v in asdict(self).items()
                if not next(f for f in fields(self) if f.name == k).metadata.get("transient")}
        write_text_atomic(Path(self.path), json.dumps(data, indent=2, ensure_ascii=False) + "\n")
