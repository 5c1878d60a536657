"""ComLQ and NegConstraint tasks: breakdowns on hand-worked fixtures, the real data, downloads."""

import functools
import http.server
import json
import math
import threading
import zipfile

import pytest
from conftest import COMLQ, NEGCONSTRAINT, needs_comlq, needs_negconstraint, run_cli
from leaderboard_tasks import comlq as comlq_module
from leaderboard_tasks import negconstraint as neg_module
from leaderboard_tasks.comlq import ComLQTask, split_type
from leaderboard_tasks.negconstraint import NegConstraintTask

from leaderboard.errors import BadInput
from leaderboard.metrics.negation import lsnc

LOG2_3 = math.log2(3)


def write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


@pytest.fixture
def comlq_fixture(tmp_path):
    root = tmp_path / "comlq"
    passages = {
        "p1": "Saturn has bright rings of ice.",
        "p2": "Ethanol is an alcohol.",
        "p3": "Beer contains ethanol.",
        "p4": "Ahab ruled Israel.",
        "p5": "Jupiter is a gas giant.",
        "p6": "Omri was the founder of a dynasty.",
        "p7": "Uranus has faint rings.",
        "p8": "David was the founder of the dynasty of Judah.",
    }
    write_jsonl(root / "corpus.jsonl", [{"_id": k, "text": v} for k, v in passages.items()])
    write_jsonl(
        root / "queries.jsonl",
        [
            {"_id": "q1", "text": "Which planet has rings of ice?", "answer": "Saturn", "type": "1p"},
            {"_id": "q2", "text": "Which alcohol is in beer?", "answer": "Ethanol", "type": "2i_1"},
            {
                "_id": "q3",
                "text": "Which kings ruled over Israel but were not founders of a dynasty?",
                "answer": "Ahab",
                "type": "2in_2",
            },
            # suffix _1, but three qrels: the evidence count comes from the qrels
            {
                "_id": "q4",
                "text": "Which planets are gas giants but do not have rings?",
                "answer": "none",
                "type": "3in_1",
            },
        ],
    )
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tp1\t2\nq2\tp2\t1\nq2\tp3\t1\nq3\tp4\t2\nq4\tp5\t1\nq4\tp7\t1\nq4\tp2\t1\n"
    )
    return root


def test_comlq_breakdowns_by_hand(comlq_fixture):
    task = ComLQTask(str(comlq_fixture))
    data = task.load()
    run = {
        "q1": {"p1": 0.9},  # nDCG@10 = 1
        "q2": {"p2": 0.9},  # one of two relevant at rank 1: 1 / (1 + 1/log2 3)
        "q3": {"p8": 0.9, "p4": 0.8, "p6": 0.7},  # relevant at rank 2 (gain 2): (2/log2 3) / 2; p8, p6 violate
        "q4": {"p1": 0.9, "p3": 0.5},  # nothing relevant; p1 mentions rings (violates), p3 does not
    }
    report = task.compute_scores(data, run)
    s = report.scores["test"]
    q1, q2, q3, q4 = 1.0, 1 / (1 + 1 / LOG2_3), 1 / LOG2_3, 0.0
    ndcg = lambda subset: s[subset]["ndcg_at_10"]
    assert ndcg("default") == pytest.approx((q1 + q2 + q3 + q4) / 4)
    assert ndcg("type=1p") == pytest.approx(q1)
    assert ndcg("type=2i") == pytest.approx(q2)
    assert ndcg("type=2in") == pytest.approx(q3)
    assert ndcg("type=3in") == pytest.approx(q4)
    assert ndcg("group=negation") == pytest.approx((q3 + q4) / 2)
    assert ndcg("group=non_negation") == pytest.approx((q1 + q2) / 2)
    assert ndcg("evidence=1") == pytest.approx((q1 + q3) / 2)
    assert ndcg("evidence=2") == pytest.approx(q2)
    assert ndcg("evidence=3") == pytest.approx(q4)
    assert report.subset_sizes["test"]["evidence=3"] == 1 and report.subset_sizes["test"]["default"] == 4
    # type x evidence follows the suffix, as the paper's Fig. 5 (the fixture's q2 and q4 disagree with their qrels)
    assert ndcg("type=2i&evidence=1") == pytest.approx(q2)
    assert ndcg("type=2in&evidence=2") == pytest.approx(q3)
    assert ndcg("type=3in&evidence=1") == pytest.approx(q4)
    assert not any(subset.startswith("type=1p&") for subset in s)  # 1p carries no suffix
    # LSNC: q3 has two violating passages in its top 10, q4 one
    assert s["type=2in"]["lsnc_lexical_v1_at_10"] == pytest.approx(lsnc(2, 10))
    assert s["type=3in"]["lsnc_lexical_v1_at_10"] == pytest.approx(lsnc(1, 10))
    assert s["group=negation"]["lsnc_lexical_v1_at_100"] == pytest.approx((lsnc(2, 100) + lsnc(1, 100)) / 2)
    assert "lsnc_lexical_v1_at_10" not in s["type=1p"] and "lsnc_lexical_v1_at_10" not in s["group=non_negation"]
    assert report.details["violation_judge"] == "lexical-v1"
    assert report.details["judge_coverage"] == {"judged": 2, "negation_queries": 2, "rate": 1.0}
    # q3: p8, p6 (p4 is relevant, never asked); q4: p1, p3
    assert report.details["judgments"]["items"] == 4 and report.details["judgments"]["judged_now"] == 4
    lsnc10 = next(m for m in task.metadata.metrics if m.name == "lsnc_lexical_v1_at_10")
    assert "lexical-v1" in lsnc10.description and "2 of 2 negation queries judged" in lsnc10.description
    assert set(report.per_query) == {"q1", "q2", "q3", "q4"}
    assert report.per_query["q3"]["lsnc_lexical_v1_at_10"] == pytest.approx(lsnc(2, 10))
    assert report.per_query["q1"]["ndcg_at_10"] == 1.0 and "lsnc_lexical_v1_at_10" not in report.per_query["q1"]
    # the labels are materialised: the same run again judges nothing
    again = ComLQTask(str(comlq_fixture)).compute_scores(data, run)
    assert again.details["judgments"]["judged_now"] == 0 and again.details["judgments"]["from_cache"] == 4
    assert again.scores == report.scores


def test_comlq_split_type():
    assert split_type("3in_2") == ("3in", 2) and split_type("1p") == ("1p", None) and split_type("pni_3") == ("pni", 3)


def test_comlq_runs_from_the_cli_with_an_env_var(comlq_fixture, tmp_path):
    ran = run_cli(
        "run",
        "--model",
        "bm25",
        "--task",
        "comlq",
        "--output",
        str(tmp_path / "out"),
        env={"LEADERBOARD_COMLQ_DIR": str(comlq_fixture)},
    )
    assert ran.returncode == 0, ran.stderr
    # the fixture lacks most query types, so the declared subsets are not all there: a partial result
    (path,) = (tmp_path / "out").rglob("comlq.partial-*.json")
    result = json.loads(path.read_text())
    assert result["task_details"]["violation_judge"] == "lexical-v1"
    assert {"type=2in", "evidence=3", "group=negation"} <= set(result["scores"]["test"])


def test_negconstraint_by_hand(tmp_path):
    root = tmp_path / "neg"
    write_jsonl(
        root / "corpus.jsonl",
        [{"doc_id": d, "text": f"passage {d}"} for d in ("s1", "v1", "s2", "v2", "s3", "v3", "x")],
    )
    cats = ["A - a", "(A - a) ∪ B", "(A - a) ∪ (B - b)"]
    write_jsonl(
        root / "queries.jsonl",
        [
            {
                "query_id": str(i),
                "query": f"query {i}",
                "category": cats[i - 1],
                "constraint_satisfying_doc_ids": [f"s{i}"],
                "constraint_violating_doc_ids": [f"v{i}"],
                "graded_relevance": {f"s{i}": 2.0, f"v{i}": 0.0},
            }
            for i in (1, 2, 3)
        ],
    )
    task = NegConstraintTask(str(root))
    data = task.load()
    assert data.qrels["1"] == {"s1": 2, "v1": 0}
    run = {"1": {"s1": 2.0, "v1": 1.0}, "2": {"v2": 2.0, "s2": 1.0}, "3": {"x": 1.0}}
    report = task.compute_scores(data, run)
    s = report.scores["test"]
    # Violations in the top K: q1 has v1 at rank 2, q2 has v2 at rank 1, q3 retrieved neither.
    assert s["default"]["violation_at_1"] == pytest.approx(1 / 3)
    assert s["default"]["violation_at_5"] == pytest.approx(2 / 3) == s["default"]["violation_at_10"]
    assert s["category=A - a"]["violation_at_1"] == 0.0 and s["category=A - a"]["violation_at_5"] == 1.0
    # rank(violator) - rank(satisfying): q1 2 - 1 = 1, q2 1 - 2 = -1, q3 both unretrieved (rank 2 each) = 0
    assert [report.per_query[q]["violator_relative_rank"] for q in ("1", "2", "3")] == [1.0, -1.0, 0.0]
    assert s["default"]["violator_relative_rank"] == 0.0
    assert s["category=(A - a) ∪ B"]["violator_relative_rank"] == -1.0
    assert report.per_query["2"]["violation_at_1"] == 1.0 and report.per_query["1"]["paired_win_rate"] == 1.0
    ranges = {m.name: (m.low, m.high, m.direction) for m in task.metadata.metrics}
    assert ranges["violator_relative_rank"] == (-100.0, 100.0, "higher")
    assert ranges["violation_at_5"] == (0.0, 1.0, "lower")
    assert s["default"]["paired_win_rate"] == pytest.approx(1 / 3)  # q3: both missing counts as a loss
    assert s["category=A - a"]["paired_win_rate"] == 1.0
    assert s["category=(A - a) ∪ B"]["paired_win_rate"] == 0.0
    assert s["category=A - a"]["lsnc_at_10"] == pytest.approx(lsnc(1, 10))
    assert s["category=(A - a) ∪ (B - b)"]["lsnc_at_10"] == 1.0
    assert s["category=A - a"]["ndcg_at_10"] == 1.0
    assert s["category=(A - a) ∪ B"]["ndcg_at_10"] == pytest.approx(1 / LOG2_3)


def test_negconstraint_bad_row(tmp_path):
    root = tmp_path / "neg"
    write_jsonl(root / "corpus.jsonl", [{"doc_id": "a", "text": "x"}])
    write_jsonl(
        root / "queries.jsonl",
        [
            {
                "query_id": "1",
                "query": "q",
                "category": "A - a",
                "constraint_satisfying_doc_ids": ["a"],
                "constraint_violating_doc_ids": [],
                "graded_relevance": {"a": 2},
            }
        ],
    )
    with pytest.raises(BadInput, match=r"queries.jsonl, line 1: field 'constraint_violating_doc_ids'"):
        NegConstraintTask(str(root)).load()


@needs_comlq
@needs_negconstraint
def test_bm25_on_the_real_data_has_every_breakdown(tmp_path):
    import leaderboard

    outcomes = leaderboard.evaluate(
        ["bm25"],
        ["comlq", "negconstraint"],
        output=tmp_path,
        data_dirs={"comlq": str(COMLQ), "negconstraint": str(NEGCONSTRAINT)},
    )
    comlq, neg = (o.result.to_json() for o in outcomes)
    subsets = comlq["scores"]["test"]
    assert set(ComLQTask().metadata.subsets) <= set(subsets)  # the runner adds complexity strata
    for negation_type in ("2in", "3in", "inp", "pin", "pni"):
        assert 0 <= subsets[f"type={negation_type}"]["lsnc_lexical_v1_at_100"] <= 1
    sizes = comlq["subset_sizes"]["test"]
    assert sizes["group=negation"] == 984
    assert sum(sizes[f"evidence={n}"] for n in (1, 2, 3)) == 2909
    # Fig. 5's subsets hold the suffixed queries only: 3in_1, 3in_2, 3in_3 number 99, 81, 37
    assert [sizes[f"type=3in&evidence={n}"] for n in (1, 2, 3)] == [99, 81, 37]
    assert sum(v for k, v in sizes.items() if "&evidence=" in k) == 2336
    assert comlq["task_details"]["judge_coverage"] == {"judged": 874, "negation_queries": 984, "rate": 874 / 984}
    lsnc10 = next(m for m in comlq["task"]["metrics"] if m["name"] == "lsnc_lexical_v1_at_10")
    assert "874 of 984 negation queries judged" in lsnc10["description"]
    assert neg["subset_sizes"]["test"]["default"] == 366
    assert {"lsnc_at_10", "lsnc_at_100", "paired_win_rate", "violation_at_1", "violator_relative_rank"} <= set(
        neg["scores"]["test"]["category=A - a"]
    )


@needs_comlq
def test_real_comlq_type_suffix_is_the_number_of_qrels():
    from leaderboard.data.beir import load_beir

    data = load_beir(COMLQ)
    suffixed = {q: split_type(r["type"]) for q, r in data.extra["query_records"].items()}
    suffixed = {q: n for q, (_, n) in suffixed.items() if n is not None}
    assert len(suffixed) == 2336
    assert all(len(data.qrels[q]) == n for q, n in suffixed.items())


# -- downloads, verified against pinned hashes, served by a local HTTP server ---------------------


@pytest.fixture
def http_root(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@needs_comlq
def test_comlq_download_is_verified_and_cached(http_root, monkeypatch):
    root, url = http_root
    with zipfile.ZipFile(root / "dataset.zip", "w") as archive:
        for rel in comlq_module.PINNED:
            archive.write(COMLQ / rel, f"dataset/{rel}")
    monkeypatch.setattr(comlq_module, "URL", f"{url}/dataset.zip")
    monkeypatch.delenv("LEADERBOARD_COMLQ_DIR", raising=False)
    data = ComLQTask().load()
    assert len(data.queries) == 2909 and data.source.kind == "url"
    (root / "dataset.zip").unlink()
    assert len(ComLQTask().load().corpus) == 11251  # served from the verified cache


@needs_comlq
def test_comlq_download_with_changed_content_is_refused(http_root, monkeypatch):
    root, url = http_root
    with zipfile.ZipFile(root / "dataset.zip", "w") as archive:
        archive.write(COMLQ / "corpus.jsonl", "corpus.jsonl")
        archive.writestr("queries.jsonl", '{"_id": "0", "text": "tampered"}\n')
        archive.write(COMLQ / "qrels" / "test.tsv", "qrels/test.tsv")
    monkeypatch.setattr(comlq_module, "URL", f"{url}/dataset.zip")
    with pytest.raises(BadInput, match="pinned sha256"):
        ComLQTask().load()


@needs_negconstraint
def test_negconstraint_download(http_root, monkeypatch):
    root, url = http_root
    for rel in neg_module.PINNED:
        (root / "NegConstraint").mkdir(exist_ok=True)
        (root / "NegConstraint" / rel).write_bytes((NEGCONSTRAINT / rel).read_bytes())
    monkeypatch.setattr(neg_module, "BASE_URL", f"{url}/NegConstraint")
    assert len(NegConstraintTask().load().queries) == 366
