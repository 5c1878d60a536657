"""MAIR task plugins on a fixture in MAIR's published layout (the hub is not reachable here).

The layout is that of the hub datasets MAIR-Bench/MAIR-Queries and MAIR-Bench/MAIR-Docs (one folder
per task; ``queries.jsonl`` with qid/instruction/query/labels, ``docs.jsonl`` with id/doc), as
MAIR's README and ``mair.py`` read them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import make_plugin_dist, read_result_dict, run_cli

# Per task: documents and queries. Words are chosen so BM25's order is certain: in "dd" documents
# a1 holds the three query terms, a2 two, a3 one, the rest none (every term's IDF is positive, and
# all documents have the same length), so a1 > a2 > a3 whatever the exact IDF values.
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed tempor"


def _docs(prefix: str) -> list[dict]:
    words = ("glacier", "moraine", "crevasse")
    docs = [
        {"id": f"{prefix}1", "doc": f"{words[0]} {words[1]} {words[2]} {FILLER}"},
        {"id": f"{prefix}2", "doc": f"{words[0]} {words[1]} zebra {FILLER}"},
        {"id": f"{prefix}3", "doc": f"{words[0]} walrus zebra {FILLER}"},
    ]
    docs += [{"id": f"{prefix}{i}", "doc": f"unrelated text number {i} {FILLER}"} for i in range(4, 9)]
    return docs


def _queries(prefix: str) -> list[dict]:
    return [
        {
            "qid": "q1",
            "instruction": "Find reports about glaciers; documents on moraines are highly relevant.",
            "query": "glacier moraine crevasse",
            # graded: a3 (rank 3) is the most relevant, a1 (rank 1) relevant, a2 (rank 2) not labelled
            "labels": [{"id": f"{prefix}1", "score": 1}, {"id": f"{prefix}3", "score": 2}],
        },
        {
            "qid": "q2",
            "instruction": "A different instruction: only walruses count.",
            "query": "walrus",
            "labels": [{"id": f"{prefix}3", "score": 1}],
        },
        {
            "qid": "q3",
            "instruction": "Unlabelled documents only.",
            "query": "unrelated number",
            "labels": [{"id": f"{prefix}4", "score": 1}],
        },
    ]


def write_mair_fixture(root: Path, tasks=("DD_2015", "DD_2016", "DD_2017", "FairRanking_2021", "FairRanking_2022")):
    """MAIR-Queries/<Task>/queries.jsonl and MAIR-Docs/<Task>/docs.jsonl, as the hub datasets hold them."""
    for task in tasks:
        prefix = "".join(c for c in task.lower() if c.isalnum())[:4] + "-"
        for repo, name, rows in (
            ("MAIR-Queries", "queries.jsonl", _queries(prefix)),
            ("MAIR-Docs", "docs.jsonl", _docs(prefix)),
        ):
            folder = root / repo / task
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return root


def _hand_ndcg_q1() -> float:
    # BM25 ranks a1 (grade 1), a2 (unlabelled: 0), a3 (grade 2); trec_eval's nDCG uses the grade as gain
    # and log2(rank + 1) as discount: DCG = 1/log2(2) + 0/log2(3) + 2/log2(4) = 1 + 0 + 1 = 2.
    # Ideal order a3, a1: IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.63093 = 2.63093. nDCG@10 = 0.76019.
    dcg = 1 / math.log2(2) + 0 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    return dcg / idcg


def test_tasks_and_benchmark_are_listed():
    tasks = run_cli("tasks")
    assert tasks.returncode == 0, tasks.stderr
    for name in ("mair-dd-2015", "mair-dd-2016", "mair-dd-2017", "mair-fairranking-2021", "mair-fairranking-2022"):
        assert name in tasks.stdout
    assert "mair:" in tasks.stdout
    benchmarks = run_cli("benchmarks")
    assert benchmarks.returncode == 0, benchmarks.stderr
    assert "MAIR" in benchmarks.stdout and "mean nDCG@10 over DD-15, DD-16, DD-17, FR-21, FR-22" in benchmarks.stdout


def test_benchmark_declares_the_five_inf_ir_tasks():
    from leaderboard_tasks.mair import benchmark

    bench = benchmark()
    assert [t.task for t in bench.tasks] == [
        "mair-dd-2015",
        "mair-dd-2016",
        "mair-dd-2017",
        "mair-fairranking-2021",
        "mair-fairranking-2022",
    ]
    assert all(t.metric == "ndcg_at_10" and t.in_aggregate for t in bench.tasks)
    assert "Sun2024MAIR" in bench.citation


def test_bm25_run_matches_a_hand_computation(tmp_path):
    root = write_mair_fixture(tmp_path / "mair")
    out = tmp_path / "out"
    ran = run_cli(
        "run", "-m", "bm25", "-t", "mair-dd-2015", "-t", "mair-fairranking-2022", "--output", str(out),
        env={"LEADERBOARD_MAIR_DIR": str(root)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = read_result_dict(next(out.rglob("mair-dd-2015.json")))
    from leaderboard.records.result import Result, decode_per_query

    per_query = decode_per_query(Result.model_validate(result).per_query)
    assert per_query["q1"]["ndcg_at_10"] == pytest.approx(_hand_ndcg_q1(), abs=1e-9)
    assert per_query["q2"]["ndcg_at_10"] == pytest.approx(1.0)  # "walrus" is only in a3
    # q3's labelled document a4 is among five documents that tie on "unrelated number"
    mean = sum(v["ndcg_at_10"] for v in per_query.values()) / len(per_query)
    assert result["scores"]["test"]["default"]["ndcg_at_10"] == pytest.approx(mean, abs=1e-12)
    assert result["task"]["source"]["kind"] == "local" and result["task"]["source"]["content_hash"]
    # bm25 takes no instructions: the result says the data had them and they were not applied
    settings = result["settings"]
    assert settings["instruction"] is None
    assert settings["query_instructions"]["applied"] is False and settings["query_instructions"]["distinct"] == 3
    assert result["task_details"]["distinct_instructions"] == 3


RECORDER = '''
"""A third-party model that takes instructions and writes every query text it is given to a file."""
import json, os
from leaderboard import ModelKind, ModelMetadata, SparseModel, hookimpl

TEMPLATE = "Instruct: {instruction}\\nQuery: {query}"


class Recorder(SparseModel):
    metadata = ModelMetadata("recorder", ModelKind.SPARSE, revision="1", takes_instructions=True,
                             instruction_template=TEMPLATE)

    def score(self, query, documents):
        return [float(len(set(query.split()) & set(d.split()))) for d in documents]

    def search(self, corpus, queries, top_k):
        with open(os.environ["RECORDER_FILE"], "a", encoding="utf-8") as handle:
            for qid, text in queries.items():
                handle.write(json.dumps({"qid": qid, "text": text}) + "\\n")
        ids = list(corpus)
        return {qid: dict(zip(ids, self.score(text, [corpus[d] for d in ids]))) for qid, text in queries.items()}


@hookimpl
def register_models(register):
    register("recorder", lambda request: Recorder(), description="records the queries it sees")
'''


def test_each_query_instruction_reaches_an_instruction_taking_model(tmp_path):
    root = write_mair_fixture(tmp_path / "mair", tasks=("DD_2016",))
    plugin = make_plugin_dist(
        tmp_path / "plugin", "recorder-plugin", "recorder_plugin", RECORDER, {"rec": "recorder_plugin"}
    )
    seen_file = tmp_path / "seen.jsonl"
    out = tmp_path / "out"
    ran = run_cli(
        "run", "-m", "recorder", "-t", "mair-dd-2016", "--data-dir", str(root), "--output", str(out),
        env={"PYTHONPATH": str(plugin), "RECORDER_FILE": str(seen_file)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    seen = {r["qid"]: r["text"] for r in map(json.loads, seen_file.read_text().splitlines())}
    for q in _queries("x"):
        assert seen[q["qid"]] == f"Instruct: {q['instruction']}\nQuery: {q['query']}"
    result = read_result_dict(next(out.rglob("mair-dd-2016.json")))
    assert result["settings"]["instruction"] == "per query, from the data"
    assert result["settings"]["query_instructions"]["applied"] is True


@pytest.mark.real_model
def test_dense_model_end_to_end(tmp_path):
    root = write_mair_fixture(tmp_path / "mair", tasks=("FairRanking_2021",))
    out = tmp_path / "out"
    ran = run_cli(
        "run", "-m", "all-MiniLM-L6-v2", "-t", "mair-fairranking-2021", "--data-dir", str(root), "--output", str(out)
    )
    assert ran.returncode == 0, ran.stderr
    result = read_result_dict(next(out.rglob("mair-fairranking-2021.json")))
    score = result["scores"]["test"]["default"]["ndcg_at_10"]
    assert 0.0 <= score <= 1.0 and result["per_query"]["count"] == 3


def test_any_mair_task_by_name_and_bad_files(tmp_path):
    root = write_mair_fixture(tmp_path / "mair", tasks=("CliniDS_2016",))
    out = tmp_path / "out"
    ran = run_cli("run", "-m", "bm25", "-t", "mair:CliniDS_2016", "--data-dir", str(root), "--output", str(out))
    assert ran.returncode == 0, ran.stderr
    assert next(out.rglob("mair-clinids-2016.json"))
    queries = root / "MAIR-Queries" / "CliniDS_2016" / "queries.jsonl"
    lines = queries.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["labels"] = [{"id": "nowhere", "score": 1}]
    queries.write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n")
    ran = run_cli("run", "-m", "bm25", "-t", "mair:CliniDS_2016", "--data-dir", str(root), "--output", str(out / "2"))
    assert ran.returncode == 2 and "line 2" in ran.stderr and "'nowhere'" in ran.stderr
    assert "Traceback" not in ran.stderr and not (out / "2").exists()
    missing = run_cli("run", "-m", "bm25", "-t", "mair:NoSuchTask", "--data-dir", str(root), "--output", str(out))
    assert missing.returncode == 2 and "no MAIR task 'NoSuchTask'" in missing.stderr


def test_a_task_with_several_query_splits_runs_one_split_at_a_time(tmp_path):
    root = tmp_path / "mair"
    for split in ("format", "length"):
        for repo, name, rows in (
            ("MAIR-Queries", f"{split}_queries.jsonl", _queries("ifev")),
            ("MAIR-Docs", f"{split}_docs.jsonl", _docs("ifev")),
        ):
            (root / repo / "IFEval").mkdir(parents=True, exist_ok=True)
            (root / repo / "IFEval" / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    ran = run_cli("run", "-m", "bm25", "-t", "mair:IFEval", "--data-dir", str(root), "--output", str(out))
    assert ran.returncode == 2 and "2 query splits (format, length)" in ran.stderr
    ran = run_cli(
        "run", "-m", "bm25", "-t", "mair:IFEval", "--task-option", "split=length", "--data-dir", str(root),
        "--output", str(out),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    result = read_result_dict(next(out.rglob("mair-ifeval*.json")))
    assert result["task_details"]["split"] == "length"
    from leaderboard.records.result import Result, decode_per_query

    per_query = decode_per_query(Result.model_validate(result).per_query)
    assert per_query["q1"]["ndcg_at_10"] == pytest.approx(_hand_ndcg_q1(), abs=1e-9)
