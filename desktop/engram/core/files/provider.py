"""The session files as a context provider: instructions, the folder's index, the passages that
match the message, and the tools.

Following MAF's FileMemoryProvider, the model is told how to use its folder every turn, and when
the folder holds files, the index (name and description of each) comes along, so the model knows
what it saved without calling a tool. The index is cut to its own token budget (it sits in the
stable part of the context, which the turn's budget never trims). A model that cannot call tools
(the ``chat_tools`` setting) gets neither tools nor their instructions, only the list of files.

A document attached to the chat is there to be asked about, and neither a model without tools nor
a small one that seldom calls ``files_search`` would ever read it. So, like recall, the folder's
chunks are searched with the person's words before the reply, and the best few (as many as recall
brings) that match it well enough (``PASSAGE_SCORE``) come with the message, each citing its file and place
("report.pdf, p. 12"). Not when the chat's memory is off, nor when recall is left to the model
(``on_demand``) and it has the tools.
The words are in the turn's language (engram.core.conversation.prompts).
"""

from __future__ import annotations

from engram.core.conversation.context import RECALLED, STABLE, Section, TurnContext
from engram.core.conversation.memory_options import MemoryOptions
from engram.core.conversation.prompts import FILE_INDEX, FILE_LIST, FILE_TOOLS, PASSAGES
from engram.core.conversation.quoting import defused, one_line
from engram.core.conversation.recall import recalled_json
from engram.core.conversation.tools import Tool
from engram.core.files.index import FileHit, FileIndex
from engram.core.files.tools import file_tools
from engram.core.memory.search.options import SearchHit

MAX_PASSAGE_CHARS = 1500      # of one passage's text, as files_search gives it
# What a passage must score to come with a message: the hybrid search's fused score (words and
# meaning together), chosen with tests/bench/documents_bench.py, its written paraphrases against 15
# everyday messages (docs/benchmarks.md): the paraphrases' own chunks scored 0.14-0.44 where found,
# the everyday messages' best chunk 0-0.14 (one outlier: "Thanks!" finds a paper's acknowledgements).
# Meaning is measured from the embedding model's unrelated point, not from the neighbourhood's middle
# as recall's is: a chat's folder is often one document on one topic, where some chunk always stands
# out from the rest whatever the message, and a similarity threshold alone did not separate them
# (e5 puts two Chinese lines on any topics up to 0.43 apart).
PASSAGE_SCORE = 0.15


def passages(index: FileIndex, folder: str, text: str, k: int) -> list[FileHit]:
    """The ``k`` chunks of the folder that best match ``text``, if they match it at all."""
    return [hit for hit in index.search(folder, text, k=k, centred=False) if hit.score >= PASSAGE_SCORE]


def passage(hit: FileHit) -> str:
    """One chunk as one line of quoted data: where it is, then its words as a JSON string."""
    where, _, text = hit.memory.text.partition("\n")
    return f"- {defused(where)}: {one_line(text[:MAX_PASSAGE_CHARS])}"


def passage_json(hit: FileHit) -> dict:
    """The turn record's entry for a passage: a recalled memory's, with its file and line."""
    found = SearchHit(hit.memory, hit.score, hit.similarity)
    return recalled_json(found, "chat_files") | {"file": hit.name, "line": hit.line}


class FileMemoryProvider:
    def __init__(self, index: FileIndex, index_tokens: int = 500, options: MemoryOptions | None = None):
        """``options``: recall's (its mode, how many); None: no passages."""
        self.index = index
        self.index_tokens = index_tokens
        self.options = options

    def sections(self, turn: TurnContext) -> list[Section]:
        folder = turn.session.folder
        statuses = self.index.statuses(folder)
        content = FILE_TOOLS[turn.language] if turn.can_call_tools else ""
        shown: list[str] = []
        if statuses:
            lines = [(FILE_INDEX if turn.can_call_tools else FILE_LIST)[turn.language]]
            hint = "; files_list shows all" if turn.can_call_tools else ""
            for position, status in enumerate(statuses):
                line = f"- {status.name}: {status.summary}"
                rest = len(statuses) - position - 1
                more = f"- ... {rest} more{hint}" if rest else ""
                if turn.count_tokens("\n".join([*lines, line, more])) > self.index_tokens:
                    lines.append(f"- ... {rest + 1} more{hint}")
                    break
                lines.append(line)
                shown.append(status.name)
            content = "\n\n".join(part for part in (content, "\n".join(lines)) if part)
        sections = [Section("files", [{"role": "system", "content": content}],
                            data={"folder": folder, "files": shown}, slot=STABLE)] if content else []
        return sections + (self._passages(turn) if statuses else [])

    def _passages(self, turn: TurnContext) -> list[Section]:
        options = self.options
        if options is None or not turn.memory or (options.recall_mode == "on_demand" and turn.can_call_tools):
            return []
        hits = passages(self.index, turn.session.folder, turn.text, options.recall_max_results)
        if not hits:
            return []
        return [Section("passages", [{"role": "user", "content": passage(h)} for h in hits],
                        data={"memories": [passage_json(h) for h in hits], "prompt": PASSAGES[turn.language]},
                        slot=RECALLED)]

    def tools(self, turn: TurnContext) -> list[Tool]:
        return file_tools(self.index, turn.session.folder)
