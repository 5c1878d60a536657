"""The plugin contract, checked where a plugin answers: a mistake is named where it is made.

* A task's ``load()``: as it returns, before any model loads (``check_data``).
* A task's ``compute_scores()``: first on a stand-in run of its first two queries (or candidate
  sets), before any model loads, for the report's shape (``dry_score``); then as the real report
  returns, before anything is derived from it (``check_report``). An external task's
  ``evaluate_model()`` as it returns.
* A model's output: each batch of vectors or scores as it returns, the first one included
  (``check_vectors``, ``check_scores``); a search's query ids, and its first rankings' documents and
  scores (``check_run``: a corpus on disk costs a read per document looked up).

Each failure is one ``BadInput`` line: the plugin, the method, the field, what was expected and an
example. The shapes and rules are the result record's own (``records.result``: its source model and
its score, interval and size types), validated by pydantic, so what passes here is what a result
file holds; the reader's check of the written record (``records.reader``) stays the final word on
what needs the whole record (scores against their per-query values, values inside a metric's range).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from leaderboard.contract.task import (
    CandidateData,
    CandidateTask,
    ExternalData,
    ExternalTask,
    RetrievalData,
    RetrievalTask,
    ScoreReport,
    Task,
)
from leaderboard.errors import BadInput, shorten

if TYPE_CHECKING:
    import numpy as np
    from pydantic import BaseModel

    from leaderboard.contract.model import Model

SHA256_EXAMPLE = 'content_hash="sha256:" + hashlib.sha256(what_was_loaded).hexdigest()'
DATA_EXAMPLES = {
    "source": f'DataSource("local", "path/to/data", {SHA256_EXAMPLE})',
    "corpus": '{"d1": "the document text"} (document id -> text)',
    "queries": '{"q1": "the query text"} (query id -> text)',
    "qrels": '{"q1": {"d1": 1}} (query id -> document id -> graded relevance)',
    "sets": '[CandidateSet("set-1", "the query", ["candidate one", "candidate two"])]',
    "query_instructions": '{"q1": "the instruction for q1"}',
}
DATA_CLASSES = {RetrievalTask: RetrievalData, CandidateTask: CandidateData, ExternalTask: ExternalData}
RANKINGS_READ = 10  # a search's rankings whose documents are looked up in the corpus
RETURN_A_REPORT = (
    "return ScoreReport(scores, per_query={query id: {metric: value}}) (leaderboard.ScoreReport): the per-query "
    "values are the numbers behind every score's interval and paired test"
)
PROBE_QUERIES = 2  # the stand-in run's size: enough to see the report's shape, too few to cost anything


def _report_examples(split: str, metric: str) -> dict[str, str]:
    return {
        "scores": f'{{"{split}": {{"default": {{"{metric}": 0.5}}}}}} (split -> subset -> metric -> value)',
        "per_query": f'{{"q1": {{"{metric}": 0.5}}}} (query id -> metric -> value)',
        "confidence_intervals": f'{{"{split}": {{"default": {{"{metric}": [0.4, 0.6]}}}}}} (low, high)',
        "subset_sizes": f'{{"{split}": {{"default": 120}}}} (split -> subset -> queries)',
        "subset_queries": '{"type=2in": ["q1", "q7"]} (subset -> the ids of its queries)',
        "metric_queries": f'{{"{metric}": ["q1", "q7"]}} (metric -> the ids of the queries it is computed on)',
        "macro_over": '["Books", "Movies"] (the subsets the "default" score is a mean of)',
        "details": '{"judge": "lexical-v1"}',
        "incomplete": '"the judge stopped answering" (or None)',
    }


# -- the models: the result record's own types ----------------------------------------------------------
@functools.cache
def _data_model(kind: str) -> type[BaseModel]:
    """A pydantic model of what ``load()`` returns, the source as a result records it (``records.result.Source``)."""
    from pydantic import ConfigDict, create_model

    from leaderboard.records.result import Source

    fields: dict[str, Any] = {"source": (Source, ...)}
    if kind == "retrieval":
        fields |= {
            "queries": (dict[str, str], ...),
            "qrels": (dict[str, dict[str, int]], ...),
            "query_instructions": (dict[str, str], {}),
        }
    config = ConfigDict(strict=False, extra="ignore", arbitrary_types_allowed=True)
    return create_model(f"{kind.capitalize()}Data", __config__=config, **fields)


@functools.cache
def _report_model(finite: bool) -> type[BaseModel]:
    """A pydantic model of a ``ScoreReport``: the result's score, interval and size types. Not ``finite``: the
    shape only (a stand-in run may give a metric no defined value)."""
    from pydantic import ConfigDict, create_model

    from leaderboard.records.result import Finite, IntervalTable, ScoreTable, SizeTable

    number: Any = Finite if finite else float
    fields: dict[str, Any] = {
        "scores": (ScoreTable if finite else dict[str, dict[str, dict[str, float]]], ...),
        "confidence_intervals": (IntervalTable if finite else dict[str, dict[str, dict[str, list[float]]]], {}),
        "subset_sizes": (SizeTable, {}),
        "details": (dict[str, Any], {}),
        "per_query": (dict[str, dict[str, number]], {}),
        "subset_queries": (dict[str, list[str]], {}),
        "metric_queries": (dict[str, list[str]], {}),
        "macro_over": (list[str], []),
        "incomplete": (str | None, None),
    }
    return create_model("ScoreReport", __config__=ConfigDict(extra="ignore"), **fields)


# -- the messages ---------------------------------------------------------------------------------------
def _path(loc: Sequence[Any]) -> str:
    """('per_query', 'q1', 'ndcg_at_10') -> "per_query['q1']['ndcg_at_10']"; ('source', 'uri') -> 'source.uri'."""
    head, *rest = loc
    text = str(head)
    for part in rest:
        text += f".{part}" if head == "source" else f"[{part!r}]"
    return text


def _shown(value: Any) -> str:
    if isinstance(value, Mapping | list | tuple | set):
        return f"a {type(value).__name__} ({shorten(repr(value), 60)})"
    return f"{shorten(repr(value), 60)} ({type(value).__name__})"


def _first_error(owner: str, what: str, exc: Any, examples: Mapping[str, str]) -> BadInput:
    """One line for pydantic's first error: where, the value, what it should be, an example of the field."""
    errors = exc.errors(include_url=False)
    error = errors[0]
    field = _path(error["loc"])
    expected = str(error["msg"]).replace("Input should be", "expected").replace("String should", "expected it to")
    if error["type"] == "missing":
        found, expected = "is missing", "expected it"
    else:
        found = f"is {_shown(error['input'])}"
    more = f" ({len(errors) - 1} more problem{'s' if len(errors) > 2 else ''} after it)" if len(errors) > 1 else ""
    example = examples.get(str(error["loc"][0]), "")
    return BadInput(
        f"{owner}: {what} whose {field} {found}; {expected}"
        + (f", e.g. {error['loc'][0]}={example}" if example else "")
        + more
    )


# -- tasks ------------------------------------------------------------------------------------------------
def check_data(task: Task, data: Any) -> None:
    """What ``load()`` returned: the kind of data the task's base class runs, with a source a result can record."""
    owner = f"task {task.metadata.name!r}"
    expected = next((cls for base, cls in DATA_CLASSES.items() if isinstance(task, base)), None)
    if expected is None:
        return  # not one of the three kinds: the runner says so by itself
    if not isinstance(data, expected):
        raise BadInput(
            f"{owner}: load() returned {_shown(data)}; expected a {expected.__name__} (leaderboard.{expected.__name__})"
        )
    _check_data_fields(owner, cast(RetrievalData | CandidateData | ExternalData, data))


def _check_data_fields(owner: str, data: RetrievalData | CandidateData | ExternalData) -> None:
    from pydantic import ValidationError

    kind = "retrieval" if isinstance(data, RetrievalData) else "data"
    fields = {f.name: getattr(data, f.name) for f in dataclasses.fields(data)}
    fields["source"] = vars(data.source) if dataclasses.is_dataclass(data.source) else data.source
    try:
        _data_model(kind).model_validate(fields)
    except ValidationError as exc:
        raise _first_error(owner, f"load() returned {type(data).__name__}", exc, DATA_EXAMPLES) from None
    if data.source.content_hash is None:
        raise BadInput(
            f"{owner}: load() returned {type(data).__name__} whose source.content_hash is None; expected the sha256 "
            f"of what was loaded, part of every result's identity, e.g. {SHA256_EXAMPLE}"
        )
    if isinstance(data, RetrievalData):
        _check_corpus(owner, data.corpus)
    if isinstance(data, CandidateData):
        _check_sets(owner, data.sets)


def _check_corpus(owner: str, corpus: Any) -> None:
    """A mapping of id -> text; its first entry is read (a corpus on disk is never read whole here)."""
    if not isinstance(corpus, Mapping):
        raise BadInput(
            f"{owner}: load() returned RetrievalData whose corpus is {_shown(corpus)}; expected a mapping, "
            f"e.g. corpus={DATA_EXAMPLES['corpus']}"
        )
    for doc_id, text in corpus.items():
        if not isinstance(doc_id, str) or not isinstance(text, str):
            raise BadInput(
                f"{owner}: load() returned RetrievalData whose corpus[{doc_id!r}] is {_shown(text)}; expected "
                f"a text under a string id, e.g. corpus={DATA_EXAMPLES['corpus']}"
            )
        break


def _check_sets(owner: str, sets: Any) -> None:
    from leaderboard.contract.task import CandidateSet

    if not isinstance(sets, list):
        raise BadInput(f"{owner}: load() returned CandidateData whose sets is {_shown(sets)}; expected a list")
    seen: set[str] = set()
    for i, candidate_set in enumerate(sets):
        ok = (
            isinstance(candidate_set, CandidateSet)
            and isinstance(candidate_set.key, str)
            and isinstance(candidate_set.query, str)
            and isinstance(candidate_set.candidates, list)
            and all(isinstance(text, str) for text in candidate_set.candidates)
        )
        if not ok:
            raise BadInput(
                f"{owner}: load() returned CandidateData whose sets[{i}] is {_shown(candidate_set)}; expected a "
                f"CandidateSet of a key, a query text and a list of candidate texts, e.g. sets={DATA_EXAMPLES['sets']}"
            )
        if candidate_set.key in seen:
            raise BadInput(
                f"{owner}: load() returned CandidateData whose sets[{i}].key {candidate_set.key!r} is used twice; "
                "expected a key unique within the task, e.g. 'Books/17/k3'"
            )
        seen.add(candidate_set.key)


def check_report(task: Task, report: object, *, method: str = "", finite: bool = True) -> ScoreReport:
    """What ``compute_scores()`` (``evaluate_model()``) returned: a ``ScoreReport`` of the result's shapes."""
    from pydantic import ValidationError

    meta = task.metadata
    method = method or ("evaluate_model()" if isinstance(task, ExternalTask) else "compute_scores()")
    owner = f"task {meta.name!r}"
    if not isinstance(report, ScoreReport):
        raise BadInput(f"{owner}: {method} returned {type(report).__name__}, not a ScoreReport; {RETURN_A_REPORT}")
    try:
        _report_model(finite).model_validate(vars(report))
    except ValidationError as exc:
        examples = _report_examples(meta.splits[0], meta.main_score)
        raise _first_error(owner, f"{method} returned a ScoreReport", exc, examples) from None
    return report


def dry_score(task: Task, data: Any) -> None:
    """``compute_scores()`` on a stand-in run of the first queries (no documents retrieved) or candidate sets
    (descending scores), for the report's shape, before any model runs. Only a report of the wrong shape
    stops the run: a task that cannot score a stand-in (it raises) is checked on its real report instead.
    The task's metadata is restored afterwards (a task may note coverage in it while scoring)."""
    if not task.metadata.supports_limit or not isinstance(task, RetrievalTask | CandidateTask):
        return  # a task that runs as a whole has no small stand-in: its real report is checked
    saved = copy.deepcopy(vars(task.metadata))
    try:
        report = _stand_in_report(task, data)
    except Exception:  # the stand-in is not the task's data: the real run says what is wrong
        return
    finally:
        _restore(vars(task.metadata), saved)
    check_report(task, report, method="compute_scores()", finite=False)


def _restore(fields: dict[str, Any], saved: dict[str, Any]) -> None:
    """The metadata's fields as saved; a field the stand-in run left equal keeps its object."""
    for name in set(fields) - set(saved):
        del fields[name]
    for name, value in saved.items():
        if name not in fields or fields[name] != value:
            fields[name] = value


def _stand_in_report(task: RetrievalTask | CandidateTask, data: RetrievalData | CandidateData) -> object:
    if isinstance(task, RetrievalTask) and isinstance(data, RetrievalData):
        queries = dict(list(data.queries.items())[:PROBE_QUERIES])
        qrels = {q: data.qrels[q] for q in queries if q in data.qrels}
        small = dataclasses.replace(data, queries=queries, qrels=qrels)
        return task.compute_scores(small, {q: {} for q in queries})
    if isinstance(task, CandidateTask) and isinstance(data, CandidateData):
        sets = data.sets[:PROBE_QUERIES]
        scores = {s.key: [1.0 / (i + 1) for i in range(len(s.candidates))] for s in sets}
        return task.compute_scores(dataclasses.replace(data, sets=sets), scores)
    return None


# -- models ----------------------------------------------------------------------------------------------
def _model(model: Model) -> str:
    return f"model {model.metadata.name!r}"


def check_vectors(model: Model, texts: Sequence[str], vectors: np.ndarray, width: int | None) -> int:
    """One finite row per text, each as wide as the model's others (and its ``metadata.embedding_dim``);
    returns the width."""
    import numpy as np

    owner, count = _model(model), len(texts)
    example = "np.zeros((len(texts), 384), dtype=np.float32)"
    if vectors.ndim != 2 or vectors.shape[0] != count:
        got = f"{vectors.shape[0]} vectors" if vectors.ndim == 2 else f"an array of shape {vectors.shape}"
        raise BadInput(
            f"{owner}: encode() returned {got} for {count} texts; expected one row per text (shape "
            f"[{count}, dim]), e.g. {example}"
        )
    declared = model.metadata.embedding_dim
    expected = width or declared
    if expected is not None and vectors.shape[1] != expected:
        source = "its first batch's" if width else "metadata.embedding_dim"
        raise BadInput(
            f"{owner}: encode() returned vectors of width {vectors.shape[1]}; expected {source} width {expected}"
        )
    finite = np.isfinite(vectors).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise BadInput(
            f"{owner}: encode() returned a non-finite value (nan or inf) in row {row} (text "
            f"{shorten(repr(texts[row]), 60)}); expected finite floats"
        )
    return int(vectors.shape[1])


def check_scores(model: Model, method: str, scores: Sequence[Any], count: int, unit: str) -> None:
    """One finite score per pair (per candidate)."""
    owner = _model(model)
    if len(scores) != count:
        raise BadInput(
            f"{owner}: {method} returned {len(scores)} scores for {count} {unit}; expected one per {unit[:-1]}"
        )
    for i, score in enumerate(scores):
        try:
            value = float(score)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise BadInput(f"{owner}: {method} returned {_shown(score)} as score {i}; expected a finite number")


def check_run(model: Model, run: Any, queries: Mapping[str, str], corpus: Mapping[str, str]) -> None:
    """A ranking per query asked for, of documents in the corpus, with finite scores. Every query id is
    checked; the documents and scores of the first ``RANKINGS_READ`` rankings (a corpus on disk costs a
    read per document looked up)."""
    owner = f"{_model(model)}: search() returned"
    if not isinstance(run, Mapping):
        raise BadInput(
            f'{owner} {_shown(run)}; expected query id -> document id -> score, e.g. {{"q1": {{"d1": 2.5}}}}'
        )
    unknown = next((qid for qid in run if qid not in queries), None)
    if unknown is not None:
        raise BadInput(f"{owner} a ranking for query {unknown!r}, which is not among the {len(queries)} queries given")
    for qid, ranking in itertools.islice(run.items(), RANKINGS_READ):
        if not isinstance(ranking, Mapping):
            raise BadInput(
                f'{owner} {_shown(ranking)} for query {qid!r}; expected document id -> score, e.g. {{"d1": 2.5}}'
            )
        for doc_id, score in ranking.items():
            if not isinstance(score, numbers.Real) or not math.isfinite(score):
                raise BadInput(
                    f"{owner} {_shown(score)} as the score of {doc_id!r} for query {qid!r}; expected a finite number"
                )
            if doc_id not in corpus:
                raise BadInput(
                    f"{owner} document {doc_id!r} for query {qid!r}, which is not among the corpus's {len(corpus)}"
                )
