"""Where catalog models come from: the Hugging Face hub, a mirror of it, ModelScope, or a base URL
of one's own.

Many of Engram's users are in China, where the hub is often out of reach and hf-mirror.com (the
hub's own paths) or ModelScope (its own paths, and only for the models published there) is the
normal route. Every source is equally safe: the catalog pins each file's sha256 and size, so a
source that serves another file is refused, never used.

Layouts (``<entry url>`` is the catalog's ``org/repo/resolve/<commit>/file``):

- huggingface: ``<catalog mirror>/<entry url>`` (https://huggingface.co)
- hf-mirror:   ``https://hf-mirror.com/<entry url>``
- modelscope:  ``https://modelscope.cn/models/<entry modelscope>``, the entry's own path there
  (``org/repo/resolve/master/file``: ModelScope's repositories have their own commits, so the
  branch is named and the sha256 pins the file)
- custom:      ``<model_mirror>/<entry url>``: a mirror with the hub's paths

A catalog may name other bases for the three named sources (``"sources"``): a catalog of one's own,
or a test's loopback server.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urljoin

from engram.core.errors import InvalidInput
from engram.core.models.catalog import CUSTOM, HF_MIRROR, HUGGING_FACE, MODELSCOPE, SOURCES, Catalog, CatalogEntry
from engram.core.texts import QT_TRANSLATE_NOOP, Text

BASES = {HUGGING_FACE: "https://huggingface.co", HF_MIRROR: "https://hf-mirror.com",
         MODELSCOPE: "https://modelscope.cn/models"}
NAMES = {HUGGING_FACE: "Hugging Face", HF_MIRROR: "hf-mirror.com", MODELSCOPE: "ModelScope"}
# Offered when the hub cannot be reached from a Chinese window, in this order.
CHINA = (HF_MIRROR, MODELSCOPE)


def chosen(source_setting: str, mirror_setting: str) -> str:
    """The source in use: the ``model_source`` setting; unset, the custom base when ``model_mirror``
    is set (as before sources had names), else Hugging Face."""
    if source_setting in SOURCES:
        return source_setting
    return CUSTOM if mirror_setting else HUGGING_FACE


def base(source: str, catalog: Catalog, mirror_setting: str = "") -> str:
    """The base URL of a source (for a custom one, ``model_mirror``)."""
    if source == CUSTOM:
        if not mirror_setting:
            raise InvalidInput(Text(QT_TRANSLATE_NOOP("Core", "no base URL is set for the custom download source")),
                               hint=Text(QT_TRANSLATE_NOOP("Core", "type one in Models › Download from, or choose"
                                                                   " another source")))
        return mirror_setting
    if source == HUGGING_FACE:
        return catalog.mirror or BASES[HUGGING_FACE]
    return catalog.sources.get(source) or BASES[source]


def offers(entry: CatalogEntry, source: str) -> bool:
    """Whether the source has this model (ModelScope only where the catalog names its path)."""
    return bool(entry.url) and (source != MODELSCOPE or bool(entry.modelscope))


def url(entry: CatalogEntry, source: str, catalog: Catalog, mirror_setting: str = "") -> str:
    """Where to download the entry from this source; InvalidInput when the source lacks it."""
    if not offers(entry, source):
        raise InvalidInput(Text(QT_TRANSLATE_NOOP("Core", "{model} is not on ModelScope"), model=entry.title),
                           hint=Text(QT_TRANSLATE_NOOP("Core", "download it from hf-mirror.com or Hugging Face"
                                                               " (Models › Download from), or choose a Qwen model")))
    relative = entry.modelscope if source == MODELSCOPE else entry.url
    return join(base(source, catalog, mirror_setting), relative)


def join(base_url: str, relative: str) -> str:
    """``relative`` under ``base_url``; an absolute URL stays as it is."""
    if re.match(r"[a-z][a-z0-9+.-]*://", relative, re.IGNORECASE):
        return relative
    return urljoin(base_url.rstrip("/") + "/", quote(relative.lstrip("/"), safe="/?=&%"))
