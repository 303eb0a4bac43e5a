"""Text for the FTS5 word index, and queries against it, in any language.

FTS5's unicode61 tokenizer keeps a run of Chinese or Japanese characters as one token, so
"花生" would never match "我对花生过敏". We index such runs as overlapping bigrams (as Lucene's
CJK analyzer does) and split queries the same way; other text passes through unchanged and
unicode61 with the Porter stemmer handles it.

BM25 costs a few µs for every document that holds any query term, and a term held by many
documents ("go", "like") adds little to the ranking, so only documents holding one of the
query's rarer terms are ranked; they are still scored by every term (see ``match_queries``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_CJK_RUN = re.compile(rf"[{_CJK}]+")
MAX_QUERY_TERMS = 64

# Question words that carry no topic, and the letters English contractions leave alone ("Caroline's"
# → caroline s, "hadn't" → hadn t, "I'll" → i ll: "s" is in 40% of chat messages); dropped from
# queries unless nothing else is left.
STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in is it
its me my of on or our should so than that the their them then there these they this to was we
were what when where which who whom why will with would you your yours am any some about into
s t d ll m re ve
""".split())

# A term is common when more than this many documents, and more than this share of all, hold
# it: ranking 1,000 documents costs a millisecond or two, and LoCoMo questions asked among 100k
# other memories lose no recall when only terms in at most 1% of documents find candidates
# (0.5% begins to lose some).
COMMON_AT_LEAST = 1000
COMMON_SHARE = 0.01


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


def query_terms(text: str) -> list[str]:
    """The query's distinct terms, without stopwords unless there is nothing else."""
    terms = list(dict.fromkeys(_terms(text)))
    topical = [t for t in terms if t not in STOPWORDS]
    return (topical or terms)[:MAX_QUERY_TERMS]


def phrase(term: str) -> str:
    """``term`` as an FTS5 phrase (quoted, so no term is read as FTS5 syntax)."""
    return '"' + term.replace('"', '""') + '"' + ("*" if len(term) == 1 and _CJK_RUN.fullmatch(term) else "")


def any_of(terms: list[str]) -> str:
    """An FTS5 expression matching any of ``terms``."""
    return " OR ".join(phrase(t) for t in terms)


def match_queries(text: str, documents_with: Callable[[str, int], int], documents: int) -> list[str]:
    """FTS5 MATCH expressions for ``text``: the documents they find are the ones to rank, and the
    higher of a document's BM25 scores under them is its BM25 score for all the query's terms.

    ``documents_with(phrase, at_most)`` counts the documents holding a phrase, stopping at
    ``at_most`` (-1: all); ``documents`` is how many there are. The first expression finds the
    documents holding a rare term (or, when every term is common, the rarest); the second,
    which exists when some terms are common, finds those of them that also hold a common one
    and scores them by every term. A document holding only common terms is not found.
    """
    terms = query_terms(text)
    if len(terms) < 2:
        return [any_of(terms)] if terms else []
    common = max(COMMON_AT_LEAST, int(documents * COMMON_SHARE))
    rare = [t for t in terms if documents_with(phrase(t), common + 1) <= common]
    if not rare:
        rare = [min(terms, key=lambda t: documents_with(phrase(t), -1))]
    others = [t for t in terms if t not in rare]
    return [any_of(rare)] + ([f"({any_of(rare)}) AND ({any_of(others)})"] if others else [])
