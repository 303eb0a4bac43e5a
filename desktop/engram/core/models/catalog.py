"""The curated list of models a person can pick from instead of hunting for GGUF files elsewhere.

It is data (``resources/model_catalog.json``), so a new model needs no new code, and it can be
replaced by a file of one's own (setting ``model_catalog``, or ``ENGRAM_MODEL_CATALOG``): someone
behind a mirror with other files, or a test serving files from loopback. Download URLs are
relative to the download source (``sources.py``: the hub, hf-mirror.com, a base URL of one's own;
ModelScope by the entry's own ``modelscope`` path) because many people reach a mirror and not the
original host. Checksums the catalog does not know are null,
never guessed: see ``downloads.expected_sha256`` for what is checked instead. The shipped entries
are pinned: a URL names the hub revision (``/resolve/<commit>/``) whose file has the stated size
and sha256, so a file changed upstream is a clear mismatch, not a silently different model.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from engram.core import paths
from engram.core.errors import InvalidInput, NotFound

CATALOG_FILE = "model_catalog.json"
CATALOG_ENV = "ENGRAM_MODEL_CATALOG"
KINDS = ("chat", "embedding", "reranker")
FORMAT = 1
SHA256 = re.compile(r"[0-9a-f]{64}")
NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
# How a model family writes a tool call (conversation/tool_calls.py reads every one of them):
# <tool_call> (Hermes, Qwen, SmolLM3), Llama 3.x JSON, Mistral [TOOL_CALLS], Phi-4-mini
# <|tool_call|>, and JSON in a code fence (Gemma, which has no tool format of its own).
TOOL_FORMATS = ("hermes", "llama3", "mistral", "phi4", "json")
# The sources a download may come from (sources.py says how each is reached); a catalog may name
# other bases for them ("sources").
HUGGING_FACE, HF_MIRROR, MODELSCOPE, CUSTOM = "huggingface", "hf-mirror", "modelscope", "custom"
SOURCES = (HUGGING_FACE, HF_MIRROR, MODELSCOPE, CUSTOM)


@dataclass(frozen=True)
class CatalogEntry:
    name: str                    # what the person types: ``engram models download qwen3-4b``
    title: str
    family: str
    kind: str                    # chat | embedding | reranker
    parameters_b: float          # billions of parameters
    quantisation: str
    licence: str
    languages: tuple[str, ...]
    context_length: int
    ram_gb: float                # memory needed to run it with 4,096 tokens of context (an estimate)
    tools: bool                  # can call tools (search_memory, file tools): chat_tools "auto" gives them
    tool_format: str = "hermes"  # one of TOOL_FORMATS
    size: int | None = None      # bytes; exact when sha256 is known (a download of another size is refused)
    sha256: str | None = None    # None: not known to the catalog
    url: str = ""                # relative to the mirror, or absolute
    bundled: str = ""            # a file under resources/ (shipped, never downloaded)
    chat_template: str = ""
    note: str = ""
    modelscope: str = ""         # its path under ModelScope's base, where it is published there
    translations: tuple[tuple[str, str, str], ...] = ()   # (language, field, text): the notes in other languages

    def said(self, field: str, language: str) -> str:
        """A note (chat_template, note) in ``language`` ("zh_CN"), else in English."""
        found = [text for lang, name, text in self.translations if name == field and language.startswith(lang)]
        return found[0] if found else getattr(self, field)

    @property
    def file_name(self) -> str:
        return Path(self.bundled or self.url.split("?", 1)[0]).name

    def to_json(self) -> dict:
        return {"name": self.name, "title": self.title, "family": self.family, "kind": self.kind,
                "parameters_b": self.parameters_b, "quantisation": self.quantisation, "licence": self.licence,
                "languages": list(self.languages), "context_length": self.context_length, "ram_gb": self.ram_gb,
                "tools": self.tools, "tool_format": self.tool_format, "size": self.size, "sha256": self.sha256, "url": self.url,
                "bundled": self.bundled, "chat_template": self.chat_template, "note": self.note,
                "modelscope": self.modelscope}


@dataclass(frozen=True)
class Catalog:
    entries: tuple[CatalogEntry, ...]
    mirror: str                  # the default download base (Hugging Face), from the file
    path: Path                   # where it was read from
    sources: dict[str, str] = field(default_factory=dict)   # other bases for named sources (sources.py)

    def get(self, name: str) -> CatalogEntry:
        for entry in self.entries:
            if entry.name == name.strip().lower():
                return entry
        raise NotFound(f"no model named {name!r} in the catalog ({self.path})",
                       hint="engram models list shows the names: " + ", ".join(e.name for e in self.entries))

    def of_kind(self, kind: str) -> list[CatalogEntry]:
        return [e for e in self.entries if e.kind == kind]

    def for_file(self, path: str | os.PathLike) -> CatalogEntry | None:
        """The entry a model file was downloaded from (downloads keep the entry's file name)."""
        name = Path(path).name
        return next((e for e in self.entries if e.url and e.file_name == name), None)


def catalog_path(setting: str = "") -> Path:
    """The catalog in use: the ``model_catalog`` setting, else ENGRAM_MODEL_CATALOG, else the shipped one
    (the same order as the data folder's: a setting beats the environment)."""
    chosen = setting or os.environ.get(CATALOG_ENV, "")
    return Path(chosen).expanduser() if chosen else paths.RESOURCES_DIR / CATALOG_FILE


def load_catalog(setting: str = "") -> Catalog:
    """Read and check the catalog; InvalidInput names the file and the entry that is wrong."""
    path = catalog_path(setting)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InvalidInput(f"cannot read the model catalog {path}: {e.strerror or e}",
                           hint=f"fix the setting model_catalog or {CATALOG_ENV}, or unset it for the shipped catalog"
                           ) from e
    except ValueError as e:
        raise InvalidInput(f"the model catalog {path} is not valid JSON: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise InvalidInput(f"the model catalog {path} has no list of 'models'")
    if data.get("format", FORMAT) != FORMAT:
        raise InvalidInput(f"the model catalog {path} is in format {data.get('format')}; this Engram reads {FORMAT}")
    entries, names, files = [], set(), set()
    for number, raw in enumerate(data["models"], 1):
        entry = _entry(raw, f"{path}, model {number}")
        if entry.name in names:
            raise InvalidInput(f"{path}: the name {entry.name!r} is used twice")
        if entry.url and entry.file_name in files:          # two downloads would land in one file
            raise InvalidInput(f"{path}: the file name {entry.file_name!r} is used twice")
        names.add(entry.name)
        files.add(entry.file_name if entry.url else "")
        entries.append(entry)
    sources = data.get("sources", {})
    if not isinstance(sources, dict) or not all(k in SOURCES and isinstance(v, str) for k, v in sources.items()):
        raise InvalidInput(f"{path}: 'sources' must map some of {', '.join(SOURCES)} to base URLs")
    return Catalog(tuple(entries), str(data.get("mirror") or ""), path, dict(sources))


def _entry(raw, where: str) -> CatalogEntry:
    if not isinstance(raw, dict):
        raise InvalidInput(f"{where} is not an object")

    def field(key, kinds, default=None, required=True):
        value = raw.get(key, default)
        if value is None and not required:
            return default
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise InvalidInput(f"{where} ({raw.get('name', '?')}): '{key}' is missing or not "
                               f"{' or '.join(k.__name__ for k in kinds)}")
        return value

    name = field("name", (str,))
    if not NAME.fullmatch(name):
        raise InvalidInput(f"{where}: the name {name!r} must be lower case letters, digits, '.', '-' or '_'")
    kind = field("kind", (str,))
    if kind not in KINDS:
        raise InvalidInput(f"{where} ({name}): kind {kind!r} is not one of {', '.join(KINDS)}")
    sha256 = field("sha256", (str,), required=False)
    if sha256 is not None and not SHA256.fullmatch(sha256.lower()):
        raise InvalidInput(f"{where} ({name}): sha256 must be 64 hex digits, or null when not known")
    url, bundled = field("url", (str,), "", False), field("bundled", (str,), "", False)
    if bool(url) == bool(bundled):
        raise InvalidInput(f"{where} ({name}): give either 'url' (downloaded) or 'bundled' (shipped), not both")
    if not Path(bundled or url.split("?", 1)[0]).name.endswith(".gguf"):
        raise InvalidInput(f"{where} ({name}): the file must be a .gguf")
    languages = field("languages", (list,))
    tool_format = field("tool_format", (str,), "hermes", False)
    translations = field("translations", (dict,), {}, False)
    if not all(isinstance(texts, dict) and all(isinstance(t, str) for t in texts.values())
               for texts in translations.values()):
        raise InvalidInput(f"{where} ({name}): 'translations' maps a language to {{field: text}}")
    if tool_format not in TOOL_FORMATS:
        raise InvalidInput(f"{where} ({name}): tool_format {tool_format!r} is not one of {', '.join(TOOL_FORMATS)}")
    return CatalogEntry(
        name=name, title=field("title", (str,), name, False), family=field("family", (str,), "", False), kind=kind,
        parameters_b=float(field("parameters_b", (int, float))), quantisation=field("quantisation", (str,), "", False),
        licence=field("licence", (str,)), languages=tuple(str(x) for x in languages),
        context_length=field("context_length", (int,)), ram_gb=float(field("ram_gb", (int, float))),
        tools=field("tools", (bool,), False, False), tool_format=tool_format, size=field("size", (int,), None, False),
        sha256=sha256.lower() if sha256 else None, url=url, bundled=bundled,
        chat_template=field("chat_template", (str,), "", False), note=field("note", (str,), "", False),
        modelscope=field("modelscope", (str,), "", False),
        translations=tuple((lang, key, text) for lang, texts in translations.items() for key, text in texts.items()))
