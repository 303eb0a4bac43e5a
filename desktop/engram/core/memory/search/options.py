"""What a search is asked (``SearchOptions``) and what it answers (``SearchResult`` of
``SearchHit``s): the words every part of search, and everything that searches, shares. Defined
apart from the parts that use them, so that words/ and vectors/ below fusion and the searcher
above it can all name them without an import circle."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from engram.core.errors import InvalidInput
from engram.core.memory.records import Memory, moment_of, now_iso, parse_kind

Mode = Literal["hybrid", "words", "meaning"]
MODES: tuple[str, ...] = ("hybrid", "words", "meaning")
Fusion = Literal["scores", "rrf"]
FUSIONS: tuple[str, ...] = ("scores", "rrf")


@dataclass(frozen=True)
class SearchOptions:
    mode: Mode = "hybrid"
    k: int = 3                       # results returned (MAF default 3)
    threshold: float = 0.0           # minimum cosine similarity for a meaning candidate (and, when
                                     # above 0, no neighbouring turn joins without its own match)
    fusion: Fusion = "scores"
    words_weight: float = 1.0
    meaning_weight: float = 1.0
    rrf_k: int = 60                  # only for fusion "rrf"
    candidates: int = 50             # best word matches taken before fusion
    meaning_candidates: int = 200    # nearest vectors taken before fusion
    centre_meaning: bool = True      # similarity measured from the candidates' mean (neighbourhood.py)
    kinds: tuple[str, ...] = ()      # empty: every kind
    include_superseded: bool = False
    neighbour_weight: float = 0.3    # share of the previous and next message's score a message earns
    answer_weight: float = 0.9       # share of a question's score the other party's next message rises to
    session_weight: float = 0.3      # share of the best score in its session a memory earns
    context_candidates: int = 100    # best fused candidates whose neighbouring turns share their score
    key_weight: float = 1.0          # share of a distilled note's score the messages it came from earn
    coverage_weight: float = 1.0     # BM25 is divided by the larger of the best score and this share of the
                                     # query's ideal score (coverage.py); 0: by the best score alone
    absent_weight: float = 1.0       # in the ideal, a query term no memory holds counts this share of the
                                     # IDF of a term one memory holds (coverage.py); 0: left out
    # Standing (see rank): what each feature adds to 1 at its fullest, the relevance's multiplier.
    # No benchmark holds importance, pins or recalls, so those weights are a judgement: enough to
    # order near-equal matches. Recency was measured: 0.1 halving every 30 days cost LoCoMo 0.005
    # recall@5 (with notes; its questions ask about every session alike) and lost one of the 24
    # Chinese zero-overlap cases; 0.05 over 90 days loses neither and still puts the newer of two
    # like messages first (where no distilled note marks the older one as out of date).
    importance_weight: float = 0.2   # importance 1 adds it, 0 takes it away, 0.5 (the default) neither
    pinned_weight: float = 0.3
    recency_weight: float = 0.05
    recency_half_life_days: float = 90.0   # Settings.recency_half_life_days; also how fast heat cools
    heat_weight: float = 0.1
    timeframe_weight: float = 2.0    # more relevance for a memory said in a time the query names (timeframe.py)
    history_weight: float = 0.5      # share of its score a superseded or expired memory keeps (history only)
    rerank_candidates: int = 20      # best fused candidates a reranker reorders, when one is installed
                                     # (reranking.py; at least k); 0: none, even with a reranker
    now: str | None = None           # the moment recency and validity are measured at (ISO; None: now)

    def __post_init__(self):
        if self.rerank_candidates < 0:
            raise InvalidInput("rerank_candidates must be 0 or more")
        if self.mode not in MODES:
            raise InvalidInput(f"unknown search mode {self.mode!r}", hint="use hybrid, words or meaning")
        if self.fusion not in FUSIONS:
            raise InvalidInput(f"unknown fusion {self.fusion!r}", hint="use scores or rrf")
        if self.k < 1:
            raise InvalidInput("k must be at least 1")
        if self.recency_half_life_days <= 0:
            raise InvalidInput("the recency half-life must be more than 0 days")
        if self.now is not None:
            try:   # one spelling, so that it compares with the stored times as text
                object.__setattr__(self, "now", _iso(moment_of(self.now)))
            except (TypeError, ValueError):
                raise InvalidInput(f"{self.now!r} is not a moment",
                                   hint="write it as ISO 8601, e.g. 2024-05-01T12:00:00Z") from None
        object.__setattr__(self, "kinds", tuple(parse_kind(kind).value for kind in self.kinds))

    @property
    def moment(self) -> str:
        """The moment recency and validity are measured at."""
        return self.now or now_iso()


@dataclass(frozen=True)
class SearchHit:
    memory: Memory
    score: float                      # what the hits are ordered by: the reranker's when it read this hit,
                                      # else fused (1.0 = first on every side that ran)
    similarity: float | None = None   # when the meaning side found it: cosine similarity measured from
                                      # its neighbourhood's middle (neighbourhood.py)
    words_rank: int | None = None
    meaning_rank: int | None = None
    rerank_score: float | None = None  # the reranker's, 0 to 1, when it read this one (then also ``score``)


@dataclass
class SearchResult:
    hits: list[SearchHit]
    embed_ms: float = 0.0
    search_ms: float = 0.0
    notes: list[str] = field(default_factory=list)   # e.g. why meaning was not used
    reranker: str = ""                # the reranker that reordered the best candidates; empty: none did
    rerank_ms: float = 0.0


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
