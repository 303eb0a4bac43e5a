"""Evaluated prompt prefixes kept on disk, so a fresh start or a new chat does not read them again.

Every turn begins with the same stable text (system prompt, preferences, file instructions and
index, tool descriptions): about a thousand tokens that a small CPU needs seconds to evaluate.
After the first evaluation, llama.cpp's state of that prefix (the KV cells of sequence 0) is kept
as a file named by a hash of the model file's identity, the llama-cpp-python version and the exact
prefix tokens; any later process that starts a prompt with the same tokens loads it instead.

A file holds a header (what it was made from, the payload's sha256) and the payload. One that is
damaged, cut short, or made for something else is ignored with a warning in the log and removed;
the prefix is then evaluated as if there were no file. The folder is kept under ``limit`` bytes
by removing the files used longest ago.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import struct
from array import array
from pathlib import Path

import platformdirs

from engram.core.storage.atomic import write_bytes_atomic
from engram.core.paths import APP_NAME

log = logging.getLogger(__name__)

MAGIC = b"ENGRAMKV"
FORMAT = 1
SUFFIX = ".kvstate"
DEFAULT_LIMIT = 1 << 30               # 1 GiB: a 1,000-token prefix takes 20 MB (135M) to 130 MB (8B)
MIN_TOKENS = 64                       # shorter prefixes evaluate faster than their file loads


def default_folder() -> Path:
    """The user's cache folder (ENGRAM_CACHE_DIR overrides): these files can always be made again."""
    base = os.environ.get("ENGRAM_CACHE_DIR") or platformdirs.user_cache_path(APP_NAME, appauthor=False)
    return Path(base).expanduser() / "prompt-states"


class PromptStates:
    """The saved prefixes of one model file, in ``folder``."""

    def __init__(self, folder: str | os.PathLike, model_path: Path, limit: int = DEFAULT_LIMIT):
        import llama_cpp

        self.folder = Path(folder)
        self.limit = limit
        stat = model_path.stat()
        self.made_from = {"model": str(model_path.resolve()), "model_bytes": stat.st_size,
                          "model_mtime_ns": stat.st_mtime_ns, "llama_cpp_python": llama_cpp.__version__,
                          "format": FORMAT}

    def path(self, prefix: list[int]) -> Path:
        digest = hashlib.sha256(json.dumps(self._describe(prefix), sort_keys=True).encode())
        return self.folder / f"{digest.hexdigest()[:40]}{SUFFIX}"

    def _describe(self, prefix: list[int]) -> dict:
        """What a state is made from; a file is used only when its header says exactly this."""
        return self.made_from | {"tokens": len(prefix),
                                 "prefix_sha256": hashlib.sha256(array("i", prefix).tobytes()).hexdigest()}

    def restore(self, llm, prefix: list[int]) -> bool:
        """Load the saved state of ``prefix`` into ``llm`` (a llama_cpp.Llama) as its sequence 0.
        False when there is no usable file: ``llm`` then holds what it held before, or nothing
        when llama.cpp refused the file."""
        import llama_cpp

        path = self.path(prefix)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return False
        except OSError as e:
            log.warning("prompt state %s could not be read (%s); evaluating the prompt instead", path, e)
            return False
        payload, problem = self._payload(data, prefix)
        if problem:
            self._discard(path, problem)
            return False
        llm.reset()
        buffer = (ctypes.c_uint8 * len(payload)).from_buffer_copy(payload)
        if llama_cpp.llama_state_seq_set_data(llm.ctx, buffer, len(payload), 0) != len(payload):
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            self._discard(path, "llama.cpp refused it")
            return False
        llm.input_ids[:len(prefix)] = prefix
        llm.n_tokens = len(prefix)
        llm._requires_eval = True       # the logits of the last token are not part of the state
        with contextlib.suppress(OSError):
            os.utime(path)               # recently used: trimmed last
        return True

    @staticmethod
    def capture(llm) -> bytes:
        """A copy of ``llm``'s sequence 0 now (a memory copy: cheap next to writing it)."""
        import llama_cpp

        size = llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(llm.ctx, buffer, size, 0)
        return ctypes.string_at(buffer, written)

    def save(self, prefix: list[int], payload: bytes) -> None:
        """Keep ``payload`` (from ``capture``) as the state of ``prefix``; a full disk or a
        read-only folder costs only the speed-up."""
        header = json.dumps(self._describe(prefix) | {"payload_bytes": len(payload),
                                                      "payload_sha256": hashlib.sha256(payload).hexdigest()}).encode()
        try:
            write_bytes_atomic(self.path(prefix), MAGIC + struct.pack("<I", len(header)) + header + payload)
            self._trim()
        except OSError as e:
            log.warning("prompt state not kept in %s (%s); prompts are evaluated as before", self.folder, e)

    def _payload(self, data: bytes, prefix: list[int]) -> tuple[bytes, str]:
        """The payload of a file's bytes, or a reason to ignore the file."""
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
            return b"", "not a prompt state file"
        start = len(MAGIC) + 4
        (length,) = struct.unpack("<I", data[len(MAGIC):start])
        try:
            header = json.loads(data[start:start + length])
            if not isinstance(header, dict) or any(header.get(k) != v for k, v in self._describe(prefix).items()):
                return b"", "made for another model, library version or prompt"
            payload = data[start + length:]
            if len(payload) != header.get("payload_bytes") or \
                    hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
                return b"", "damaged (its checksum does not match)"
        except ValueError:
            return b"", "damaged (its header does not read)"
        return payload, ""

    def _discard(self, path: Path, problem: str) -> None:
        log.warning("prompt state %s ignored: %s; evaluating the prompt instead", path, problem)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)

    def _trim(self) -> None:
        files = []
        for path in self.folder.glob(f"*{SUFFIX}"):
            try:
                stat = path.stat()
            except FileNotFoundError:       # removed by another Engram meanwhile
                continue
            files.append((stat.st_mtime_ns, stat.st_size, path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.limit:
                break
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            total -= size
