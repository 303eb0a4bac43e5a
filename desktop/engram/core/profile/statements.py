"""What in a message the person states about themself, clause by clause.

Only the person's own words in plain statements teach the profile: code, quoted lines (">"), text
in quotation marks, material handed over for a job ("Translate this: ...") and long pasted
passages are somebody else's words; questions, hypotheticals ("if I were ...", 如果...), plans and
role play, and jokes state nothing. A clause that starts one of those leaves the rest of its
sentence out too ("If I were allergic to peanuts, what would I eat?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.core.memory.search.words.tokens import HAN, simplified

PASTED_CHARS = 400          # a paragraph this long was pasted, not typed as a remark about oneself
PASTED_HAN = 150            # ... or this many Chinese characters

_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”]*”|「[^」]*」|『[^』]*』|«[^»]*»|‘[^‘’]*’"
                     r"|(?<!\w)'(?=\S)(?:[^'\n]|'(?=\w))*'(?!\w)")
# "Translate this into French: ...", "她发消息说：...": what follows the colon is handed-over text.
_HANDED_OVER = re.compile(
    r"(?:\b(?:translate|proofread|fix|correct|summari[sz]e|rewrite|rephrase|check|edit|improve|polish|paraphrase"
    r"|shorten|says?|said|wrote|writes|texted|messaged|told me|asked|goes|reads|following|this|these)\b"
    r"|翻译|改|总结|概括|润色|检查|说|写着|写道|一句|这段|这句|如下|以下|比如|例如)[^.!?。！？:：\n]*[:：]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？!?；;])|\n+")
_CLAUSE_END = re.compile(r"\s*(?:[，；：（）()]|[,;](?!\d)|:(?=\s))\s*|\s+[-–—]+\s+|\s+(?=(?:and|but|so|because|though|although|while)\s+(?:I|i|I'm|i'm|my|we)\b)")

_EN_FILLER = re.compile(
    r"^(?:(?:ok|okay|so|well|also|and|but|oh|btw|by the way|fyi|just so you know|heads up|for the record|for context"
    r"|fwiw|actually|honestly|hi|hey|hello|yeah|yes|um|anyway|plus|since you asked|now|as you know|remember|note that"
    r"|just|though|because)\b[\s,:!.-]*)+", re.IGNORECASE)
_ZH_FILLER = re.compile(r"^(?:(?:对了|顺便说一下|顺便说下|顺便|说一下|告诉你|跟你说|我跟你说|嗯|哦|噢|其实|另外|还有|补充一下"
                        r"|是的|然后|而且|所以|不过|但是|现在|目前|话说)[，,]?)+")

_EN_QUESTION = re.compile(
    r"[?？]|^(?:what|what's|where|when|who|whose|which|why|how|do|does|did|is|are|was|were|am|have|has|had|can"
    r"|could|will|would|should|shall|may|might|must|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|can't"
    r"|couldn't|shouldn't|tell me|guess)\b", re.IGNORECASE)
_ZH_QUESTION = re.compile(r"[?？]|[吗么呢吧][。！!]*$|什么|哪|谁|几[号点个岁时月天]|多少|是不是|该不该|要不要|能不能|会不会"
                          r"|可不可以|有没有|怎么|为什么|如何|啥|来着")
_EN_UNREAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|pretend|pretending|what if|let's say|lets say|in case|unless|wish|might|maybe"
    r"|perhaps|probably|would|could|should|thinking about|thinking of|considering|planning to|plan to|going to"
    r"|want to|wanna|hoping to|hope to|role ?play|roleplay|my character|in (?:the|my|this|a) (?:story|novel|game|book|dream|movie)"
    r"|dreamt|dreamed)\b", re.IGNORECASE)
_ZH_UNREAL = re.compile(r"如果|假如|要是|假设|万一|倘若|若是|的话|考虑|可能|也许|或许|大概|想|打算|准备|希望|但愿|梦见|梦到|做梦"
                        r"|扮演|假装|小说|故事|角色|游戏里|以为|好像")
_JOKE = re.compile(r"\b(?:haha+|lol|lmao|jk|kidding)\b|哈哈|😂|🤣|😆", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    """One clause of the person's own words, as written (``text``, the evidence) and as the rules
    read it (``said``: fillers off, Chinese as Simplified)."""

    text: str
    said: str
    chinese: bool


def own_words(message: str) -> str:
    """``message`` without the words that are not the person's own: code, quoted lines, text in
    quotation marks, what follows "Translate this:" and the like, and long pasted paragraphs."""
    kept = []
    for paragraph in re.split(r"\n\s*\n", _CODE.sub(" ", message)):
        lines = [line for line in paragraph.splitlines()
                 if not line.lstrip().startswith(">") and not line.startswith(("    ", "\t"))]
        paragraph = _QUOTED.sub("…", "\n".join(lines))
        handed = _HANDED_OVER.search(paragraph)
        if handed:
            paragraph = paragraph[:handed.start()]
        if len(paragraph) > PASTED_CHARS or len(re.findall(f"[{HAN}]", paragraph)) > PASTED_HAN:
            continue
        kept.append(paragraph)
    return "\n".join(kept)


def statements(message: str) -> list[list[Clause]]:
    """The sentences of ``message`` that state something, each as its clauses that state it."""
    found = []
    for sentence in _SENTENCE_END.split(own_words(message)):
        if not sentence.strip() or _JOKE.search(sentence):
            continue
        clauses = []
        for part in _CLAUSE_END.split(sentence):
            part = part.strip(" \t.!。！…~")
            if not part:
                continue
            chinese = bool(re.search(f"[{HAN}]", part))
            said = _ZH_FILLER.sub("", simplified(part)) if chinese else _EN_FILLER.sub("", part)
            if (_ZH_UNREAL if chinese else _EN_UNREAL).search(said):
                break                       # a hypothetical or a plan: nothing from here to the sentence's end
            if said and not (_ZH_QUESTION if chinese else _EN_QUESTION).search(said):
                clauses.append(Clause(part, said, chinese))
        if clauses:
            found.append(clauses)
    return found


def sentences(message: str) -> list[str]:
    """The person's own sentences, questions and all (a request to reply differently is often one)."""
    return [s.strip() for s in _SENTENCE_END.split(own_words(message)) if s.strip() and not _JOKE.search(s)]
