"""The chat model: a GGUF file run by llama-cpp-python on one worker thread.

The interface below is what the turn engine and the window rely on; the fake in tests/fakes.py
follows it too.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engram.core.models.chat_template import ChatTemplate, Prompt
from engram.core.models.demo import demo_model_path
from engram.core.errors import ContextTooLong, ModelError
from engram.core.models.gguf import check_model_file
from engram.core.models.gpu import AUTO, Placement, load_offloaded, plan
from engram.core.models.grammar import GrammarMask, schema_grammar
from engram.core.models.prompt_states import MIN_TOKENS, PromptStates, default_folder
from engram.core.models.reasoning import ReasoningSplit

if TYPE_CHECKING:   # models sit below the settings' composition: they read what they are handed
    from engram.core.settings import Settings


@dataclass
class Generation:
    """One model reply and what it cost."""

    text: str                        # the answer: never the reasoning
    stopped: bool = False            # the person pressed Stop; text is the partial reply
    finish_reason: str = ""          # "stop", "length", "stopped", "error"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_ms: float = 0.0           # until the first token (prompt evaluation)
    generate_ms: float = 0.0         # from the first token to the last
    timings: dict = field(default_factory=dict)
    reasoning: str = ""              # what the model thought before answering (reasoning.py); never stored
    reasoning_tokens: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / (self.generate_ms / 1000) if self.generate_ms > 0 else 0.0


class ChatModel(Protocol):
    name: str
    context_tokens: int
    takes_tools: bool                # its chat template lays out tools given to generate (tools=)

    def count_tokens(self, text: str) -> int: ...

    def count_tool_tokens(self, tools: list[dict]) -> int:
        """The prompt tokens the chat template spends on ``tools`` given as ``tools=``."""
        ...

    def generate(self, messages: list[dict], *, on_token: Callable[[str], None] | None = None,
                 stop: threading.Event | None = None, max_tokens: int = 512,
                 json_schema: dict | None = None, tools: list[dict] | None = None, thinking: bool = False,
                 on_reasoning: Callable[[str], None] | None = None) -> Generation:
        """Reply to OpenAI-style messages ({"role", "content"}), streaming each piece of the answer
        to on_token; returns early (stopped=True) once ``stop`` is set. With json_schema, the output
        is constrained by a grammar to JSON matching the schema. ``tools`` (OpenAI-style specs)
        only when ``takes_tools``. ``thinking`` lets a reasoning model think first (off: its own
        switch turns thinking off); what it thinks streams to on_reasoning, never to on_token."""
        ...


@dataclass
class Sampling:
    """How the next token is picked; the defaults suit a small local model in a chat."""

    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.1
    max_tokens: int = 512
    seed: int = -1                   # -1: a fresh seed each call


class LlamaChatModel:
    """A GGUF chat model run by llama-cpp-python on one worker thread.

    A llama.cpp context is not thread-safe, so loading and every generation run on a single-thread
    executor: calls from several threads queue up and run one after another. ``on_token`` is
    called on that worker thread. The worker keeps one context, so a prompt that starts like the
    previous one reuses its KV cache for the shared prefix; with ``states_dir``, the stable prefix
    (the system text) is also kept on disk for the next process (prompt_states.py). Messages become
    tokens through the chat template, with their text never read as control tokens
    (chat_template.py).
    """

    def __init__(self, path: str | os.PathLike, *, context_size: int = 4096, threads: int = 0,
                 gpu_layers: int | str = AUTO, sampling: Sampling | None = None, chat_format: str = "",
                 fallback_chat_format: str = "gemma", states_dir: str | os.PathLike | None = None):
        self.path = check_model_file(path, "chat")
        self.name = self.path.stem
        self.sampling = sampling or Sampling()
        planned = plan(self.path, gpu_layers, context_size)
        if planned.layers == 0:
            check_fits_memory(self.path)
        self._states = PromptStates(states_dir, self.path) if states_dir else None
        self._grammars: dict[str, object] = {}
        self._stop: threading.Event | None = None     # the running generation's Stop
        self._abort_hook = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-chat")
        started = time.perf_counter()
        try:
            self._llm, self._template, self.placement = self._worker.submit(
                self._load, context_size, threads, planned, chat_format, fallback_chat_format).result()
        except BaseException:
            self._worker.shutdown()
            raise
        self.load_seconds = time.perf_counter() - started
        self.context_tokens: int = self._llm.n_ctx()
        self.chat_format: str = self._template.name
        self.takes_tools: bool = self._template.takes_tools

    def _load(self, context_size: int, threads: int, planned: Placement, chat_format: str, fallback: str):
        from llama_cpp import Llama  # imported here: the library is slow to load

        threads = threads or max(1, os.cpu_count() or 1)
        _hide_swa_notice()

        def load(gpu_layers: int):
            try:
                # swa_full: with sliding-window attention (Gemma 3) llama.cpp otherwise drops old window
                # entries, and llama-cpp-python's prefix reuse (unlike llama.cpp's server) does not check
                # for that; a full-size window cache keeps the reused prefix complete.
                return Llama(model_path=str(self.path), n_ctx=context_size, n_threads=threads,
                             n_threads_batch=threads, n_gpu_layers=gpu_layers, swa_full=True, verbose=False)
            except (ValueError, RuntimeError, OSError) as e:
                raise ModelError(f"llama.cpp could not load the chat model {self.path}: {e}",
                                 hint="the file may be damaged, not a chat model, or need more memory than is"
                                      " free; try a smaller context size or choose another .gguf") from e

        llm, placement = load_offloaded(load, planned)
        try:
            return llm, ChatTemplate.for_model(llm, chat_format, fallback), placement
        except ModelError:
            llm.close()
            raise

    def count_tokens(self, text: str) -> int:
        # Tokenising only reads the vocabulary, which llama.cpp shares read-only: safe off the worker.
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count_tool_tokens(self, tools: list[dict]) -> int:
        return self._template.tool_tokens(tools)      # rendering and tokenising: safe off the worker too

    def generate(self, messages: list[dict], *, on_token: Callable[[str], None] | None = None,
                 stop: threading.Event | None = None, max_tokens: int | None = None,
                 json_schema: dict | None = None, tools: list[dict] | None = None, thinking: bool = False,
                 on_reasoning: Callable[[str], None] | None = None) -> Generation:
        """See ChatModel.generate; max_tokens None means ``sampling.max_tokens``."""
        return self.generate_async(messages, on_token=on_token, stop=stop, max_tokens=max_tokens,
                                   json_schema=json_schema, tools=tools, thinking=thinking,
                                   on_reasoning=on_reasoning).result()

    def generate_async(self, messages: list[dict], *, on_token: Callable[[str], None] | None = None,
                       stop: threading.Event | None = None, max_tokens: int | None = None,
                       json_schema: dict | None = None, tools: list[dict] | None = None, thinking: bool = False,
                       on_reasoning: Callable[[str], None] | None = None) -> Future:
        """Queue a generation on the worker; the Future's result is the Generation."""
        return self._worker.submit(self._generate, [dict(m) for m in messages], on_token, stop,
                                   max_tokens or self.sampling.max_tokens, json_schema, tools, thinking, on_reasoning)

    def _generate(self, messages: list[dict], on_token, stop, max_tokens: int, json_schema,
                  tools: list[dict] | None, thinking: bool, on_reasoning) -> Generation:
        from llama_cpp import LogitsProcessorList, llama_perf_context, llama_perf_context_reset

        if stop is not None and stop.is_set():
            return Generation("", stopped=True, finish_reason="stopped")
        prompt = self._template.render(messages, tools, thinking=thinking and json_schema is None)
        split = ReasoningSplit(on_token, on_reasoning, inside=prompt.thinking_open)
        s = self.sampling
        mask = GrammarMask(self._llm, self._grammar(json_schema)) if json_schema else None
        meter = _Meter(on_first=self._unwatch_stop)
        self._watch_stop(stop)
        llama_perf_context_reset(self._llm.ctx)
        finish = ""
        state = None
        started = time.perf_counter()
        try:
            state = self._evaluate_stable_prefix(prompt)
            stream = self._llm.create_completion(
                prompt.tokens, stream=True, max_tokens=max_tokens, temperature=s.temperature, top_p=s.top_p,
                top_k=s.top_k, repeat_penalty=s.repeat_penalty, seed=None if s.seed < 0 else s.seed,
                stop=prompt.stop, stopping_criteria=prompt.stopping_criteria,
                logits_processor=LogitsProcessorList([meter, mask] if mask else [meter]))
            for chunk in stream:
                choice = chunk["choices"][0]
                if piece := choice["text"]:
                    split(piece)
                finish = choice.get("finish_reason") or finish
                if stop is not None and stop.is_set():
                    stream.close()          # no more tokens are asked for: generation ends here
                    finish = "stopped"
                    break
        except ValueError as e:             # e.g. the prompt does not fit the context
            raise (ContextTooLong if "context window" in str(e) else ModelError)(f"the chat model could not reply: {e}",
                             hint="shorten the conversation or raise the chat model's context size") from e
        except RuntimeError as e:           # llama_decode gave up: Stop during the prompt, or a real failure
            if stop is None or not stop.is_set():
                raise ModelError(f"the chat model failed while reading the prompt: {e}",
                                 hint="try again; if it keeps failing, lower the context size") from e
            finish = "stopped"
        finally:
            self._unwatch_stop()
            split.flush()
            if mask is not None:
                mask.close()
        ended = time.perf_counter()
        perf = llama_perf_context(self._llm.ctx)
        first = meter.first_at or ended
        if state is not None:               # written after the reply, so it never delays the first token
            self._states.save(prompt.tokens[:prompt.stable], state)
        return Generation(
            text=split.answer_text, stopped=finish == "stopped", finish_reason=finish or "stop",
            prompt_tokens=meter.prompt_tokens, completion_tokens=meter.sampled,
            prompt_ms=(first - started) * 1000, generate_ms=(ended - first) * 1000,
            timings={"prompt_eval_tokens": perf.n_p_eval, "prompt_eval_ms": perf.t_p_eval_ms,
                     "cached_tokens": max(0, meter.prompt_tokens - perf.n_p_eval),
                     "eval_tokens": perf.n_eval, "eval_ms": perf.t_eval_ms},
            reasoning=split.reasoning_text, reasoning_tokens=split.reasoning_tokens)

    def _evaluate_stable_prefix(self, prompt: Prompt) -> bytes | None:
        """Have the context hold the prompt's stable prefix (its system text) before the rest is read:
        it is there already (the last prompt began the same way), or restored from its file, or
        evaluated now; then its state is returned, to be saved once the reply is done."""
        llm, stable = self._llm, prompt.stable
        if self._states is None or stable < MIN_TOKENS or len(prompt.tokens) >= self.context_tokens:
            return None
        prefix = prompt.tokens[:stable]
        if llm.longest_token_prefix(llm._input_ids, prefix) == stable or self._states.restore(llm, prefix):
            return None
        llm.n_tokens = llm.longest_token_prefix(llm._input_ids, prefix)
        llm.eval(prefix[llm.n_tokens:])
        return self._states.capture(llm)

    def _watch_stop(self, stop: threading.Event | None) -> None:
        """Let llama.cpp abandon prompt evaluation (which can take seconds) once ``stop`` is set.
        Switched off at the first token: from then on Stop is checked between tokens, and this check
        calls into Python (taking the GIL) for every step of every token."""
        import llama_cpp

        if self._abort_hook is None:
            self._abort_hook = llama_cpp.ggml_abort_callback(
                lambda _: self._stop is not None and self._stop.is_set())
        self._stop = stop
        hook = self._abort_hook if stop else llama_cpp.ggml_abort_callback(0)   # 0: no callback
        llama_cpp.llama_set_abort_callback(self._llm.ctx, hook, None)

    def _unwatch_stop(self) -> None:
        if self._stop is not None:
            self._watch_stop(None)

    def _grammar(self, schema: dict):
        key = json.dumps(schema)            # property order matters: the grammar keeps it
        if key not in self._grammars:
            self._grammars[key] = schema_grammar(schema)
        return self._grammars[key]

    def close(self) -> None:
        """Free the model after any queued generation has finished."""
        self._worker.submit(self._llm.close).result()
        self._worker.shutdown()


_log_filter = None


def _hide_swa_notice() -> None:
    """llama.cpp reports the full-size sliding-window cache we ask for at *error* level; keep that
    one line off the person's terminal and pass every other log line on as before."""
    global _log_filter
    if _log_filter is not None:
        return
    import ctypes

    import llama_cpp
    from llama_cpp import _logger

    @llama_cpp.llama_log_callback
    def log_filter(level, text, user_data):
        if b"full-size SWA cache" not in text:
            _logger.llama_log_callback(level, text, user_data)

    _log_filter = log_filter
    llama_cpp.llama_log_set(log_filter, ctypes.c_void_p(0))


class _Meter:
    """A pass-through logits processor: it sees every sampled token, so it knows when the first one
    came (the end of prompt evaluation), how long the prompt was and how many tokens were sampled."""

    def __init__(self, on_first: Callable[[], None]):
        self.on_first = on_first
        self.first_at = 0.0
        self.prompt_tokens = 0
        self.sampled = 0

    def __call__(self, input_ids, scores):
        if not self.sampled:
            self.first_at = time.perf_counter()
            self.prompt_tokens = len(input_ids)
            self.on_first()
        self.sampled += 1
        return scores


def memory_available() -> int | None:
    """Bytes of memory the system can give us now (MemAvailable), or None where unknown."""
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def check_fits_memory(path: Path) -> None:
    """Refuse a model file larger than the free memory before llama.cpp tries (and the system swaps
    or the process is killed)."""
    available = memory_available()
    size = path.stat().st_size
    if available is not None and size > available:
        raise ModelError(f"the chat model {path} needs {size / 2**30:.1f} GiB but only"
                         f" {available / 2**30:.1f} GiB of memory is free",
                         hint="close other programs, or choose a smaller (more quantised) .gguf,"
                              " or offload layers to a GPU (gpu layers)")


def chat_model_path(settings: Settings) -> Path:
    """The chosen chat model, or the demo model when none is chosen."""
    if settings.chat_model:
        return Path(settings.chat_model).expanduser()
    return demo_model_path()


def load_chat_model(settings: Settings) -> LlamaChatModel:
    """The chat model the settings ask for; raises ModelError (with a fix) when it cannot load."""
    return LlamaChatModel(
        chat_model_path(settings), context_size=settings.chat_context_size, threads=settings.chat_threads,
        gpu_layers=settings.chat_gpu_layers, chat_format=settings.chat_format, states_dir=default_folder(),
        sampling=Sampling(temperature=settings.chat_temperature, top_p=settings.chat_top_p,
                          top_k=settings.chat_top_k, repeat_penalty=settings.chat_repeat_penalty,
                          max_tokens=settings.chat_max_tokens))
