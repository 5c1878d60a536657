"""lexical-v1: a rule-based violation judge for negation queries (registered as ``lexical-v1``).

ComLQ releases no violation labels, so LSNC needs a judge (``leaderboard.contract.judge``). This
one is a heuristic proxy: it reads the negated condition off the query and calls a passage a
violation when it mentions that condition's keywords. The rule:
1. Cue: the earliest negation cue in the query (longest at that position), from NEGATION_CUES.
2. Condition: the text after the cue up to the next clause boundary (, ; ? . ! or 'but', 'and how',
   'whereas', 'while').
3. Keywords: the condition's words of 3+ characters, lower-cased, minus English stopwords and
   GENERIC_WORDS, Snowball-stemmed.
4. A passage violates when it contains all keywords (1-2 keywords) or at least ceil(2n/3) of the n
   keywords (3 or more). The task never asks about passages judged relevant for the query.
Queries without a cue or without keywords get no label (None): they count against coverage.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

import Stemmer
from bm25s.stopwords import STOPWORDS_EN

from leaderboard.contract.judge import Judge, JudgeItem

NEGATION_CUES = (
    "but do not",
    "but does not",
    "but did not",
    "but are not",
    "but is not",
    "but was not",
    "but were not",
    "but has not",
    "but have not",
    "but never",
    "but not",
    "do not",
    "does not",
    "did not",
    "don't",
    "doesn't",
    "didn't",
    "are not",
    "is not",
    "was not",
    "were not",
    "has not",
    "have not",
    "cannot",
    "can not",
    "never",
    "not",
    "without",
    "excluding",
    "exclude",
    "except",
    "other than",
    "no longer",
    "avoid mentioning",
    "avoid",
    "apart from",
    "aside from",
    "none of",
    "nor",
)
GENERIC_WORDS = {
    "include",
    "includes",
    "included",
    "including",
    "involve",
    "involved",
    "involves",
    "part",
    "use",
    "used",
    "uses",
    "using",
    "related",
    "known",
    "found",
    "considered",
    "classified",
    "based",
    "directly",
    "responsible",
    "specific",
    "typical",
    "mention",
    "mentioning",
    "associated",
    "contain",
    "contains",
    "also",
    "any",
    "which",
    "who",
    "what",
    "their",
    "them",
    "they",
    "its",
    "have",
    "has",
    "had",
    "been",
    "being",
    # function words missing from bm25s' short English stopword list
    "from",
    "after",
    "before",
    "other",
    "others",
    "within",
    "without",
    "across",
    "into",
    "onto",
    "over",
    "under",
    "between",
    "through",
    "during",
    "about",
    "above",
    "below",
    "than",
    "then",
    "such",
    "more",
    "most",
    "some",
    "only",
    "same",
    "each",
    "both",
    "either",
    "neither",
    "there",
    "here",
    "where",
    "when",
    "whose",
    "whom",
    "this",
    "that",
    "these",
    "those",
    "currently",
    "single",
    "all",
    "very",
    "many",
    "much",
    "among",
}
_CUE_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(c) for c in sorted(NEGATION_CUES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_BOUNDARY_RE = re.compile(r"[,;?.!]|\bbut\b|\band how\b|\bwhereas\b|\bwhile\b", re.IGNORECASE)
_WORD_RE = re.compile(r"(?u)\b\w\w\w+\b")


class LexicalJudge(Judge):
    name = "lexical-v1"
    version = "1"
    batch_size = 1_000_000  # cheap: judge everything at once, save once
    RULE_METHODS = ("stems", "negated_condition", "needed", "keywords", "violates", "judge")

    def identity(self) -> dict[str, Any]:
        """The contract's identity plus ``rules_sha256``: a change to the rule's code, its lists or patterns, the
        stopwords it drops or the stemmer's release gives other labels, so it gives another cache key."""
        return {**super().identity(), "rules_sha256": self.rules_sha256()}

    def rules_sha256(self) -> str:
        rules = {
            "code": [inspect.getsource(getattr(type(self), name)) for name in self.RULE_METHODS],
            "cues": list(NEGATION_CUES),
            "generic_words": sorted(GENERIC_WORDS),
            "patterns": [_CUE_RE.pattern, _BOUNDARY_RE.pattern, _WORD_RE.pattern],
            "stopwords": sorted(STOPWORDS_EN),
            "stemmer": f"PyStemmer {version('PyStemmer')}, snowball english",
        }
        return hashlib.sha256(json.dumps(rules, sort_keys=True).encode("utf-8")).hexdigest()

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("english")
        self._stem_cache: dict[str, str] = {}
        self._keywords: dict[str, list[str]] = {}
        self._passages: dict[str, set[str]] = {}  # passage text -> stems: a passage recurs across queries

    def stems(self, text: str) -> set[str]:
        out = set()
        for word in _WORD_RE.findall(text.lower()):
            stem = self._stem_cache.get(word)
            if stem is None:
                stem = self._stem_cache[word] = self._stemmer.stemWord(word)
            out.add(stem)
        return out

    def negated_condition(self, query: str) -> tuple[str | None, str | None, list[str]]:
        """(cue, condition, keyword stems); (None, None, []) when the query has no negation cue."""
        cue = _CUE_RE.search(query)
        if cue is None:
            return None, None, []
        rest = query[cue.end() :]
        boundary = _BOUNDARY_RE.search(rest)
        condition = (rest[: boundary.start()] if boundary else rest).strip()
        words = [w for w in _WORD_RE.findall(condition.lower()) if w not in STOPWORDS_EN and w not in GENERIC_WORDS]
        keywords = sorted({self._stemmer.stemWord(w) for w in words})
        return cue.group(0).lower(), condition, keywords

    @staticmethod
    def needed(n_keywords: int) -> int:
        return n_keywords if n_keywords <= 2 else math.ceil(2 * n_keywords / 3)

    def keywords(self, query: str) -> list[str]:
        if query not in self._keywords:
            self._keywords[query] = self.negated_condition(query)[2]
        return self._keywords[query]

    def violates(self, query: str, passage: str) -> bool | None:
        keywords = self.keywords(query)
        if not keywords:
            return None
        stems = self._passages.get(passage)
        if stems is None:
            stems = self._passages[passage] = self.stems(passage)
        return len(stems.intersection(keywords)) >= self.needed(len(keywords))

    def judge(self, items: Sequence[JudgeItem]) -> list[bool | None]:
        return [self.violates(item.query, item.passage) for item in items]
