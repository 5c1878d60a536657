"""The judge contract: who decides that a retrieved passage violates a query's negation.

LSNC needs V(d), the number of violating passages in a top K. Where a dataset releases no
violation labels (ComLQ), a judge supplies them; every metric computed from a judge's labels
names the judge and its coverage.

A judge labels (query, passage) items. The task asks only for the items it needs (e.g. each
negation query's non-relevant passages in a run's top K) and keeps the labels in a cache keyed by
(data content hash, ``identity()``), so each item is judged once and the labels can be published.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from leaderboard.errors import BadInput


class JudgeUnavailable(BadInput):
    """The judge's service stopped answering (silence, deadline, retries spent): labels received so far are
    kept, the rest cannot be had now. The task's result is then incomplete, and the engine writes it only as a
    partial result when asked to (``leaderboard run --allow-partial``); otherwise the run exits 2 with this text."""


@dataclass(frozen=True)
class JudgeRequest:
    name: str  # the full name the user typed
    argument: str | None = None  # the part after a registered prefix ("llm:<argument>")
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class JudgeItem:
    query_id: str
    query: str
    doc_id: str
    passage: str


def prompt_sha256(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


class Judge(ABC):
    name: str  # appears in metric names, e.g. lsnc_lexical_v1_at_10, and wherever its labels are shown
    version: str = "1"  # bump whenever the same inputs could get different labels
    model: str | None = None  # the model behind the judge (LLM judges)
    prompt: str | None = None  # the exact prompt (template) the model receives
    batch_size: int = 64  # items per judge() call; the labels are saved after each call

    def identity(self) -> dict[str, Any]:
        """What determines the labels: name, version, model and the prompt's sha256 (the cache key's judge part)."""
        return {
            "name": self.name,
            "version": self.version,
            "model": self.model,
            "prompt_sha256": prompt_sha256(self.prompt) if self.prompt is not None else None,
        }

    def describe(self) -> dict[str, Any]:
        """What a result records about the judge: the identity, the prompt itself and any settings (endpoint,
        temperature). Never a secret."""
        out = self.identity()
        if self.prompt is not None:
            out["prompt"] = self.prompt
        return out

    @abstractmethod
    def judge(self, items: Sequence[JudgeItem]) -> list[bool | None]:
        """Label whether each document violates its query's constraint.

        Args:
            items: At most ``batch_size`` items of one call.

        Returns:
            One label per item: True violates, False does not, None when the judge cannot tell.
        """
