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
from engram.core.models import demo, measured, sources
from engram.core.models.downloads import Progress, discard_partial, fetch, partial_size
from engram.core.errors import InvalidInput, ModelError, NotFound
from engram.core.models.gguf import check_model_file
from engram.core.models.catalog import Catalog, CatalogEntry, load_catalog
from engram.core.models.fit import Fit, Machine, assess

if TYPE_CHECKING:   # models sit below the settings' composition: they read what they are handed
    from engram.core.settings import Settings

SETTING_OF_KIND = {"chat": "chat_model", "embedding": "embedding_model", "reranker": "rerank_model"}


def config_folder(settings: Settings) -> Path:
    """Where what was measured is kept: beside the settings (the models folder holds only models)."""
    return Path(settings.path).parent if settings.path else paths.config_dir()


def note_reply(settings: Settings, tokens: int, tokens_per_second: float, model_file: str = "") -> None:
    """A reply of the chat model in use (``model_file``: a chat's own) came at this speed: the
    catalog tells it from now on."""
    chosen = model_file or settings.chat_model
    model = Path(chosen).name if chosen else demo.FILE_NAME
    measured.note_reply(config_folder(settings), model, tokens, tokens_per_second)


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
                "tokens_per_second_estimate": self.fit.tokens_per_second, "tokens_per_second_measured": self.fit.measured,
                "tokens_per_second_basis": str(self.fit.basis), "speaks_language": self.fit.speaks}


class ModelLibrary:
    def __init__(self, settings: Settings, catalog: Catalog | None = None, machine: Machine | None = None,
                 models_dir: Path | None = None, language: str = "en"):
        self.settings = settings
        self.catalog = catalog or load_catalog(settings.model_catalog)
        self.machine = machine or Machine.this(gpu=settings.chat_gpu_layers != 0)
        self.folder = paths.models_dir(models_dir)
        self.language = language          # the person's, as fit.language_of gives it: what is recommended

    @property
    def source(self) -> str:
        """Where downloads come from now (sources.SOURCES)."""
        return sources.chosen(self.settings.model_source, self.settings.model_mirror)

    @property
    def mirror(self) -> str:
        """The base URL of the source in use."""
        return sources.base(self.source, self.catalog, self.settings.model_mirror)

    def url(self, entry: CatalogEntry) -> str:
        """Where the entry downloads from the source in use; InvalidInput when that source lacks it."""
        return sources.url(entry, self.source, self.catalog, self.settings.model_mirror)

    def measurements(self) -> measured.Measured:
        """What this machine has shown: speeds of models used here, the last download rate."""
        return measured.read(self.config_folder)

    @property
    def config_folder(self) -> Path:
        return config_folder(self.settings)

    def path(self, entry: CatalogEntry) -> Path:
        return paths.RESOURCES_DIR / entry.bundled if entry.bundled else self.folder / entry.file_name

    def statuses(self) -> list[ModelStatus]:
        fits = assess(self.catalog.entries, self.machine, self.language, self.measurements().tokens_per_second,
                      self.settings.chat_gpu_layers)
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
        url = self.url(entry)
        last = [0.0]

        def progressed(progress: Progress) -> None:
            last[0] = progress.speed or last[0]
            if on_progress is not None:
                on_progress(progress)

        try:
            fetch(url, target, sha256=entry.sha256, size=entry.size, allow_unverified=allow_unverified, stop=stop,
                  on_progress=progressed, client=client)
        finally:
            measured.note_download(self.config_folder, last[0])     # the next download's time is told at this rate
        return target

    def chat_models(self) -> list[tuple[str, Path]]:
        """The chat models a chat can be given now, as (name, file): the demo model, the catalog's
        downloaded ones and a file of one's own that the settings name; each file once."""
        found = [(demo.NAME, demo_path) for demo_path in _demo_model()]
        found += [(entry.title, self.path(entry)) for entry in self.catalog.entries
                  if entry.kind == "chat" and self.path(entry).is_file()]
        if self.settings.chat_model:
            own = Path(self.settings.chat_model).expanduser()
            found.append((self.name_of(own), own))
        unique: dict[Path, tuple[str, Path]] = {}
        for name, path in found:
            unique.setdefault(path.resolve(), (name, path))
        return list(unique.values())

    def name_of(self, path: str | Path) -> str:
        """What a person calls the chat model in ``path`` (the picker in a chat's header): the demo
        model's name, the catalog's title for a catalog model, else the file's name without ".gguf"."""
        wanted = Path(path).expanduser()
        if any(wanted.resolve() == demo_path.resolve() for demo_path in _demo_model()):
            return demo.NAME
        entry = self.catalog.for_file(wanted)
        return entry.title if entry is not None else wanted.stem

    def chat_model_file(self, name: str) -> Path:
        """The GGUF file that ``name`` gives a chat as its own model: a file's path, the name of a
        chat model on this machine (a downloaded catalog one, the demo, or "demo"), as an absolute
        path. A name for nothing here is NotFound; a catalog model not downloaded, or not a chat
        model, is InvalidInput saying so."""
        if not name.strip():
            raise InvalidInput("no model was named", hint="give the path of a .gguf file or a model's name")
        try:
            path = Path(name).expanduser()
        except RuntimeError:        # ~someone, who has no home here
            path = Path(name)
        if path.exists():
            return check_model_file(path, "chat").resolve()
        if len(path.parts) > 1 or path.suffix.lower() == ".gguf":
            raise NotFound(f"there is no model file {path}", hint="give the path of an existing .gguf file")
        wanted = name.strip().lower()
        if wanted == "demo":
            return demo.demo_model_path().resolve()
        for listed, file in self.chat_models():
            if listed.lower() == wanted:
                return file.resolve()
        entry = next((entry for entry in self.catalog.entries if entry.name == wanted), None)
        if entry is not None:
            if entry.kind != "chat":
                raise InvalidInput(f"{entry.name} is a model of kind {entry.kind}, not a chat model",
                                   hint="engram models list shows the chat models")
            return Path(self.setting_for(entry.name)[1]).resolve()    # not downloaded: says how to get it
        raise NotFound(f"there is no model file {name!r} and no chat model named so on this machine",
                       hint="give the path of a .gguf file, the name of a downloaded model (engram models list)"
                            " or demo")

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


def _demo_model() -> list[Path]:
    """The demo model's file, where this build has it (else none: the other models still count)."""
    try:
        return [demo.demo_model_path()]
    except ModelError:
        return []
