"""The catalog as it stands on this machine: which models are here, part-downloaded or in use, and
the three things a person does with them: download, use, remove. Shared by ``engram models`` and
the window's Models dialog, so both say the same thing about the same files.

Downloaded models go to the models folder under the catalog's file name; bundled ones stay in
resources/. A model is "installed" only once its file has its final name, which a download gives
it after the checksum matched (``downloads.fetch``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engram.core import paths
from engram.core.models.downloads import Progress, discard_partial, fetch, partial_size
from engram.core.errors import InvalidInput
from engram.core.models.gguf import check_model_file
from engram.core.models.catalog import Catalog, CatalogEntry, load_catalog
from engram.core.models.fit import Fit, Machine, assess

if TYPE_CHECKING:   # models sit below the settings' composition: they read what they are handed
    from engram.core.settings import Settings

SETTING_OF_KIND = {"chat": "chat_model", "embedding": "embedding_model", "reranker": "rerank_model"}


@dataclass(frozen=True)
class ModelStatus:
    entry: CatalogEntry
    path: Path
    installed: bool
    partial: int                  # bytes of a paused or interrupted download
    in_use: bool
    fit: Fit

    def to_json(self) -> dict:
        return {**self.entry.to_json(), "path": str(self.path), "installed": self.installed,
                "partial_bytes": self.partial, "in_use": self.in_use, "fit": self.fit.label,
                "tokens_per_second_estimate": self.fit.tokens_per_second}


class ModelLibrary:
    def __init__(self, settings: Settings, catalog: Catalog | None = None, machine: Machine | None = None,
                 models_dir: Path | None = None):
        self.settings = settings
        self.catalog = catalog or load_catalog(settings.model_catalog)
        self.machine = machine or Machine.this()
        self.folder = paths.models_dir(models_dir)

    @property
    def mirror(self) -> str:
        return self.settings.model_mirror or self.catalog.mirror

    def path(self, entry: CatalogEntry) -> Path:
        return paths.RESOURCES_DIR / entry.bundled if entry.bundled else self.folder / entry.file_name

    def statuses(self) -> list[ModelStatus]:
        fits = assess(self.catalog.entries, self.machine)
        return [self._status(entry, fits[entry.name]) for entry in self.catalog.entries]

    def status(self, name: str) -> ModelStatus:
        return next(s for s in self.statuses() if s.entry.name == self.catalog.get(name).name)

    def _status(self, entry: CatalogEntry, fit: Fit) -> ModelStatus:
        path = self.path(entry)
        return ModelStatus(entry, path, path.is_file(), 0 if entry.bundled else partial_size(path),
                           self._in_use(entry, path), fit)

    def _in_use(self, entry: CatalogEntry, path: Path) -> bool:
        chosen = getattr(self.settings, SETTING_OF_KIND[entry.kind])
        if not chosen:
            return entry.kind == "embedding" and path == paths.BUNDLED_EMBEDDING_MODEL
        return Path(chosen).expanduser().resolve() == path.resolve()

    def download(self, name: str, *, stop: threading.Event | None = None, allow_unverified: bool = False,
                 on_progress: Callable[[Progress], None] | None = None, client=None) -> Path:
        """Fetch a catalog model into the models folder (resuming a partial one); its checksum is
        verified before it takes its name. Returns its path."""
        entry = self.catalog.get(name)
        target = self.path(entry)
        if entry.bundled:
            raise InvalidInput(f"{entry.name} ships with Engram and is not downloaded"
                               + ("" if target.is_file() else f"; this build lacks its file {target}"))
        if target.is_file():
            return target
        fetch(entry.source_url(self.mirror), target, sha256=entry.sha256, size=entry.size,
              allow_unverified=allow_unverified, stop=stop, on_progress=on_progress, client=client)
        return target

    def setting_for(self, name: str) -> tuple[str, str]:
        """The setting that makes Engram use this model, and its value."""
        entry = self.catalog.get(name)
        path = self.path(entry)
        if not path.is_file():
            raise InvalidInput(f"{entry.name} is not on this machine" + ("" if entry.bundled else " yet"),
                               hint="" if entry.bundled else f"download it first: engram models download {entry.name}")
        check_model_file(path, entry.kind)
        value = "" if path == paths.BUNDLED_EMBEDDING_MODEL else str(path)   # empty: the default, wherever it is
        return SETTING_OF_KIND[entry.kind], value

    def use(self, name: str) -> str:
        """Choose the model in the settings (saved); returns the setting's name. The window loads it."""
        key, value = self.setting_for(name)
        setattr(self.settings, key, value)
        self.settings.save()
        return key

    def remove(self, name: str) -> list[str]:
        """Delete a downloaded model (and any partial download). A model in use is let go first: the
        setting goes back to its default. Returns what was done, for the person to read."""
        entry = self.catalog.get(name)
        if entry.bundled:
            raise InvalidInput(f"{entry.name} ships with Engram and cannot be removed")
        path = self.path(entry)
        done = []
        if self._in_use(entry, path):
            setattr(self.settings, SETTING_OF_KIND[entry.kind], "")
            self.settings.save()
            done.append(f"{SETTING_OF_KIND[entry.kind]} is back to the default")
        if partial_size(path):
            done.append("deleted the partial download")
        discard_partial(path)
        if path.is_file():
            path.unlink()
            done.append(f"deleted {path}")
        if not done:
            raise InvalidInput(f"{entry.name} is not on this machine; nothing to remove")
        return done
