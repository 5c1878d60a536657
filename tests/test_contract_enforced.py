"""The contract says what the engine enforces, and every plugin kind can be tried from Python as an object.

* a model's kind follows from its base class (a contradicting declaration is still refused);
* a task returns a ``ScoreReport`` with per-query values, or its first run stops naming the task;
* ``evaluate`` takes model objects, task objects and a ``Pipeline`` of objects (nothing installed);
* the public facades export exactly what they list, so ``mypy --strict`` accepts a plugin's imports.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest
from conftest import REPO, run_cli

import leaderboard
import leaderboard.contract as contract
import leaderboard.toolkit as toolkit
from leaderboard import (
    DataSource,
    DenseModel,
    LeaderboardError,
    Metric,
    ModelKind,
    ModelMetadata,
    Pipeline,
    Reranker,
    RetrievalData,
    RetrievalTask,
    Run,
    ScoreReport,
    SparseModel,
    TaskMetadata,
)
from leaderboard.toolkit import mean_scores, per_query_scores, select

DOCS = {
    "d1": "the eiffel tower stands in paris",
    "d2": "mount everest is the highest mountain",
    "d3": "coral reefs are built by tiny animals",
    "d4": "paris is the capital of france",
}
QUERIES = {"q1": "tower in paris", "q2": "highest mountain", "q3": "coral reefs"}
QRELS = {"q1": {"d1": 2, "d4": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}


class Hashed(DenseModel):
    """Word counts hashed into 64 dimensions; no kind declared."""

    def __init__(self) -> None:
        self.metadata = ModelMetadata(name="hashed-words", revision="1")

    def encode(self, texts: Sequence[str], role: str) -> np.ndarray:
        rows = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.split():
                rows[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


class Overlap(Reranker):
    """Shared words; no kind declared."""

    def __init__(self) -> None:
        self.metadata = ModelMetadata(name="overlap", revision="1")

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [float(len(set(q.split()) & set(d.split()))) for q, d in pairs]


class Toy(RetrievalTask):
    """Four documents, three queries; what ``compute_scores`` returns is set per test."""

    def __init__(self, returns: str = "report", name: str = "toy-task") -> None:
        self.returns = returns
        self.metadata = TaskMetadata(
            name=name,
            family="toy",
            description="a four-document task",
            reference="https://example.org/toy",
            metrics=[Metric("ndcg_at_10", description="nDCG@10")],
            main_score="ndcg_at_10",
            top_k=10,
        )

    def load(self) -> RetrievalData:
        digest = hashlib.sha256(json.dumps([DOCS, QUERIES, QRELS], sort_keys=True).encode()).hexdigest()
        source = DataSource("embedded", "test_contract_enforced", content_hash=f"sha256:{digest}")
        return RetrievalData(dict(DOCS), dict(QUERIES), {q: dict(j) for q, j in QRELS.items()}, source)

    def compute_scores(self, data: RetrievalData, run: Run) -> ScoreReport:
        values = select(per_query_scores(data.qrels, run, k_values=(10,)), ["ndcg_at_10"])
        scores = {"test": {"default": mean_scores(values)}}
        if self.returns == "bare":
            return scores  # type: ignore[return-value]  # the mistake under test
        if self.returns == "no-per-query":
            return ScoreReport(scores)
        if self.returns == "says-why":
            return ScoreReport(scores, details={"per_query": "not computed: no per-query definition"})
        return ScoreReport(scores, per_query=values)


def test_a_models_kind_follows_from_its_base_class():
    assert Hashed().metadata.kind is ModelKind.DENSE
    assert Overlap().metadata.kind is ModelKind.RERANKER

    class Lexical(SparseModel):
        metadata = ModelMetadata(name="class-level")  # set on the class: the engine fills the kind in

        def search(self, corpus: dict[str, str], queries: dict[str, str], top_k: int) -> Run:
            return {q: {d: 1.0 for d in list(corpus)[:top_k]} for q in queries}

        def score(self, query: str, documents: Sequence[str]) -> list[float]:
            return [1.0] * len(documents)

    assert ModelMetadata(name="x").kind is None  # nothing to declare
    assert Lexical.metadata.kind is None


def test_a_kind_left_out_is_recorded_and_a_contradicting_one_refused(tmp_path):
    (outcome,) = leaderboard.evaluate([Hashed()], [Toy()], output=tmp_path)
    assert outcome.status == "written"
    assert outcome.result.model.kind == ModelKind.DENSE
    assert json.loads(outcome.path.read_text())["model"]["metadata"]["kind"] == "dense"

    wrong = Hashed()
    wrong.metadata = ModelMetadata(name="wrong", kind=ModelKind.RERANKER)
    with pytest.raises(LeaderboardError, match=r"a dense model.* metadata.kind says reranker.*leave kind out"):
        leaderboard.evaluate([wrong], [Toy()], output=tmp_path / "wrong")
    assert not (tmp_path / "wrong").exists()


@pytest.mark.parametrize("returns", ["bare", "no-per-query"])
def test_a_task_without_per_query_values_stops_at_its_first_run(tmp_path, returns):
    with pytest.raises(LeaderboardError) as raised:
        leaderboard.evaluate([Hashed()], [Toy(returns, name="bare-task")], output=tmp_path)
    message = str(raised.value)
    assert "task 'bare-task'" in message and "return ScoreReport(scores, per_query=" in message
    assert "--overwrite" not in message
    if returns == "bare":
        assert "compute_scores() returned dict, not a ScoreReport" in message
    assert not list(tmp_path.rglob("*.json"))  # nothing written half-way


def test_a_task_that_says_why_it_has_no_per_query_values_is_written(tmp_path):
    (outcome,) = leaderboard.evaluate([Hashed()], [Toy("says-why")], output=tmp_path)
    assert outcome.status == "written" and outcome.result.per_query is None


def test_model_task_and_pipeline_objects_evaluate_from_python(tmp_path):
    first, reranker = Hashed(), Overlap()
    pipeline = Pipeline(first, reranker, depth=2)
    outcomes = leaderboard.evaluate([first, pipeline], [Toy()], output=tmp_path)
    assert [o.status for o in outcomes] == ["written", "written"]
    dense, piped = (o.result for o in outcomes)
    assert piped.model.name == "hashed-words >>2 overlap" and piped.model.kind == ModelKind.PIPELINE
    assert piped.settings.model_settings["depth"] == 2
    assert piped.per_query is not None and dense.per_query is not None
    assert piped.counts["pairs_scored"] == 2 * len(QUERIES)  # the reranker saw each query's top 2, no more
    assert 0.0 < piped.main_score <= 1.0 and 0.0 < dense.main_score <= 1.0


def test_a_pipeline_of_objects_checks_its_stages():
    with pytest.raises(leaderboard.BadInput, match="the second stage must be a reranker"):
        Pipeline(Overlap(), Hashed())
    with pytest.raises(leaderboard.BadInput, match="the first stage must be a retriever"):
        Pipeline(Overlap(), Overlap())
    with pytest.raises(leaderboard.BadInput, match="depth must be a whole number >= 1"):
        Pipeline(Hashed(), Overlap(), depth=0)
    with pytest.raises(leaderboard.BadInput, match="must be a leaderboard.Model, not str"):
        Pipeline("bm25", Overlap())  # type: ignore[arg-type]


def test_a_task_object_name_is_checked_like_a_registered_one(tmp_path):
    with pytest.raises(leaderboard.BadInput, match="task object Toy: the task's name '../x' is a path"):
        leaderboard.evaluate([Hashed()], [Toy(name="../x")], output=tmp_path)


FACADES = {
    "leaderboard": REPO / "leaderboard" / "__init__.py",
    "leaderboard.contract": REPO / "leaderboard" / "contract" / "__init__.py",
    "leaderboard.toolkit": REPO / "leaderboard" / "toolkit.py",
}


@pytest.mark.parametrize("facade", [leaderboard, contract, toolkit], ids=list(FACADES))
def test_each_facade_offers_exactly_the_names_it_lists(facade):
    """``__all__`` is the facade's type-checking block, and every name in it loads."""
    from leaderboard.lazy_names import exported

    assert facade.__all__ == sorted(exported(facade.__name__), key=str.lower)
    assert len(set(facade.__all__)) == len(facade.__all__)
    for name in facade.__all__:
        assert getattr(facade, name) is not None
    assert set(facade.__all__) <= set(dir(facade))
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        facade.nothing_here  # noqa: B018


def test_the_facades_list_each_name_once_as_an_explicit_re_export():
    """Each public name is written once, as ``from home import X as X`` (mypy --strict's explicit re-export);
    ``leaderboard`` takes the contract's names with ``from leaderboard.contract import *``."""
    import ast

    for module, path in FACADES.items():
        tree = ast.parse(path.read_text("utf-8"))
        written = [
            alias.asname
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
            if alias.asname is not None and alias.asname == alias.name
        ]
        assert len(written) == len(set(written)), f"{module}: a name is listed twice"
        shown = set(importlib.import_module(module).__all__) - {"__version__"}
        starred = set(contract.__all__) if module == "leaderboard" else set()
        assert shown == set(written) | starred, module
        assert "__all__ = " not in path.read_text("utf-8"), f"{module}: __all__ is derived, never written out"
    assert set(contract.__all__) < set(leaderboard.__all__)
    assert leaderboard.__all__.count("hookimpl") == 1


def test_a_facade_loads_only_the_module_a_name_lives_in():
    """``from leaderboard import BadInput`` imports the errors module, not the engine, numpy or pluggy."""
    code = (
        "import sys; from leaderboard import BadInput; from leaderboard.toolkit import cache_home; "
        "print(sorted(m for m in ('numpy', 'pluggy', 'pydantic', 'leaderboard.engine.api') if m in sys.modules))"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_facades_and_a_scaffolded_plugin_of_each_kind_pass_mypy_strict(tmp_path):
    folders = []
    for kind in ("dense", "sparse", "reranker", "task"):
        made = run_cli("new-plugin", f"strict-{kind}", "--kind", kind, "--output", str(tmp_path))
        assert made.returncode == 0, made.stdout + made.stderr
        folders.append(tmp_path / f"leaderboard-strict-{kind}")
    targets = [str(p) for folder in folders for p in (*folder.glob("leaderboard_*"), *folder.glob("tests/*.py"))]
    facades = [str(REPO / "leaderboard" / f) for f in ("__init__.py", "toolkit.py", "contract/__init__.py")]
    # MYPYPATH: the editable install's import hook is invisible to mypy, so it reads the source tree (with
    # its py.typed) as an installed wheel would give it. Every module the facades reach is checked and reported
    # with --strict, under the project's configuration (third-party libraries without types; huggingface_hub's
    # computed re-exports).
    config = str(REPO / "pyproject.toml")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", config, *facades, *targets],
        capture_output=True,
        text=True,
        env={"MYPYPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout=1500,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found in 15 source files" in checked.stdout
