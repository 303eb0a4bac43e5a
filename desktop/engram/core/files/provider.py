"""The session files as a context provider: instructions, the folder's index, and the tools.

Following MAF's FileMemoryProvider, the model is told how to use its folder every turn, and when
the folder holds files, the index (name and description of each) comes along, so the model knows
what it saved without calling a tool. The index is cut to its own token budget (it sits in the
stable part of the context, which the turn's budget never trims). A model that cannot call tools
(the ``chat_tools`` setting) gets neither tools nor their instructions, only the list of files.
The words are in the turn's language (engram.core.conversation.prompts).
"""

from __future__ import annotations

from engram.core.conversation.context import STABLE, Section, TurnContext
from engram.core.files.index import FileIndex
from engram.core.files.tools import file_tools
from engram.core.conversation.prompts import FILE_INDEX, FILE_LIST, FILE_TOOLS
from engram.core.conversation.tools import Tool


class FileMemoryProvider:
    def __init__(self, index: FileIndex, index_tokens: int = 500):
        self.index = index
        self.index_tokens = index_tokens

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
        if not content:
            return []
        return [Section("files", [{"role": "system", "content": content}],
                        data={"folder": folder, "files": shown}, slot=STABLE)]

    def tools(self, turn: TurnContext) -> list[Tool]:
        return file_tools(self.index, turn.session.folder)
