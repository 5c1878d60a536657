"""Two-stage pipelines: a first-stage retriever, then a reranker on its top-k.

Syntax (anywhere a model name is accepted):
    "bm25 >> ce:cross-encoder/ms-marco-MiniLM-L6-v2"       rerank the top 100 (default)
    "bm25 >>20 ce:cross-encoder/ms-marco-MiniLM-L6-v2"     rerank the top 20
From Python, ``leaderboard.Pipeline(first_stage, reranker, depth=20)`` of any two model objects.
The first stage's run is computed once per task and run, and reused by every pipeline that
shares it (e.g. one BM25 run feeding two rerankers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from leaderboard.contract.model import Model, ModelKind, ModelMetadata, Reranker, Run, kind_of
from leaderboard.errors import BadInput

DEFAULT_DEPTH = 100
_ARROW = re.compile(r"\s*>>(\d*)\s*")
_SPACED_DEPTH = re.compile(r"(\d+)\s+(\S.*)")


@dataclass(frozen=True)
class PipelineSpec:
    first: str
    reranker: str
    depth: int


def parse(spec: str) -> PipelineSpec | None:
    parts = _ARROW.split(spec)
    if len(parts) == 1:
        return None
    if len(parts) != 3 or not parts[0].strip() or not parts[2].strip():
        raise BadInput(
            f"Model {spec!r}: a pipeline is 'FIRST >> RERANKER' or 'FIRST >>K RERANKER' (one stage of reranking), "
            'e.g. "bm25 >>50 ce:<model>".'
        )
    spaced = _SPACED_DEPTH.match(parts[2])
    if not parts[1] and spaced:  # "bm25 >> 20 ce:x": a depth written apart from its arrow
        first, depth_text, reranker = parts[0].strip(), spaced[1], spaced[2]
        raise BadInput(
            f"Model {spec!r}: the reranker {parts[2].strip()!r} starts with a number; a rerank depth goes right "
            f'after the arrow: "{first} >>{depth_text} {reranker}".'
        )
    depth = int(parts[1]) if parts[1] else DEFAULT_DEPTH
    if depth < 1:
        raise BadInput(f"Model {spec!r}: the rerank depth after '>>' must be at least 1.")
    return PipelineSpec(parts[0].strip(), parts[2].strip(), depth)


@dataclass
class FirstStageRuns:
    """First-stage runs of this invocation, keyed by (first-stage model, task, data hash, depth)."""

    runs: dict[tuple[Any, ...], Run] = field(default_factory=dict)
    computed: int = 0
    reused: int = 0

    def get(self, key: tuple[Any, ...], compute: Callable[[], Run]) -> tuple[Run, bool]:
        if key in self.runs:
            self.reused += 1
            return self.runs[key], True
        self.computed += 1
        self.runs[key] = compute()
        return self.runs[key], False

    def absorb(self, other: FirstStageRuns, known: set[tuple[Any, ...]]) -> None:
        """Take in what a run elsewhere (a Ray job) did with a copy of these runs (keys ``known`` then)."""
        self.runs.update({key: run for key, run in other.runs.items() if key not in known})
        self.computed += other.computed
        self.reused += other.reused


class Pipeline(Model):
    """A first-stage retriever, then a reranker on its top ``depth`` documents: ``Pipeline(bm25, ce, depth=20)``.

    Any model objects will do (no plugin needs to be installed); the CLI's ``"bm25 >>20 ce:<model>"``
    builds the same object from two registered names.

    Args:
        first_stage: The retriever: a dense or sparse model.
        reranker: The reranker, which scores the first stage's top documents again.
        depth: How many of each query's top documents the reranker scores (100 by default).
        labels: The two stages' names in messages (default: their metadata names).

    Raises:
        BadInput: ``depth`` is not a whole number of at least 1, or a stage is of the wrong kind.
    """

    def __init__(
        self,
        first_stage: Model,
        reranker: Model,
        depth: int = DEFAULT_DEPTH,
        *,
        labels: tuple[str, str] | None = None,
    ):
        first_label, reranker_label = labels or (_name(first_stage), _name(reranker))
        spec = PipelineSpec(first_label, reranker_label, depth)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise BadInput(
                f"Pipeline {first_label} >> {reranker_label}: depth must be a whole number >= 1, not {depth!r}."
            )
        for role, stage in (("first stage", first_stage), ("reranker", reranker)):
            if not isinstance(stage, Model):
                raise BadInput(
                    f"Pipeline {first_label} >> {reranker_label}: the {role} must be a leaderboard.Model, "
                    f"not {type(stage).__name__}."
                )
        if not isinstance(reranker, Reranker):
            kind = kind_of(reranker)
            raise BadInput(
                f"Pipeline {spec.first} >> {spec.reranker}: the second stage must be a reranker, but "
                f"{spec.reranker!r} is a {kind.value if kind else type(reranker).__name__} model."
            )
        if isinstance(first_stage, Reranker):
            raise BadInput(
                f"Pipeline {spec.first} >> {spec.reranker}: the first stage must be a retriever, but "
                f"{spec.first!r} is a reranker."
            )
        self.spec, self.first, self.reranker = spec, first_stage, reranker
        f, r = first_stage.metadata, reranker.metadata
        self.metadata = ModelMetadata(
            name=f"{f.name} >>{spec.depth} {r.name}",
            kind=ModelKind.PIPELINE,
            revision=f"{f.revision or 'none'}+{r.revision or 'none'}",
            n_parameters=(f.n_parameters or 0) + (r.n_parameters or 0) or None,
            max_length=r.max_length,
            similarity=r.similarity,
            takes_instructions=r.takes_instructions,
            instruction_template=r.instruction_template,
            query_prompt=r.query_prompt,
            document_prompt=r.document_prompt,
            license=r.license,
            dtype=r.dtype,
        )

    def load(self) -> None:
        """Both stages' weights; the pipeline runs in the reranker's dtype (the first stage's is in components)."""
        self.first.load()
        self.reranker.load()
        self.metadata.dtype = self.reranker.metadata.dtype
        self.metadata.n_parameters = (self.first.metadata.n_parameters or 0) + (
            self.reranker.metadata.n_parameters or 0
        ) or None

    def settings(self) -> dict[str, Any]:
        return {
            "depth": self.spec.depth,
            "first_stage": {
                "name": self.first.metadata.name,
                "revision": self.first.metadata.revision,
                "settings": self.first.settings(),
            },
            "reranker": {
                "name": self.reranker.metadata.name,
                "revision": self.reranker.metadata.revision,
                "settings": self.reranker.settings(),
            },
        }


def _name(model: object) -> str:
    metadata = getattr(model, "metadata", None)
    return str(getattr(metadata, "name", None) or type(model).__name__)
