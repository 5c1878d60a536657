"""MultiConIR metrics against values computed by hand, with an oracle model whose scores are known."""

import json

import pandas as pd
import pytest
from conftest import REPO, make_plugin_dist, run_cli
from leaderboard_tasks.multiconir import DOMAINS, TASK1_COLUMNS, TASK2_COLUMNS, TASK4_COLUMNS, MultiConIRTask
from leaderboard_tasks.multiconir.fixture import write_fixture, write_table

# The oracle: a reranker plugin that looks its scores up in a JSON table.
ORACLE = """
import json, os
from leaderboard import hookimpl
from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker

class Oracle(Reranker):
    metadata = ModelMetadata("oracle", ModelKind.RERANKER, revision="1")

    def __init__(self):
        self.table = json.load(open(os.environ["ORACLE_SCORES"]))

    def score_pairs(self, pairs):
        return [self.table[q + "\\u0000" + d] for q, d in pairs]

@hookimpl
def register_models(register):
    register("oracle", lambda request: Oracle())
"""

# Task 1: record r of a domain wins for k <= threshold; People's second record ties (a loss).
THRESHOLDS = {"Books": [10, 5], "Movies": [10, 10], "People": [3, 0], "Medical Case": [7, 7], "Legal Document": [10, 2]}


def task1_tables(scores):
    tables = {}
    for domain, limits in THRESHOLDS.items():
        rows = []
        for r, limit in enumerate(limits):
            row = {f"Query{k}": f"T1 {domain} {r} query {k}" for k in range(1, 11)}
            row["Positive"] = f"T1 {domain} {r} positive"
            row.update({f"HN{k}": f"T1 {domain} {r} negative {k}" for k in range(1, 11)})
            for k in range(1, 11):
                tie = domain == "People" and r == 1
                pos, neg = (0.5, 0.5) if tie else ((1.0, 0.0) if k <= limit else (0.0, 1.0))
                scores[row[f"Query{k}"] + "\0" + row["Positive"]] = pos
                scores[row[f"Query{k}"] + "\0" + row[f"HN{k}"]] = neg
            rows.append(row)
        tables[domain] = rows
    return tables


def task2_tables(scores):
    """Perfectly ordered scores 11..1, except: Books r0 swaps HN4/HN5; Legal r1 ties HN9/HN10.
    Natural-style queries: Books r0 is perfectly ordered (1 flip), Movies r0 fully reversed (10 flips)."""
    tables = {}
    for domain in DOMAINS:
        rows = []
        for r in range(2):
            docs = [f"T2 {domain} {r} positive"] + [f"T2 {domain} {r} negative {i}" for i in range(1, 11)]
            row = {
                "Query10": f"T2 {domain} {r} instruction query",
                "Natural_Query10": f"T2 {domain} {r} natural query",
                "Positive": docs[0],
            }
            row.update({f"HN{i}": docs[i] for i in range(1, 11)})
            instruction = [11.0 - j for j in range(11)]
            if (domain, r) == ("Books", 0):
                instruction[4], instruction[5] = instruction[5], instruction[4]
            if (domain, r) == ("Legal Document", 1):
                instruction[10] = instruction[9]
            natural = list(instruction)
            if (domain, r) == ("Books", 0):
                natural = [11.0 - j for j in range(11)]
            if (domain, r) == ("Movies", 0):
                natural = [float(j) for j in range(11)]
            for doc, a, b in zip(docs, instruction, natural):
                scores[row["Query10"] + "\0" + doc] = a
                scores[row["Natural_Query10"] + "\0" + doc] = b
            rows.append(row)
        tables[domain] = rows
    return tables


@pytest.fixture(scope="module")
def oracle_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("multiconir")
    scores = {}
    data = tmp / "data" / "datasets"
    for domain, rows in task1_tables(scores).items():
        write_table(data / "Task1" / f"{domain}_Task1.csv", rows, TASK1_COLUMNS)
    for domain, rows in task2_tables(scores).items():
        write_table(data / "Task2_&_3" / f"{domain}_Task2_&_3.csv", rows, TASK2_COLUMNS)
        for words in (512, 1024):
            write_table(data / "Task4" / f"{domain}_{words}.csv", rows, TASK4_COLUMNS)  # no Natural_Query10
    (tmp / "scores.json").write_text(json.dumps(scores))
    site = make_plugin_dist(tmp / "site", "oracle", "oracle_plugin", ORACLE, {"oracle": "oracle_plugin"})
    env = {
        "PYTHONPATH": str(site),
        "ORACLE_SCORES": str(tmp / "scores.json"),
        "LEADERBOARD_MULTICONIR_DIR": str(tmp / "data"),
    }
    tasks = [
        "multiconir-task1",
        "multiconir-task2",
        "multiconir-task3",
        "multiconir-task4-512",
        "multiconir-task4-1024",
    ]
    args = ["run", "--model", "oracle", "--output", str(tmp / "out")] + [a for t in tasks for a in ("--task", t)]
    ran = run_cli(*args, env=env)
    assert ran.returncode == 0, ran.stderr
    return {t: json.loads(next((tmp / "out").rglob(f"{t}.json")).read_text()) for t in tasks}


def test_task1_complexity_robustness(oracle_results):
    r = oracle_results["multiconir-task1"]
    avg = r["scores"]["test"]["default"]
    assert avg["win_rate_k1"] == pytest.approx(0.9)  # (1 + 1 + 0.5 + 1 + 1) / 5
    assert avg["win_rate_k10"] == pytest.approx(0.4)  # (0.5 + 1 + 0 + 0 + 0.5) / 5
    assert avg["decline"] == pytest.approx(0.5)
    assert avg["mean_win_rate"] == pytest.approx(0.64)  # (0.75 + 1 + 0.15 + 0.7 + 0.6) / 5
    assert avg["margin_k1"] == pytest.approx(0.9)  # People: a win (+1) and a tie (0)
    assert r["main_score"] == pytest.approx(0.64)
    books = r["scores"]["test"]["domain=Books"]
    assert [books[f"win_rate_k{k}"] for k in range(1, 11)] == [1.0] * 5 + [0.5] * 5
    people = r["scores"]["test"]["domain=People"]
    assert people["win_rate_k3"] == 0.5 and people["win_rate_k4"] == 0.0  # the tie never wins
    assert r["subset_sizes"]["test"] == {"default": 10, **{f"domain={d}": 2 for d in DOMAINS}}
    low, high = r["confidence_intervals"]["test"]["default"]["mean_win_rate"]
    assert low <= 0.64 <= high and low < high
    assert r["confidence_intervals"]["test"]["domain=Movies"]["win_rate_k10"] == [1.0, 1.0]  # no variance, no width


def test_task2_relevance_monotonicity(oracle_results):
    s = oracle_results["multiconir-task2"]["scores"]["test"]
    # d_k satisfies k conditions: Positive = d10, HN_j = d_(10-j)
    assert s["default"]["win_rate_d10_vs_d9"] == 1.0  # Positive vs HN1
    assert s["default"]["win_rate_d6_vs_d5"] == pytest.approx(0.9)  # HN4 vs HN5; Books r0 swapped: Books 0.5
    assert s["default"]["win_rate_d1_vs_d0"] == pytest.approx(0.9)  # HN9 vs HN10; Legal r1 tie = loss
    assert s["domain=Books"]["win_rate_d6_vs_d5"] == 0.5
    assert [m for m in s["default"] if m.startswith("win_rate_")][0] == "win_rate_d1_vs_d0"  # the tables' order
    assert s["default"]["mean_adjacent_win_rate"] == pytest.approx(0.98)  # (0.95 + 1 + 1 + 1 + 0.95) / 5


def test_task3_flip_rate(oracle_results):
    r = oracle_results["multiconir-task3"]
    s = r["scores"]["test"]
    assert s["domain=Books"]["flip_rate"] == pytest.approx(0.05)  # 1 of 10 pairs in one of two records
    assert s["domain=Movies"]["flip_rate"] == pytest.approx(0.5)  # all 10 pairs in one of two records
    assert s["domain=Legal Document"]["flip_rate"] == 0.0  # the same tie under both styles is no flip
    assert s["default"]["flip_rate"] == pytest.approx(0.11)
    assert r["main_score"] == pytest.approx(0.11)
    assert next(m for m in r["task"]["metrics"] if m["name"] == "flip_rate")["direction"] == "lower"
    assert s["domain=Movies"]["mean_adjacent_win_rate_natural"] == pytest.approx(0.5)


def test_task4_uses_the_length_files(oracle_results):
    for length in (512, 1024):
        r = oracle_results[f"multiconir-task4-{length}"]
        assert r["main_score"] == pytest.approx(0.98)
        assert (
            r["task"]["source"]["content_hash"] != oracle_results["multiconir-task2"]["task"]["source"]["content_hash"]
        )


def test_records_unique_texts_versus_scores(oracle_results):
    counts = oracle_results["multiconir-task1"]["counts"]
    assert counts["candidate_sets"] == 100 and counts["pairs_scored"] == 200


def test_missing_column_and_empty_cell(tmp_path):
    root = write_fixture(tmp_path / "fx")
    path = root / "datasets" / "Task1" / "Medical Case_Task1.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.drop(columns=["HN7"]).to_csv(path, index=False)
    ran = run_cli(
        "run", "-m", "bm25", "-t", "multiconir-task1", "--data-dir", str(root), "--output", str(tmp_path / "out")
    )
    assert (
        ran.returncode == 2
        and "Medical Case_Task1.csv: missing column 'HN7'" in ran.stderr
        and "Traceback" not in ran.stderr
    )
    frame.loc[1, "Query4"] = " "
    frame.to_csv(path, index=False)
    ran = run_cli(
        "run", "-m", "bm25", "-t", "multiconir-task1", "--data-dir", str(root), "--output", str(tmp_path / "out")
    )
    assert ran.returncode == 2 and "data row 2" in ran.stderr and "column 'Query4': empty cell" in ran.stderr
    assert not (tmp_path / "out").exists()


def test_instruction_reaches_instruction_aware_models_only(tmp_path):
    from leaderboard.contract.model import ModelKind, ModelMetadata, Reranker
    from leaderboard.contract.task import CandidateSet
    from leaderboard.engine.evaluation import Context, score_candidates

    class Recorder(Reranker):
        def __init__(self, takes):
            self.metadata = ModelMetadata(
                "rec",
                ModelKind.RERANKER,
                takes_instructions=takes,
                instruction_template="Instruct: {instruction}\nQuery: {query}",
            )
            self.seen = []

        def score_pairs(self, pairs):
            self.seen += pairs
            return [0.0] * len(pairs)

    task = MultiConIRTask("task1")
    for takes, expected in ((True, f"Instruct: {task.metadata.instruction}\nQuery: q"), (False, "q")):
        model = Recorder(takes)
        score_candidates(
            model, [CandidateSet("k", "q", ["d1", "d2"])], Context(batch_size=8, instruction=task.metadata.instruction)
        )
        assert model.seen[0][0] == expected


def test_all_tasks_run_for_dense_sparse_and_reranker(tmp_path):
    from tiny_models import build_random_bi_encoder, build_random_cross_encoder

    # random weights: only the code paths are tested (the real weights' encodes: the tests marked real_model)
    ce = build_random_cross_encoder(tmp_path / "tiny-random-ce")
    bi = build_random_bi_encoder(tmp_path / "tiny-random-bi")
    tasks = [
        "multiconir-demo-task1",
        "multiconir-demo-task2",
        "multiconir-demo-task3",
        "multiconir-demo-task4-512",
        "multiconir-demo-task4-1024",
    ]
    args = ["run", "-m", "bm25", "-m", f"st:{bi}", "-m", f"ce:{ce}", "--output", str(tmp_path / "out")] + [
        a for t in tasks for a in ("-t", t)
    ]
    ran = run_cli(*args)
    assert ran.returncode == 0, ran.stderr
    files = list((tmp_path / "out").rglob("*.json"))
    assert len(files) == 15
    dense = json.loads(next((tmp_path / "out").rglob("*tiny-random-bi*/*/multiconir-demo-task1.json")).read_text())
    assert dense["model"]["kind"] == "dense"
    assert (
        dense["counts"]["texts_encoded"] < dense["counts"]["texts_requested"]
    )  # the positive is encoded once, not ten times
    reranker = json.loads(next((tmp_path / "out").rglob("tiny-random-ce/*/multiconir-demo-task2.json")).read_text())
    assert reranker["model"]["kind"] == "reranker" and reranker["settings"]["max_length"] == 128


PAPER = REPO.parent / "shared" / "papers" / "000_c7ab13de71428e7a.txt"  # MultiConIR, full text
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def table_header(text: str, caption: str) -> list[str]:
    """The column names of a table in the extracted text: its caption follows the table, so the header is
    the nearest "Model<TAB>..." line above the caption."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(caption))
    header = next(line for line in reversed(lines[:at]) if line.startswith("Model\t"))
    return [cell.strip() for cell in header.split("\t")[1:] if cell.strip()]


def normalise_pair(label: str) -> str:
    """'d ₇ _vs_d ₆', 'd_1 _vs_ d_0', 'd₁₀ vs d₉' -> 'd7 vs d6', 'd1 vs d0', 'd10 vs d9'."""
    text = label.translate(SUBSCRIPTS).replace("_vs_", " vs ").replace("_", "").replace(" vs ", "|")
    return " vs ".join(part.replace(" ", "") for part in text.split("|"))


@pytest.mark.skipif(not PAPER.is_file(), reason=f"paper text not found at {PAPER} (CI has ../shared/papers)")
def test_task2_and_task4_labels_follow_the_header_of_table_18():
    from leaderboard_tasks.multiconir import PAIRS, MultiConIRTask

    header = table_header(PAPER.read_text(encoding="utf-8"), "Table 18:")
    assert header[-1] == "Avg."
    paper = [normalise_pair(c) for c in header[:-1]]
    assert paper[0] == "d1 vs d0" and paper[-1] == "d10 vs d9" and len(paper) == 10
    for variant in ("task2", "task4-512", "task4-1024"):
        task = MultiConIRTask(variant)
        curve = next(v for v in task.metadata.views if v.kind == "curve")
        assert [normalise_pair(curve.labels[m]) for m in curve.metrics] == paper
        assert "d₁₀ is the Positive" in curve.description and "HN_{10-k}" in curve.description
        declared = [m.name for m in task.metadata.metrics if m.name.startswith("win_rate_")]
        assert declared == list(curve.metrics)  # the result's metrics keep the tables' order too
    # d_k = HN_(10-k), the positive is d_10: the first pair is HN9 vs HN10, the last Positive vs HN1
    assert PAIRS[0] == ("HN9", "HN10") and PAIRS[-1] == ("Positive", "HN1")
    assert [normalise_pair(m.removeprefix("win_rate_")) for m in declared] == paper  # the names too
