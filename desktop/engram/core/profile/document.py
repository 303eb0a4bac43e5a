"""The profile file: markdown a person can read and edit, parsed into lines and written back.

One line per thing worth knowing, under a heading per category. What Engram needs besides the
words (an id, what the line replaces, its importance, where it came from) rides in an HTML comment
at the end of the line, which markdown viewers hide. A line written by hand, with no comment, is a
line like any other: it gets an id the next time Engram writes the file. Two headings are special:
lines under "Waiting for your OK" are proposals (not in any prompt until accepted), and lines
under "Earlier" are what newer lines replaced, kept with the date they stopped being true.
Headings Engram does not know are kept as the person wrote them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from engram.core.profile.lines import CATEGORIES as LEARNED_CATEGORIES

# Categories in the order a new file lists them: the learner's, then the rest. The keys never
# change (they are in files).
CATEGORIES = (*LEARNED_CATEGORIES, "other")
PROPOSED, EARLIER = "proposed", "earlier"
HEADINGS = {
    "en": {"health": "Health", "identity": "Who I am", "people": "Family and people", "diet": "Food",
           "limits": "Fears and limits", "style": "How to answer me", "commitments": "Commitments and deadlines",
           "other": "Other", PROPOSED: "Waiting for your OK", EARLIER: "Earlier"},
    "zh": {"health": "健康", "identity": "关于我", "people": "家人和朋友", "diet": "饮食", "limits": "害怕和不能做的",
           "style": "怎样回答我", "commitments": "约定和截止日期", "other": "其他", PROPOSED: "等你确认",
           EARLIER: "以前"},
}
TITLE = {"en": "About me", "zh": "关于我"}
PREAMBLE = {
    "en": "Engram keeps the lines below in mind in every chat. Edit them freely: one line each, the most"
          " important first. Lines waiting for your OK are not used until you accept them.",
    "zh": "Engram 在每次对话中都会记住下面这些内容。可以随意修改：每行一条，最重要的放前面。"
          "“等你确认”下的内容在你接受之前不会使用。",
}
_KNOWN = {heading.casefold(): key for names in HEADINGS.values() for key, heading in names.items()}
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_META = re.compile(r"\s*<!--\s*(\{.*\})\s*-->\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_COMMENT_ONLY = re.compile(r"^\s*<!--.*-->\s*$")


@dataclass(frozen=True)
class ProfileLine:
    """One line of the profile. ``id`` 0: written by hand and not yet numbered."""

    text: str
    category: str = "other"
    id: int = 0
    slot: str = ""              # a newer line with the same slot replaces this one (learner.py)
    importance: int = 3         # 1..5: what stays when the profile is over its token budget
    source: str = ""            # where it came from, in words: "you said in chat 'Snacks'", "written by hand"
    by: str = "hand"            # rules | model | tool | import | hand | api
    session: str = ""           # the chat and message it was learned from, when it was
    message: int = 0
    added: str = ""             # ISO date
    until: str = ""             # under Earlier: when it stopped being true
    preference: dict = field(default_factory=dict)   # a reply-style preference this line sets, e.g. {"detail": "brief"}
    proposed_for: str = ""      # a proposal's category once accepted

    def meta(self) -> dict:
        """What the comment after the text holds (defaults left out, so hand edits stay short)."""
        values = {"id": self.id, "slot": self.slot, "importance": self.importance, "source": self.source,
                  "by": self.by, "session": self.session, "message": self.message, "added": self.added,
                  "until": self.until, "preference": self.preference,
                  "proposed_for": self.proposed_for}
        defaults = ProfileLine("")
        return {k: v for k, v in values.items() if v != getattr(defaults, k) or k == "id"}


@dataclass
class ProfileDocument:
    """The whole file: its lines in file order (each with its category), the next id to hand out,
    and the order and wording of the headings as the file has them."""

    lines: list[ProfileLine] = field(default_factory=list)
    next_id: int = 1
    headings: dict[str, str] = field(default_factory=dict)      # category -> heading as written

    def active(self) -> list[ProfileLine]:
        """The lines that are in every prompt: not proposals, not history."""
        return [line for line in self.lines if line.category not in (PROPOSED, EARLIER)]

    def listing(self) -> dict:
        """The lines in use and those waiting for an OK, as other programs are given them (MCP, API)."""
        numbered = self.numbered()
        return {"lines": [{"id": line.id, "text": line.text, "category": line.category}
                          for line in numbered.active()],
                "waiting_for_ok": [{"id": line.id, "text": line.text, "category": line.proposed_for}
                                   for line in numbered.lines if line.category == PROPOSED]}

    def numbered(self) -> "ProfileDocument":
        """Every line with an id; ids are never handed out twice (``next_id`` only grows)."""
        next_id = max([self.next_id, *(line.id + 1 for line in self.lines)])
        lines = []
        for line in self.lines:
            if not line.id:
                line, next_id = replace(line, id=next_id), next_id + 1
            lines.append(line)
        return ProfileDocument(lines, next_id, dict(self.headings))


def parse(text: str) -> ProfileDocument:
    """A profile file's lines. Never fails: text that is not a line (a heading, a blank, a comment
    alone) is layout, and a broken comment leaves the line's words as written."""
    doc = ProfileDocument()
    category = "other"
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or _COMMENT_ONLY.match(stripped):
            if (found := re.search(r"next id (\d+)", stripped)) is not None:
                doc.next_id = max(doc.next_id, int(found.group(1)))
            continue
        if (heading := _HEADING.match(stripped)) is not None:
            if len(heading.group(1)) == 1:
                continue                                    # the title
            name = heading.group(2)
            category = _KNOWN.get(name.casefold(), name)
            doc.headings.setdefault(category, name)
            continue
        meta: dict = {}
        if (comment := _META.search(stripped)) is not None:
            try:
                meta = json.loads(comment.group(1))
                stripped = stripped[:comment.start()].rstrip()
            except ValueError:
                meta = {}
        words = _BULLET.sub("", stripped).strip()
        if words:
            doc.lines.append(_line(words, category, meta))
    return doc


def _line(text: str, category: str, meta: dict) -> ProfileLine:
    def get(key: str, kind: type, default):
        value = meta.get(key, default)
        return value if type(value) is kind else default

    return ProfileLine(text, category, id=max(0, get("id", int, 0)), slot=get("slot", str, ""),
                       importance=min(5, max(1, get("importance", int, 3))), source=get("source", str, ""),
                       by=get("by", str, "hand"), session=get("session", str, ""), message=get("message", int, 0),
                       added=get("added", str, ""), until=get("until", str, ""),
                       preference=get("preference", dict, {}), proposed_for=get("proposed_for", str, ""))


def render(doc: ProfileDocument, language: str = "en") -> str:
    """The file's text: known categories in their order, the person's own headings where they
    put them (after the known ones), proposals and history last."""
    names = HEADINGS.get(language, HEADINGS["en"])
    order = [c for c in CATEGORIES] + [c for c in doc.headings if c not in CATEGORIES and c not in (PROPOSED, EARLIER)]
    order += [c for line in doc.lines if (c := line.category) not in order and c not in (PROPOSED, EARLIER)]
    order += [PROPOSED, EARLIER]
    out = [f"# {TITLE.get(language, TITLE['en'])}", "",
           f"<!-- {PREAMBLE.get(language, PREAMBLE['en'])} (next id {doc.next_id}) -->"]
    for category in dict.fromkeys(order):
        lines = [line for line in doc.lines if line.category == category]
        if not lines:
            continue
        out += ["", f"## {doc.headings.get(category) or names.get(category, category)}", ""]
        out += [f"- {_one_line(line.text)} <!-- {json.dumps(line.meta(), ensure_ascii=False)} -->" for line in lines]
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    """A line's words on one line, with nothing that would read as a comment or a heading."""
    return " ".join(text.replace("<!--", "<! --").replace("-->", "-- >").split())
