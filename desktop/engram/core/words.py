"""Text for the FTS5 word index, and queries against it, in any language.

FTS5's unicode61 tokenizer keeps a run of Chinese or Japanese characters as one token, so
"花生" would never match "我对花生过敏". We index such runs as overlapping bigrams (as Lucene's
CJK analyzer does) and split queries the same way; other text passes through unchanged and
unicode61 with the Porter stemmer handles it.
"""

from __future__ import annotations

import re

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_CJK_RUN = re.compile(rf"[{_CJK}]+")
MAX_QUERY_TERMS = 64

# Question words that carry no topic; dropped from queries unless nothing else is left.
STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in is it
its me my of on or our should so than that the their them then there these they this to was we
were what when where which who whom why will with would you your yours am any some about into
""".split())


def _cjk_grams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def _terms(text: str) -> list[str]:
    terms: list[str] = []
    for token in _TOKEN.findall(text):
        terms.extend(_cjk_grams(token) if _CJK_RUN.fullmatch(token) else [token.lower()])
    return terms


def index_text(text: str) -> str:
    """The body stored in FTS5 for ``text``."""
    return " ".join(_terms(text))


def match_query(text: str) -> str | None:
    """An FTS5 MATCH expression that finds any of the query's terms (BM25 ranks them), or None."""
    terms = list(dict.fromkeys(_terms(text)))
    topical = [t for t in terms if t not in STOPWORDS]
    chosen = (topical or terms)[:MAX_QUERY_TERMS]
    if not chosen:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' + ("*" if len(t) == 1 and _CJK_RUN.fullmatch(t) else "")
                       for t in chosen)
