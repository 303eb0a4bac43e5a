"""Where Engram keeps things: data, configuration and models, each overridable.

Precedence for each folder: an explicit argument (``--data-dir``), then the environment
(``ENGRAM_DATA_DIR``, ``ENGRAM_CONFIG_DIR``, ``ENGRAM_MODELS_DIR``), then platformdirs. The data
itself may live on a PostgreSQL server instead (``database_url``); session files stay in the folder.
The models folder is separate from the data folder so that moving one's memories does not
drag gigabytes of model files along.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "Engram"
DATABASE_FILE = "engram.db"
# In a source checkout resources/ sits at the repository root; in a PyInstaller bundle, in _MEIPASS.
RESOURCES_DIR = (Path(getattr(sys, "_MEIPASS", "")) / "resources" if getattr(sys, "frozen", False)
                 else Path(__file__).resolve().parents[3] / "resources")
# The default embedding model: multilingual (Chinese and English alike); resources/models/README.md
# says how it was made and measured. The English-only MiniLM stays bundled, to be chosen in Settings.
BUNDLED_EMBEDDING_MODEL = RESOURCES_DIR / "models" / "multilingual-e5-small.Q4_0.gguf"
MINILM_EMBEDDING_MODEL = RESOURCES_DIR / "models" / "all-MiniLM-L6-v2.Q8_0.gguf"


def _resolve(explicit: str | os.PathLike | None, env: str, default: Path) -> Path:
    chosen = explicit or os.environ.get(env) or default
    return Path(chosen).expanduser().resolve()


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    return _resolve(explicit, "ENGRAM_DATA_DIR", platformdirs.user_data_path(APP_NAME, appauthor=False))


def database_url(explicit: str | None = None, setting: str = "") -> str:
    """The PostgreSQL server to keep the data on: ``--database-url``, then ``ENGRAM_DATABASE_URL``,
    then the ``database_url`` setting. Empty: the SQLite file in the data folder."""
    return explicit or os.environ.get("ENGRAM_DATABASE_URL") or setting


def config_dir(explicit: str | os.PathLike | None = None) -> Path:
    return _resolve(explicit, "ENGRAM_CONFIG_DIR", platformdirs.user_config_path(APP_NAME, appauthor=False))


def models_dir(explicit: str | os.PathLike | None = None) -> Path:
    default = platformdirs.user_data_path(APP_NAME, appauthor=False) / "models"
    return _resolve(explicit, "ENGRAM_MODELS_DIR", default)
