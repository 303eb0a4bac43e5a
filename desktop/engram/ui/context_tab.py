"""The Context tab: for the selected reply, exactly what the model saw, section by section, with
token counts, the recalled memories and their scores, and the timings of the turn."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

ROLE_COLOURS = {"system": "#8e6bd8", "user": "#3a8dde", "assistant": "#2e9e6a", "tool": "#b7791f"}
EMPTY = ("<p style='color:gray'>Select a reply (its <b>Context</b> button, or the ◆ memories badge) to see"
         " exactly what the model was given: the system prompt, your preferences, the session summary, the"
         " recent messages, the recalled memories with their scores and your message — with the tokens of"
         " each part and how long each step took.</p>")


TIMING_NAMES = {"embed_ms": "embedding your message", "search_ms": "searching memories",
                "context_ms": "building the context", "prompt_ms": "reading the prompt",
                "generate_ms": "writing the reply", "first_token_ms": "first token after",
                "total_ms": "whole turn", "tokens_per_second": "speed", "cached_tokens": "prompt tokens reused",
                "model_calls": "model calls"}
TOKEN_TOTALS = {"user": "your message", "context": "context in all", "budget": "context budget",
                "prompt": "prompt (as the model counted it)", "reply": "reply"}


def _number(value) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else html.escape(str(value))


def _timing(name: str, value) -> str:
    if value is None:
        return "–"
    if name.endswith("_ms") and isinstance(value, (int, float)):
        return f"{value / 1000:,.2f} s" if value >= 1000 else f"{value:,.1f} ms"
    if name == "tokens_per_second" and isinstance(value, (int, float)):
        return f"{value:,.1f} tokens/s"
    return _number(value)


def _table(rows: list[tuple[str, str]], bold_last: bool = False) -> str:
    cells = "".join(
        f"<tr><td style='padding:1px 16px 1px 0'>{'<b>' if bold_last and i == len(rows) - 1 else ''}"
        f"{html.escape(k)}</td><td align='right' style='font-family:monospace'>{v}</td></tr>"
        for i, (k, v) in enumerate(rows))
    return f"<table cellspacing='0'>{cells}</table>"


def _tokens(tokens: dict) -> str:
    sections = tokens.get("sections") if isinstance(tokens.get("sections"), dict) else {}
    rows = [(str(name).replace("_", " "), _number(count)) for name, count in sections.items()]
    rows += [(TOKEN_TOTALS[key], _number(tokens[key])) for key in TOKEN_TOTALS if key in tokens]
    rows += [(str(k).replace("_", " "), _number(v)) for k, v in tokens.items()
             if k not in TOKEN_TOTALS and k not in ("sections", "cut")]
    text = _table(rows)
    if tokens.get("cut"):
        text += ("<div style='color:#b7791f'>Left out to fit the budget: "
                 + html.escape(", ".join(map(str, tokens["cut"]))) + "</div>")
    return text


def render(record) -> str:
    """The turn record as HTML (a plain function, so it is easy to test and to read)."""
    parts = [f"<h3 style='margin-bottom:2px'>Context of reply #{record.reply_message_id}</h3>"
             f"<div style='color:gray'>{html.escape(record.created_at.replace('T', ' ')[:19])} ·"
             f" {len(record.messages)} messages sent · {len(record.recalled)} memories recalled</div>"]
    if record.tokens:
        parts.append("<h4>Tokens by section</h4>" + _tokens(record.tokens))
    if record.timings:
        parts.append("<h4>Timings</h4>" + _table(
            [(TIMING_NAMES.get(name, str(name).replace("_", " ")), _timing(name, value))
             for name, value in record.timings.items()]))
    parts.append("<h4>Recalled memories</h4>")
    if record.recalled:
        rows = []
        for hit in record.recalled:
            similarity = hit.get("similarity")
            rows.append(
                f"<tr><td style='font-family:monospace;padding-right:8px' valign='top'>{hit.get('score', 0):.3f}</td>"
                f"<td>{html.escape(str(hit.get('text', '')))}<br><span style='color:gray'>"
                f"{html.escape(str(hit.get('kind', '')))} · chat {html.escape(str(hit.get('session', '')))} · "
                f"{html.escape(str(hit.get('created_at', ''))[:10])}"
                + (f" · similarity {similarity:.3f}" if isinstance(similarity, (int, float)) else "")
                + (f" · via {html.escape(str(hit['via']))}" if hit.get("via") else "") + "</span></td></tr>")
        parts.append("<table cellspacing='4'>" + "".join(rows) + "</table>")
    else:
        parts.append("<div style='color:gray'>None: nothing from earlier chats was relevant enough.</div>")
    parts.append("<h4>What the model saw, in order</h4>")
    for message in record.messages:
        role = str(message.get("role", ""))
        section = message.get("section") or message.get("name") or ""
        colour = ROLE_COLOURS.get(role, "gray")
        label = html.escape(role + (f" · {section}" if section else ""))
        content = html.escape(str(message.get("content") or ""))
        if message.get("tool_calls"):
            content += html.escape(f"\n[tool calls: {message['tool_calls']}]")
        parts.append(f"<div style='margin-top:6px'><b style='color:{colour}'>{label}</b></div>"
                     f"<pre style='white-space:pre-wrap;margin:2px 0 0 0'>{content}</pre>")
    if record.tool_calls:
        parts.append("<h4>Tool calls</h4>" + "".join(
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
        self.show_record(None)

    def show_record(self, record) -> None:
        self.record = record
        self.view.setHtml(render(record) if record is not None else EMPTY)

    def show_error(self, text: str) -> None:
        self.record = None
        self.view.setHtml(f"<p style='color:gray'>{html.escape(text)}</p>")

    def text(self) -> str:
        return self.view.toPlainText()
