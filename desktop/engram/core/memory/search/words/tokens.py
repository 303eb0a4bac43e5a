"""Text for the FTS5 word index, and queries against it, in any language.

FTS5's unicode61 tokenizer keeps a run of letters as one token whatever their script, so
"Bart在圣诞节晚会上跳舞" would be the single word "bart在圣诞节晚会上跳舞" and no query would find
it. We cut text into runs of one script each (Han, Kana, Hangul, other letters, digits), index
Chinese, Japanese and Korean runs as overlapping bigrams (as Lucene's CJK analyzer does) and
split queries the same way; other runs are words, which unicode61 with the Porter stemmer
handles. Traditional Chinese is indexed and searched as Simplified (OpenCC's t2s), so 記憶 and
记忆 find each other; full-width letters and digits are folded to plain ones (NFKC).

BM25 costs a few µs for every document that holds any query term, and a term held by many
documents ("go", "like") adds little to the ranking, so only documents holding one of the
query's rarer terms are ranked; they are still scored by every term (see ``match_terms``).
A long query (a pasted page, a question with chat history) keeps its rarest terms.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable

import opencc

HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
# One script per run; a word is letters of any other script (Latin, Cyrillic, Greek, ...).
_RUN = re.compile(rf"[{HAN}]+|[{_KANA}]+|[{_HANGUL}]+|\d+|[^\W\d_{HAN}{_KANA}{_HANGUL}]+")
CJK = HAN + _KANA + _HANGUL   # the characters of Chinese, Japanese and Korean (a regex class's inside)
_CJK_RUN = re.compile(rf"[{CJK}]+")
_HAN_CHAR = re.compile(rf"[{HAN}]")
MAX_QUERY_TERMS = 64       # the rarest terms a query searches with
MAX_COUNTED_TERMS = 256    # the terms whose rarity is counted (~0.05 ms each): a pasted page's longest

# Question words that carry no topic, and the letters English contractions leave alone ("Caroline's"
# → caroline s, "hadn't" → hadn t, "I'll" → i ll: "s" is in 40% of chat messages); dropped from
# queries unless nothing else is left.
STOPWORDS = frozenset("""
a an and are as at be been but by can could did do does for from had has have how i if in is it
its me my of on or our should so than that the their them then there these they this to was we
were what when where which who whom why will with would you your yours am any some about into
s t d ll m re ve
""".split())

# Chinese function words: the pronoun-verb openings of requests ("帮我…", "给我推荐…"), question
# words and sentence-final particles, the CJK analogue of the stopwords above. A query's Han run
# is cut at them, so neither they nor the bigrams that straddle them (有什么 → 有什, 么建) match a memory by words:
# "帮我" is in most requests, and matching it ranked any request above the fact a question is about.
# Dropped from queries only (documents keep every bigram), unless nothing else is left.
CJK_STOPWORDS = frozenset("""
我的 你的 他的 她的 我们 你们 我是 我有 我想 我要 我这 帮我 给我 请问 麻烦 可以 能不 一下 一个 一些 这个 那个
什么 怎么 怎样 如何 哪些 哪个 哪里 哪儿 为什 多少 是不 有没 有什 推荐 建议 比较 应该 需要 还是 或者
""".split())
_CJK_PARTICLES = "吗吧呢啊呀嘛"   # sentence-final particles, cut at as well (cutting at 的 too lost
                                 # MemDaily recall: 的 is also inside words, 目的, 的确)
_CJK_FUNCTION = re.compile("|".join(sorted(CJK_STOPWORDS, key=len, reverse=True)) + f"|[{_CJK_PARTICLES}]")

# A term is common when more than this many documents, and more than this share of all, hold
# it: ranking 1,000 documents costs a millisecond or two, and LoCoMo questions asked among 100k
# other memories lose no recall when only terms in at most 1% of documents find candidates
# (0.5% begins to lose some).
COMMON_AT_LEAST = 1000
COMMON_SHARE = 0.01

_converter: opencc.OpenCC | None = None
_converter_made = threading.Lock()


def simplified(text: str) -> str:
    """``text`` with Traditional Chinese written as Simplified (OpenCC t2s, phrase by phrase, so
    乾燥 becomes 干燥 but 乾隆 stays); text without Han characters is returned as it is."""
    global _converter
    if not _HAN_CHAR.search(text):
        return text
    with _converter_made:
        if _converter is None:
            _converter = opencc.OpenCC("t2s")
    return _converter.convert(text)


def _cjk_grams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def _terms(text: str, cut: re.Pattern | None = None) -> list[str]:
    """The terms of ``text``; CJK runs cut first at what ``cut`` matches (those parts dropped, and
    so is a lone character the cut leaves, which would otherwise match every bigram it begins)."""
    terms: list[str] = []
    for run in _RUN.findall(simplified(unicodedata.normalize("NFKC", text))):
        if not _CJK_RUN.fullmatch(run):
            terms.append(run.lower())
        elif cut is None or not cut.search(run):
            terms.extend(_cjk_grams(run))
        else:
            terms.extend(gram for piece in cut.split(run) if len(piece) > 1 for gram in _cjk_grams(piece))
    return terms


def index_terms(text: str) -> str:
    """The body stored in FTS5 for ``text``."""
    return " ".join(_terms(text))


def query_terms(text: str) -> list[str]:
    """The query's distinct terms, without stopwords (English) or function words (Chinese) unless
    there is nothing else."""
    topical = [t for t in dict.fromkeys(_terms(text, _CJK_FUNCTION)) if t not in STOPWORDS]
    return topical or list(dict.fromkeys(_terms(text)))


def is_prefix(term: str) -> bool:
    """Whether a query term also finds the terms it begins: a lone Chinese, Japanese or Korean
    character finds the bigrams it begins."""
    return len(term) == 1 and _CJK_RUN.fullmatch(term) is not None


def phrase(term: str) -> str:
    """``term`` as an FTS5 phrase (quoted, so no term is read as FTS5 syntax), a prefix one when
    ``is_prefix``."""
    return '"' + term.replace('"', '""') + '"' + ("*" if is_prefix(term) else "")


def any_of(terms: list[str]) -> str:
    """An FTS5 expression matching any of ``terms``."""
    return " OR ".join(phrase(t) for t in terms)


def match_terms(text: str, documents_with: Callable[[str, int], int], documents: int) -> list[tuple[list[str], list[str]]]:
    """The query's terms as (rare, others) pairs, one for each search to make: the documents
    holding any of ``rare`` (and, when ``others`` is not empty, one of ``others`` too) are the ones
    to rank, each scored by all the pair's terms; a document's best score under them is its BM25
    score for all the query's terms.

    ``documents_with(term, at_most)`` counts the documents holding a term, stopping at
    ``at_most`` (-1: all); ``documents`` is how many there are. Terms no document holds are left
    out, and of the rest a long query keeps its ``MAX_QUERY_TERMS`` rarest (of its
    ``MAX_COUNTED_TERMS`` longest). The first pair finds the documents holding a rare term
    (or, when every term is common, the rarest); the second, which exists when some terms are
    common, finds those of them that also hold a common one. A document holding only common
    terms is not found.
    """
    terms = query_terms(text)
    if len(terms) < 2:
        return [(terms, [])] if terms else []
    if len(terms) > MAX_COUNTED_TERMS:   # longer words are rarer, in most languages
        longest = set(sorted(terms, key=len, reverse=True)[:MAX_COUNTED_TERMS])
        terms = [t for t in terms if t in longest]
    common = max(COMMON_AT_LEAST, int(documents * COMMON_SHARE))
    held = {t: documents_with(t, common + 1) for t in terms}
    kept = set(sorted((t for t in terms if held[t]), key=held.__getitem__)[:MAX_QUERY_TERMS])
    terms = [t for t in terms if t in kept]
    if not terms:
        return []
    rare = [t for t in terms if held[t] <= common]
    if not rare:
        rare = [min(terms, key=lambda t: documents_with(t, -1))]
    others = [t for t in terms if t not in rare]
    return [(rare, [])] + ([(rare, others)] if others else [])


def match_queries(text: str, documents_with: Callable[[str, int], int], documents: int) -> list[str]:
    """FTS5 MATCH expressions for ``text``, one for each pair of ``match_terms``; here
    ``documents_with`` counts the documents matching a phrase."""
    return [f"({any_of(rare)}) AND ({any_of(others)})" if others else any_of(rare)
            for rare, others in match_terms(text, lambda term, at_most: documents_with(phrase(term), at_most),
                                            documents)]
