"""The judge contract: who decides that a retrieved passage violates a query's negation.

LSNC needs V(d), the number of violating passages in a top K. Where a dataset releases no
violation labels (ComLQ), a judge supplies them; every metric computed from a judge's labels
names the judge and its coverage.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


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


class Judge(ABC):
    name: str  # appears in metric names, e.g. lsnc_lexical_v1_at_10

    def describe(self) -> dict[str, Any]:
        """Everything that can change the labels (model, endpoint, prompt hash, temperature)."""
        return {"name": self.name}

    @abstractmethod
    def judge(self, items: Sequence[JudgeItem]) -> list[bool | None]:
        """One label per item: True violates, False does not, None when the judge cannot tell."""
