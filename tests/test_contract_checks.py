"""The contract is checked where a plugin answers: a task's data as load() returns, its report's shape before any
model runs, a model's output from its first batch. Each mistake is one line naming the plugin and the field."""

from __future__ import annotations

import hashlib
from importlib.metadata import EntryPoint

import numpy as np
import pytest
from click.testing import CliRunner

import leaderboard
from leaderboard import (
    BadInput,
    CandidateData,
    CandidateSet,
    CandidateTask,
    DataSource,
    DenseModel,
    Metric,
    ModelMetadata,
    Reranker,
    RetrievalData,
    RetrievalTask,
    ScoreReport,
    SparseModel,
    TaskMetadata,
    hookimpl,
)
from leaderboard.toolkit import mean_scores, per_query_scores, select

CORPUS = {f"d{i}": f"document number {i} about topic {i % 3}" for i in range(20)}
QUERIES = {"q1": "topic 1", "q2": "topic 2", "q3": "number 5"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d5": 2}}
HASH = "sha256:" + hashlib.sha256(b"toy").hexdigest()


class Toy(RetrievalTask):
    """A retrieval task whose load() and compute_scores() can be made to break one field at a time."""

    def __init__(self, name: str = "toy", *, content_hash: str | None = HASH, per_query: str = "right"):
        self.metadata = TaskMetadata(
            name=name, family="toy", description="", reference="", metrics=[Metric("ndcg_at_10")],
            main_score="ndcg_at_10", top_k=10,
        )  # fmt: skip
        self.content_hash, self.per_query = content_hash, per_query
        self.scored = 0

    def load(self) -> RetrievalData:
        return RetrievalData(
            dict(CORPUS), dict(QUERIES), dict(QRELS), DataSource("embedded", "toy", None, self.content_hash)
        )

    def compute_scores(self, data: RetrievalData, run) -> ScoreReport:
        self.scored += 1
        values = select(per_query_scores(data.qrels, run, k_values=(10,)), ["ndcg_at_10"])
        scores = {"test": {"default": mean_scores(values)}}
        if self.per_query == "scores-shaped":  # the per-query values in the scores' shape: split -> subset -> metric
            return ScoreReport(scores, per_query={"test": {"default": mean_scores(values)}})  # type: ignore[dict-item]
        if self.per_query == "nan":
            values = {q: {"ndcg_at_10": float("nan")} for q in values}
        return ScoreReport(scores, per_query=values)


class Counting(DenseModel):
    """A bag-of-words encoder that counts its calls; ``short`` drops the last vector of each batch."""

    def __init__(self, name: str = "counting", *, short: bool = False, width: int = 8):
        self.metadata = ModelMetadata(name=name, revision="1")
        self.short, self.width, self.calls = short, width, 0

    def encode(self, texts, role):
        self.calls += 1
        rows = np.array([[float(hash(w) % 7) for w in (t.split() * self.width)[: self.width]] for t in texts]) + 1
        return rows[:-1] if self.short else rows


@pytest.fixture
def no_search(monkeypatch):
    """Counts dense searches (the corpus store searched): a check that fails first leaves it at 0."""
    import leaderboard.engine.dense as dense

    searched = []
    original = dense.search_store
    monkeypatch.setattr(dense, "search_store", lambda *a, **k: searched.append(1) or original(*a, **k))
    return searched


def test_a_corpus_without_a_content_hash_fails_at_load_before_any_encode(tmp_path, no_search):
    model, task = Counting(), Toy("no-hash", content_hash=None)
    with pytest.raises(BadInput) as raised:
        leaderboard.evaluate([model], [task], output=tmp_path)
    message = str(raised.value)
    assert message.startswith("task 'no-hash': load() returned RetrievalData whose source.content_hash is None")
    assert "expected the sha256 of what was loaded" in message and 'content_hash="sha256:"' in message
    assert "--data-dir" not in message  # a plugin's mistake, not the user's folder
    assert model.calls == 0 and task.scored == 0 and no_search == []
    assert not list(tmp_path.rglob("*.json"))


def test_a_content_hash_of_the_wrong_form_names_the_field_and_the_pattern(tmp_path):
    model = Counting()
    with pytest.raises(BadInput, match=r"task 'bad-hash': load\(\) returned RetrievalData whose source.content_hash "
                       r"is 'md5:abc' \(str\); expected it to match pattern '\^sha256:\[0-9a-f\]\{64\}\$', e\.g\. "
                       r"source=DataSource\("):  # fmt: skip
        leaderboard.evaluate([model], [Toy("bad-hash", content_hash="md5:abc")], output=tmp_path)
    assert model.calls == 0


def test_a_wrong_per_query_shape_fails_before_any_encode(tmp_path, no_search):
    model, task = Counting(), Toy("shape", per_query="scores-shaped")
    with pytest.raises(BadInput) as raised:
        leaderboard.evaluate([model], [task], output=tmp_path)
    message = str(raised.value)
    assert message.startswith(
        "task 'shape': compute_scores() returned a ScoreReport whose per_query['test']['default'] is a dict"
    )
    assert (
        'expected a valid number, e.g. per_query={"q1": {"ndcg_at_10": 0.5}} (query id -> metric -> value)' in message
    )
    assert model.calls == 0 and no_search == [] and task.scored == 1  # the stand-in run only
    assert not list(tmp_path.rglob("*.json"))


def test_a_non_finite_per_query_value_is_named_after_the_real_run(tmp_path):
    """A stand-in run may leave a metric undefined, so finiteness is checked on the real report, as it returns."""
    model, task = Counting(), Toy("nan", per_query="nan")
    with pytest.raises(BadInput, match=r"task 'nan': compute_scores\(\) returned a ScoreReport whose "
                       r"per_query\['q1'\]\['ndcg_at_10'\] is nan \(float\); expected a finite number"):  # fmt: skip
        leaderboard.evaluate([model], [task], output=tmp_path)
    assert task.scored == 2 and model.calls > 0
    assert not list(tmp_path.rglob("*.json"))


def test_a_model_returning_the_wrong_number_of_vectors_fails_at_its_first_batch(tmp_path, no_search):
    model = Counting("short", short=True)
    with pytest.raises(BadInput) as raised:
        leaderboard.evaluate([model], [Toy()], output=tmp_path, batch_size=1)  # 20 documents: 3 blocks of 8
    assert str(raised.value) == (
        "model 'short': encode() returned 7 vectors for 8 texts; expected one row per text (shape [8, dim]), "
        "e.g. np.zeros((len(texts), 384), dtype=np.float32)"
    )
    assert model.calls == 1 and no_search == []
    assert not list(tmp_path.rglob("*.json"))


def test_a_model_whose_width_changes_or_breaks_its_declared_one_is_named(tmp_path):
    declared = Counting("declared")
    declared.metadata.embedding_dim = 16
    with pytest.raises(BadInput, match=r"model 'declared': encode\(\) returned vectors of width 8; expected "
                       r"metadata.embedding_dim width 16"):  # fmt: skip
        leaderboard.evaluate([declared], [Toy()], output=tmp_path)
    assert declared.calls == 1


def test_a_model_returning_non_finite_vectors_is_named(tmp_path):
    class Broken(Counting):
        def encode(self, texts, role):
            rows = super().encode(texts, role)
            rows[1, 0] = np.nan
            return rows

    with pytest.raises(BadInput, match=r"model 'broken': encode\(\) returned a non-finite value \(nan or inf\) in "
                       r"row 1 \(text '.*'\); expected finite floats"):  # fmt: skip
        leaderboard.evaluate([Broken("broken")], [Toy()], output=tmp_path)


class Lexical(SparseModel):
    """A sparse model whose search can answer unknown ids and whose score() can miss a candidate."""

    def __init__(self, mistake: str):
        self.metadata = ModelMetadata(name=f"lexical-{mistake}", revision="1")
        self.mistake = mistake

    def search(self, corpus, queries, top_k):
        run = {q: {d: 1.0 / (i + 1) for i, d in enumerate(list(corpus)[:top_k])} for q in queries}
        if self.mistake == "unknown-document":
            run["q1"]["d-nowhere"] = 0.5
        if self.mistake == "unknown-query":
            run["q-nowhere"] = {}
        return run

    def score(self, query, documents):
        return [1.0] * (len(documents) - (self.mistake == "short-scores"))


@pytest.mark.parametrize(
    ("mistake", "message"),
    [
        (
            "unknown-document",
            r"document 'd-nowhere' for query 'q1', which is not among the corpus's 20",
        ),
        (
            "unknown-query",
            r"a ranking for query 'q-nowhere', which is not among the 3 queries given",
        ),
    ],
)
def test_a_search_result_for_unknown_ids_is_named(tmp_path, mistake, message):
    with pytest.raises(BadInput, match=rf"model 'lexical-{mistake}': search\(\) returned {message}"):
        leaderboard.evaluate([Lexical(mistake)], [Toy()], output=tmp_path)


class Sets(CandidateTask):
    metadata = TaskMetadata(
        name="sets", family="toy", description="", reference="", metrics=[Metric("first_wins")], main_score="first_wins"
    )

    def load(self) -> CandidateData:
        sets = [CandidateSet(f"s{i}", "topic 1", ["topic 1 here", "nothing"]) for i in range(3)]
        return CandidateData(sets, DataSource("embedded", "sets", None, HASH))

    def compute_scores(self, data: CandidateData, scores) -> ScoreReport:
        wins = {key: {"first_wins": float(values[0] > values[1])} for key, values in scores.items()}
        return ScoreReport({"test": {"default": mean_scores(wins)}}, per_query=wins)


def test_scores_for_fewer_candidates_than_given_are_named(tmp_path):
    with pytest.raises(BadInput, match=r"model 'lexical-short-scores': score\(\) returned 1 scores for 2 documents; "
                       r"expected one per document"):  # fmt: skip
        leaderboard.evaluate([Lexical("short-scores")], [Sets()], output=tmp_path)


def test_a_reranker_returning_too_few_scores_is_named(tmp_path):
    class Short(Reranker):
        metadata = ModelMetadata(name="short-reranker", revision="1")

        def score_pairs(self, pairs):
            return [0.5] * (len(pairs) - 1)

    with pytest.raises(BadInput, match=r"model 'short-reranker': score_pairs\(\) returned 1 scores for 2 pairs; "
                       r"expected one per pair"):  # fmt: skip
        leaderboard.evaluate([Short()], [Sets()], output=tmp_path)


def test_a_valid_task_and_model_still_write_their_result(tmp_path):
    model, task = Counting(), Toy()
    (outcome,) = leaderboard.evaluate([model], [task], output=tmp_path)
    assert outcome.status == "written" and outcome.result.per_query is not None
    assert task.scored == 2  # the stand-in run, then the real one
    assert task.metadata.metrics == [Metric("ndcg_at_10")]


@hookimpl
def register_tasks(register):
    register("no-hash", lambda request: Toy("no-hash", content_hash=None), description="a task without a content hash")


def test_through_the_cli_a_contract_mistake_is_one_message_and_exit_code_2(tmp_path, monkeypatch):
    from leaderboard import registry
    from leaderboard.cli import cli

    plugins = [EntryPoint("no-hash", __name__, "leaderboard"), *registry._selected_entry_points()]
    monkeypatch.setattr(registry, "_cached", registry.load_registry(plugins))
    ran = CliRunner().invoke(cli, ["run", "-m", "bm25", "-t", "no-hash", "-o", str(tmp_path / "out")])
    assert ran.exit_code == 2, ran.output
    assert "Traceback" not in ran.output
    assert " ".join(ran.output.split()).startswith(
        "Error: task 'no-hash': load() returned RetrievalData whose source.content_hash is None; expected the sha256"
    )
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").rglob("*.json"))
