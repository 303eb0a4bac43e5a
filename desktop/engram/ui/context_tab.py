"""The Context tab: for the selected reply, exactly what the model saw, section by section, with
token counts, the recalled memories and their scores (and why memory was searched or not), and the
timings of the turn."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from engram.ui.kinds import kind_name

ROLE_COLOURS = {"system": "#8e6bd8", "user": "#3a8dde", "assistant": "#2e9e6a", "tool": "#b7791f"}
EMPTY = QT_TRANSLATE_NOOP("ContextTab", "<p style='color:gray'>Select a reply (its <b>Context</b> button, or the ◆"
                          " memories badge) to see exactly what the model was given: the system prompt, your"
                          " preferences, the session summary, the recent messages, the recalled memories with their"
                          " scores and your message — with the tokens of each part and how long each step took.</p>")


TIMING_NAMES = {"embed_ms": QT_TRANSLATE_NOOP("ContextTab", "embedding your message"),
                "search_ms": QT_TRANSLATE_NOOP("ContextTab", "searching memories"),
                "rerank_ms": QT_TRANSLATE_NOOP("ContextTab", "reranking memories"),
                "context_ms": QT_TRANSLATE_NOOP("ContextTab", "building the context"),
                "prompt_ms": QT_TRANSLATE_NOOP("ContextTab", "reading the prompt"),
                "generate_ms": QT_TRANSLATE_NOOP("ContextTab", "writing the reply"),
                "first_token_ms": QT_TRANSLATE_NOOP("ContextTab", "first token after"),
                "total_ms": QT_TRANSLATE_NOOP("ContextTab", "whole turn"),
                "tokens_per_second": QT_TRANSLATE_NOOP("ContextTab", "speed"),
                "cached_tokens": QT_TRANSLATE_NOOP("ContextTab", "prompt tokens reused"),
                "model_calls": QT_TRANSLATE_NOOP("ContextTab", "model calls")}
TOKEN_TOTALS = {"user": QT_TRANSLATE_NOOP("ContextTab", "your message"),
                "context": QT_TRANSLATE_NOOP("ContextTab", "context in all"),
                "budget": QT_TRANSLATE_NOOP("ContextTab", "context budget"),
                "prompt": QT_TRANSLATE_NOOP("ContextTab", "prompt (as the model counted it)"),
                "reply": QT_TRANSLATE_NOOP("ContextTab", "reply"),
                "reasoning": QT_TRANSLATE_NOOP("ContextTab", "reasoning")}
# The context's sections, as the turn engine names them (others are shown as they are named).
SECTION_NAMES = {"system": QT_TRANSLATE_NOOP("ContextTab", "system"),
                 "instructions": QT_TRANSLATE_NOOP("ContextTab", "instructions for this chat"),
                 "preferences": QT_TRANSLATE_NOOP("ContextTab", "preferences"),
                 "profile": QT_TRANSLATE_NOOP("ContextTab", "profile"),
                 "files": QT_TRANSLATE_NOOP("ContextTab", "files"),
                 "tools": QT_TRANSLATE_NOOP("ContextTab", "tools"),
                 "summary": QT_TRANSLATE_NOOP("ContextTab", "summary"),
                 "window": QT_TRANSLATE_NOOP("ContextTab", "window"),
                 "recalled": QT_TRANSLATE_NOOP("ContextTab", "recalled"),
                 "passages": QT_TRANSLATE_NOOP("ContextTab", "passages from this chat's files"),
                 "assistant": QT_TRANSLATE_NOOP("ContextTab", "assistant"),
                 "tool": QT_TRANSLATE_NOOP("ContextTab", "tool"),
                 "user": QT_TRANSLATE_NOOP("ContextTab", "user")}
# How a memory was recalled (recall.py names the ways).
WAYS = {"before_call": QT_TRANSLATE_NOOP("ContextTab", "before the reply"),
        "search_memory": QT_TRANSLATE_NOOP("ContextTab", "the model's search"),
        "chat_files": QT_TRANSLATE_NOOP("ContextTab", "this chat's files")}

# When recall searches (settings recall_mode), as the turn record names the modes.
RECALL_MODES = {"before_call": QT_TRANSLATE_NOOP("ContextTab", "before every reply"),
                "on_demand": QT_TRANSLATE_NOOP("ContextTab", "when the model asks"),
                "hybrid": QT_TRANSLATE_NOOP("ContextTab", "before every reply and when the model asks"),
                "triggered": QT_TRANSLATE_NOOP("ContextTab", "only when you ask about the past")}


def shown(text: str) -> str:
    """One of the texts above, in the window's language."""
    return QCoreApplication.translate("ContextTab", text)


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else html.escape(str(value))


def _name(key) -> str:
    """A section's or role's name as shown (unknown ones as they are named)."""
    key = str(key)
    return shown(SECTION_NAMES[key]) if key in SECTION_NAMES else key.replace("_", " ")


def _timing(name: str, value) -> str:
    if value is None:
        return "–"
    if name.endswith("_ms") and isinstance(value, (int, float)):
        return f"{value / 1000:,.2f} s" if value >= 1000 else f"{value:,.1f} ms"
    if name == "tokens_per_second" and isinstance(value, (int, float)):
        return QCoreApplication.translate("ContextTab", "{speed} tokens/s").format(speed=f"{value:,.1f}")
    return _number(value)


def _table(rows: list[tuple[str, str]], bold_last: bool = False) -> str:
    cells = "".join(
        f"<tr><td style='padding:1px 16px 1px 0'>{'<b>' if bold_last and i == len(rows) - 1 else ''}"
        f"{html.escape(k)}</td><td align='right' style='font-family:monospace'>{v}</td></tr>"
        for i, (k, v) in enumerate(rows))
    return f"<table cellspacing='0'>{cells}</table>"


def _tokens(tokens: dict) -> str:
    sections = tokens.get("sections") if isinstance(tokens.get("sections"), dict) else {}
    rows = [(_name(name), _number(count)) for name, count in sections.items()]
    rows += [(shown(TOKEN_TOTALS[key]), _number(tokens[key])) for key in TOKEN_TOTALS if key in tokens]
    rows += [(str(k).replace("_", " "), _number(v)) for k, v in tokens.items()
             if k not in TOKEN_TOTALS and k not in ("sections", "cut")]
    text = _table(rows)
    if tokens.get("cut"):
        text += ("<div style='color:#b7791f'>"
                 + QCoreApplication.translate("ContextTab", "Left out to fit the budget: {parts}").format(
                     parts=html.escape(", ".join(map(str, tokens["cut"])))) + "</div>")
    return text


def _why_recall(recall: dict) -> str:
    """Why long-term memory was searched before the reply, or not (empty for older records)."""
    translate = QCoreApplication.translate
    if not recall:
        return ""
    if recall.get("memory") is False:
        return translate("ContextTab", "Memory is off for this chat: nothing was recalled, and nothing from this"
                                       " chat is kept in memory (its messages are saved).")
    mode = str(recall.get("mode", ""))
    mode = shown(RECALL_MODES[mode]) if mode in RECALL_MODES else mode
    if not recall.get("searched"):
        if recall.get("mode") == "on_demand":
            return translate("ContextTab", "Searched only when the model asks (memory search: {mode}).").format(
                mode=mode)
        return translate("ContextTab", "Not searched: no trigger word, and not a question about you (memory search:"
                                       " {mode}).").format(mode=mode)
    reach = translate("ContextTab", "up to {count} memories from similarity {threshold}").format(
        count=recall.get("max_results"), threshold=recall.get("threshold"))
    if not recall.get("widened"):
        return translate("ContextTab", "Searched before the reply (memory search: {mode}): {reach}.").format(
            mode=mode, reach=reach)
    signs = [translate("ContextTab", "it says {words}").format(words=", ".join(map(str, recall["triggers"])))
             ] if recall.get("triggers") else []
    signs += [translate("ContextTab", "it is a question about you")] if recall.get("about_person") else []
    return translate("ContextTab", "Searched before the reply, wider because your message asks about the past"
                                   " ({signs}; memory search: {mode}): {reach}.").format(
        signs="; ".join(signs), mode=mode, reach=reach)


def _heading(text: str) -> str:
    return f"<h4>{text}</h4>"


def _profile(record, lines: dict[int, str]) -> str:
    """The profile's part of the context: its lines, its tokens, what its budget left out, where
    its file is; and what the person's message added to it (empty for records without a profile).
    The record names lines by id; ``lines`` has their words as the profile says them now."""
    translate = QCoreApplication.translate

    def words(line_id) -> str:
        return lines.get(line_id) or translate("ContextTab", "line #{id}, no longer in your profile").format(
            id=line_id)

    profile = record.recall.get("profile") if isinstance(record.recall, dict) else None
    if not isinstance(profile, dict):
        return ""
    seen = profile.get("context") if isinstance(profile.get("context"), dict) else {}
    sections = record.tokens.get("sections") if isinstance(record.tokens.get("sections"), dict) else {}
    texts = [words(line_id) for line_id in seen.get("lines") or []]
    parts = []
    if seen:
        parts.append("<div>" + html.escape(translate("ContextTab", "Lines of your profile: {count} · {tokens} tokens")
                                           .format(count=len(seen.get("lines") or []),
                                                   tokens=_number(sections.get("profile", 0)))) + "</div>")
    if "profile" in (record.tokens.get("cut") or []):
        parts.append("<div style='color:#b7791f'>" + html.escape(translate(
            "ContextTab", "The whole profile was left out: the context had no room for it.")) + "</div>")
    if texts:
        parts.append("<ul style='margin:2px 0'>" + "".join(f"<li>{html.escape(text)}</li>" for text in texts)
                     + "</ul>")
    if left_out := [words(line_id) for line_id in seen.get("left_out") or []]:
        parts.append("<div style='color:#b7791f'>" + html.escape(translate(
            "ContextTab", "Left out to fit the profile's budget (the least important first): {lines}").format(
            lines="; ".join(left_out))) + "</div>")
    if problem := seen.get("problem"):
        parts.append("<div style='color:#c0392b'>" + html.escape(translate(
            "ContextTab", "Not in the context: {why}").format(why=problem)) + "</div>")
    noted = [item for item in profile.get("noted") or [] if isinstance(item, dict)]
    if noted:
        parts.append("<div>" + html.escape(translate("ContextTab", "Your message added: {lines}").format(
            lines="; ".join(str(item.get("text", "")) for item in noted))) + "</div>")
    if problem := profile.get("problem"):
        parts.append("<div style='color:#c0392b'>" + html.escape(translate(
            "ContextTab", "Nothing could be learned from your message: {why}").format(why=problem)) + "</div>")
    if file := seen.get("file"):
        parts.append("<div style='color:gray'>" + html.escape(translate("ContextTab", "From the file {path}").format(
            path=file)) + "</div>")
    return _heading(translate("ContextTab", "Your profile")) + "".join(parts) if parts else ""


def _chat(record) -> str:
    """What this chat's own settings changed in the turn (empty for a chat with none)."""
    translate = QCoreApplication.translate
    chat = record.recall.get("chat") if isinstance(record.recall, dict) else None
    if not isinstance(chat, dict) or not chat:
        return ""
    parts = []
    if chat.get("memory") is False:
        parts.append("<div style='color:#b7791f'><b>" + html.escape(translate(
            "ContextTab", "Memory is off for this chat.")) + "</b> " + html.escape(translate(
            "ContextTab", "Nothing was recalled and the profile was not given; nothing from this chat is kept in"
                          " memory.")) + "</div>")
    if instructions := chat.get("instructions"):
        parts.append("<div>" + html.escape(translate("ContextTab", "Instructions for this chat:")) + "</div>"
                     f"<pre style='white-space:pre-wrap;margin:2px 0 0 0'>{html.escape(str(instructions))}</pre>")
    if model := chat.get("model"):
        parts.append("<div>" + html.escape(translate("ContextTab", "This chat's own model: {name}").format(
            name=model)) + "</div>")
    return _heading(translate("ContextTab", "This chat's own settings")) + "".join(parts)


def render(record, profile_lines: dict[int, str] | None = None, number: int | None = None,
           chat_name: Callable[[str], str] = str) -> str:
    """The turn record as HTML (a plain function, so it is easy to test and to read);
    ``profile_lines``: the profile's lines by id, as its file says them now; ``number``: which
    reply of its chat it is (1 for the first); ``chat_name``: a chat's name by its id."""
    translate = QCoreApplication.translate
    header = translate("ContextTab", "Context of reply {number} of this chat").format(number=number) \
        if number else translate("ContextTab", "Context of the reply")
    counts = translate("ContextTab", "messages sent: {sent} · memories recalled: {recalled}").format(
        sent=len(record.messages), recalled=len(record.recalled))
    parts = [f"<h3 style='margin-bottom:2px'>{header}</h3><div style='color:gray'>"
             f"{html.escape(record.created_at.replace('T', ' ')[:19])} · {counts}</div>"]
    parts.append(_chat(record))
    if record.tokens:
        parts.append(_heading(translate("ContextTab", "Tokens by section")) + _tokens(record.tokens))
    parts.append(_profile(record, profile_lines or {}))
    if record.timings:
        parts.append(_heading(translate("ContextTab", "Timings")) + _table(
            [(shown(TIMING_NAMES[name]) if name in TIMING_NAMES else str(name).replace("_", " "), _timing(name, value))
             for name, value in record.timings.items()]))
    parts.append(_heading(translate("ContextTab", "Recalled memories")))
    if why := _why_recall(record.recall):
        parts.append(f"<div style='color:gray'>{html.escape(why)}</div>")
    if reranker := record.recall.get("reranker"):
        said = translate("ContextTab", "The best of them were reordered by the reranker {model}.").format(model=reranker)
        parts.append(f"<div style='color:gray'>{html.escape(said)}</div>")
    if record.recalled:
        rows = []
        for hit in record.recalled:
            about = [kind_name(str(hit.get("kind", ""))),
                     translate("ContextTab", "chat {session}").format(session=chat_name(str(hit.get("session", ""))))]
            if isinstance(similarity := hit.get("similarity"), (int, float)):
                about.append(translate("ContextTab", "similarity {value}").format(value=f"{similarity:.3f}"))
            if hit.get("reranked"):
                about.append(translate("ContextTab", "score by the reranker"))
            if way := hit.get("via"):
                about.append(translate("ContextTab", "via {way}").format(way=shown(WAYS[way]) if way in WAYS else way))
            rows.append(
                f"<tr><td style='font-family:monospace;padding-right:8px' valign='top'>{hit.get('score', 0):.3f}</td>"
                f"<td>{html.escape(str(hit.get('text', '')))}<br><span style='color:gray'>"
                f"{html.escape(' · '.join(about))}</span></td></tr>")
        parts.append("<table cellspacing='4'>" + "".join(rows) + "</table>")
    elif record.recall.get("searched", True):
        none = translate("ContextTab", "None: nothing from earlier chats was relevant enough.")
        parts.append(f"<div style='color:gray'>{none}</div>")
    parts.append(_heading(translate("ContextTab", "What the model saw, in order")))
    for message in record.messages:
        role = str(message.get("role", ""))
        section = message.get("section") or message.get("name") or ""
        colour = ROLE_COLOURS.get(role, "gray")
        label = html.escape(_name(role) + (f" · {_name(section)}" if section else ""))
        content = html.escape(str(message.get("content") or ""))
        if message.get("tool_calls"):
            calls = translate("ContextTab", "[tool calls: {calls}]").format(calls=message["tool_calls"])
            content += html.escape(f"\n{calls}")
        parts.append(f"<div style='margin-top:6px'><b style='color:{colour}'>{label}</b></div>"
                     f"<pre style='white-space:pre-wrap;margin:2px 0 0 0'>{content}</pre>")
    if record.tool_calls:
        parts.append(_heading(translate("ContextTab", "Tool calls")) + "".join(
            f"<pre style='white-space:pre-wrap'>{html.escape(str(call))}</pre>" for call in record.tool_calls))
    return "".join(parts)


class ContextTab(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        layout.addWidget(self.view, 1)
        self.record = None
        self.profile_lines: Callable[[], dict[int, str]] = dict     # the profile's lines by id, read already
        self.chat_names: Callable[[str], str] = str                 # a chat's name by its id (the window's)
        self.number: int | None = None
        self.show_record(None)

    def show_record(self, record, number: int | None = None) -> None:
        """A reply's context; ``number``: which reply of its chat it is."""
        self.record, self.number = record, number
        self.view.setHtml(render(record, self.profile_lines(), number, self.chat_names) if record is not None
                          else self.tr(EMPTY))

    def refresh(self) -> None:
        """Show the record again (the profile's lines were read anew), where it was scrolled to."""
        if self.record is not None:
            at = self.view.verticalScrollBar().value()
            self.show_record(self.record, self.number)
            self.view.verticalScrollBar().setValue(at)

    def show_error(self, text: str) -> None:
        self.record = None
        self.view.setHtml(f"<p style='color:gray'>{html.escape(text)}</p>")

    def text(self) -> str:
        return self.view.toPlainText()
