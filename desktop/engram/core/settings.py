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
from engram.core.conversation import prompts, triggers
from engram.core.models.gpu import AUTO, parse_layers
from engram.core.storage.atomic import write_text_atomic
from engram.core.memory.records import now_iso

SETTINGS_FILE = "settings.json"
GPU_LAYERS = ("chat_gpu_layers", "embedding_gpu_layers")     # "auto" or a number (gpu.parse_layers)
# Applied by loading a model (Engram.use_embedding_model, use_rerank_model), not by renewing the turn engine.
EMBEDDING_FIELDS = frozenset({"embedding_model", "embedding_gpu_layers", "rerank_model"})
DEFAULT_PROFILE = "default"


@dataclass
class Settings:
    profile: str = DEFAULT_PROFILE          # the desktop's own user; memories never cross profiles
    data_dir: str = ""                      # empty: platformdirs (or ENGRAM_DATA_DIR)
    database_url: str = ""                  # postgresql://user@host/db: the data on a server
                                            # (docs/postgresql-and-devices.md); empty: the SQLite file in the data folder. The
                                            # password belongs in ~/.pgpass or PGPASSWORD, not here
    embedding_model: str = ""               # empty: the bundled multilingual-e5-small (MiniLM: name its file)
    embedding_gpu_layers: int | str = AUTO  # the embedding model's and reranker's, as chat_gpu_layers
    chat_model: str = ""                    # empty: the bundled tiny demo model
    rerank_model: str = ""                  # a reranker GGUF that reorders the best candidates of a search
                                            # (bge-reranker-v2-m3, Qwen3-Reranker); empty: none
    ui_language: str = ""                   # the window's language: empty: the system's; "en", "zh_CN"
    # Chat model runtime (engram.core.models.chat_model.load_chat_model).
    chat_context_size: int = 4096           # tokens the model sees at once (n_ctx)
    chat_threads: int = 0                   # 0: one per CPU
    chat_gpu_layers: int | str = AUTO       # layers offloaded to the GPU the llama.cpp build can use (Metal,
                                            # CUDA, Vulkan; core/models/gpu.py): auto (what fits its free
                                            # memory) | 0 (the CPU) | a number | -1 (all)
    chat_temperature: float = 0.7
    chat_top_p: float = 0.95
    chat_top_k: int = 40
    chat_repeat_penalty: float = 1.1
    chat_max_tokens: int = 512              # longest reply, in tokens
    chat_format: str = ""                   # empty: the model's own template, else "gemma"
    chat_thinking: str = "off"              # off: a reasoning model (Qwen3, SmolLM3) is told by its own switch
                                            # not to think | on: it thinks first, shown apart (reasoning.py)
    model_catalog: str = ""                 # a catalog file of one's own; empty: ENGRAM_MODEL_CATALOG or the shipped one
    model_source: str = ""                  # where catalog models download from (core/models/sources.py):
                                            # huggingface | hf-mirror | modelscope | custom (model_mirror);
                                            # empty: custom when model_mirror is set, else huggingface
    model_mirror: str = ""                  # the custom source's base URL (the hub's paths)
    first_start: str = ""                   # what the person chose at first start ("" = not yet: the window
                                            # offers the choice): download | catalog | file | demo
    chat_tools: str = "auto"                # tool calls (files, search_memory): auto (off for the demo
                                            # model, which cannot call them) | on | off
    # Conversation memory (issue 3); the names follow the seeds' Agent Framework options.
    system_prompt: str = prompts.SYSTEM[prompts.EN]   # a default follows the person's language (prompts.py)
    window_messages: int = 20               # working window: the last N user/assistant messages
    summary_threshold: int = 50             # summarise once a session has more unsummarised messages
    summary_keep: int = 10                  # ... keeping the newest ones out of the summary
    recall_mode: str = "before_call"        # before_call (inject) | on_demand (search_memory tool) | hybrid
                                            # | triggered (inject only when the message asks about the past)
    recall_triggers_en: list[str] = field(default_factory=lambda: list(triggers.ENGLISH))  # whole words
    recall_triggers_zh: list[str] = field(default_factory=lambda: list(triggers.CHINESE))  # anywhere
    recall_max_results: int = 3
    recall_threshold: float = 0.1           # least similarity by meaning of a recalled memory, measured from
                                            # the middle of the query's neighbourhood (0: its typical member;
                                            # search/neighbourhood.py), below 20 candidates from the model's
                                            # unrelated point. Chosen on that second scale (LoCoMo recall@5
                                            # costs: 0.2 e5 0.005, MiniLM 0; 0.3 e5 0.018), not tuned again
    recall_prompt: str = prompts.RECALL[prompts.EN]
    recency_half_life_days: float = 90.0    # recall: a memory's recency counts half after this many days
                                            # (its weight: SearchOptions.recency_weight, core/memory/search/options.py)
    storage_scope: str = "user,session"     # what a stored message is tagged with
    search_scope: str = "user"              # what recall searches: user = across all of the person's sessions
    distill_memories: str = "auto"          # facts, preferences, tasks from what the person says: auto (on
                                            # unless the demo model, too small for useful notes) | on | off
    profile_learning: str = "auto"          # the profile (core/profile/): auto (lines the person's words give are
                                            # noted at once, with Undo) | ask (they wait for an OK) | off
    profile_tokens: int = 400               # the profile's share of every prompt; the most important lines first
    sensitive_details: str = "keep"         # keep | mask: e-mails, phone, ID, card, IBAN and passport-like
                                            # numbers masked before they are stored (core/memory/sensitive.py)
    document_max_mb: int = 100              # documents attached to a chat (core/files/documents.py): larger ones
                                            # are refused; a zip container may unpack to 8 times this
    # The OpenAI-compatible API (engram/integrations/): the window runs it while api_enabled.
    api_enabled: bool = False
    api_port: int = 8765                    # on 127.0.0.1; `engram serve --port` for another
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
        known = {f.name for f in fields(cls) if not f.metadata.get("transient")}
        # Before GPU layers had "auto", every file held the one default, chat_gpu_layers 0, and no
        # embedding_gpu_layers: that 0 was nobody's choice, so it becomes auto.
        if data.get("chat_gpu_layers") == 0 and "embedding_gpu_layers" not in data:
            data["chat_gpu_layers"] = AUTO
        ignored = []
        for key, value in data.items():
            default = getattr(settings, key, None)
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if key in GPU_LAYERS:
                try:
                    setattr(settings, key, parse_layers(value))
                except ValueError:
                    ignored.append(key)
            elif key in known and type(value) is type(default):
                setattr(settings, key, value)
            else:
                ignored.append(key)
        if settings.profile_learning not in ("auto", "ask", "off"):
            ignored.append("profile_learning")
            settings.profile_learning = "auto"
        if settings.sensitive_details not in ("keep", "mask"):
            ignored.append("sensitive_details")
            settings.sensitive_details = "keep"
        if settings.document_max_mb < 1:
            ignored.append("document_max_mb")
            settings.document_max_mb = cls.document_max_mb
        for name in ("recall_triggers_en", "recall_triggers_zh"):
            if not all(isinstance(word, str) for word in getattr(settings, name)):
                ignored.append(name)
                setattr(settings, name, getattr(cls(), name))
        if ignored:
            settings.problem = f"ignored unknown or mistyped settings: {', '.join(sorted(ignored))}"
        return settings

    @classmethod
    def peek(cls, name: str, config_dir: str | os.PathLike | None = None):
        """One saved setting (or its default), read without load's repairs: the window needs its
        language before the data opens, and the facade's load is the one that reports a bad file."""
        default = getattr(cls(), name)
        try:
            value = json.loads((paths.config_dir(config_dir) / SETTINGS_FILE).read_text(encoding="utf-8"))[name]
        except (OSError, ValueError, TypeError, KeyError):
            return default
        return value if type(value) is type(default) else default

    def save(self) -> None:
        data = {k: v for k, v in asdict(self).items()
                if not next(f for f in fields(self) if f.name == k).metadata.get("transient")}
        write_text_atomic(Path(self.path), json.dumps(data, indent=2, ensure_ascii=False) + "\n")
