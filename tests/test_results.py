"""Result files: schema validation, atomic writes, skip and overwrite."""

import json

import pytest
from click.testing import CliRunner
from conftest import read_result_dict

from leaderboard.cli import cli
from leaderboard.errors import BadInput
from leaderboard.records import files as results


def run_demo(out, *extra):
    return CliRunner().invoke(
        cli, ["run", "--model", "bm25", "--task", "demo", "--output", str(out), *extra], catch_exceptions=False
    )


def only_result(out):
    files = list(out.rglob("*.json"))
    assert len(files) == 1, files
    return files[0]


def test_result_is_schema_valid_and_complete(tmp_path):
    assert run_demo(tmp_path).exit_code == 0
    data = read_result_dict(only_result(tmp_path))
    assert data["schema_version"] == "2"
    assert data["task"]["source"]["content_hash"].startswith("sha256:")
    assert data["task"]["source"]["kind"] == "embedded"
    assert data["model"]["plugin"] == "bm25" and data["model"]["revision"].startswith("bm25s-")
    assert data["settings"]["model_settings"]["k1"] == 1.5 and data["settings"]["model_settings"]["stemmer"]
    assert data["settings"]["libraries"]["pytrec-eval-terrier"]
    assert set(data["timings"]) >= {"model_load", "data_load", "evaluation", "total"}
    assert data["main_score"] == data["scores"]["test"]["default"]["ndcg_at_10"]
    assert data["counts"]["queries"] == 12 and data["counts"]["documents"] == 32


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (lambda r: r.pop("scores"), "scores: Field required"),
        (lambda r: r.__setitem__("schema_version", "99"), "unknown schema_version"),
        (lambda r: r["scores"]["test"]["default"].__setitem__("ndcg_at_10", float("nan")), "finite number"),
        (lambda r: r["task"]["source"].__setitem__("content_hash", "md5:xyz"), "content_hash"),
        (lambda r: r["model"].__setitem__("kind", "magic"), "kind"),
    ],
)
def test_invalid_results_are_refused_on_read(tmp_path, mutate, fragment):
    assert run_demo(tmp_path / "out").exit_code == 0
    data = json.loads(only_result(tmp_path / "out").read_text())
    mutate(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(BadInput, match=fragment):
        read_result_dict(bad)
    shown = CliRunner().invoke(cli, ["show", str(tmp_path)])
    assert shown.exit_code == 0 and "skipped" in shown.output and "bad.json" in shown.output


def test_write_is_atomic(tmp_path, monkeypatch):
    target = tmp_path / "r" / "result.json"
    results.write_json_atomic(target, {"before": 1})

    def crash(data, handle, **kwargs):
        handle.write('{"half": ')
        raise KeyboardInterrupt  # an interrupted run

    monkeypatch.setattr(results.json, "dump", crash)
    with pytest.raises(KeyboardInterrupt):
        results.write_json_atomic(target, {"after": 2})
    assert json.loads(target.read_text()) == {"before": 1}  # the old file is intact
    assert [p.name for p in target.parent.iterdir()] == ["result.json"]  # no temporary left behind


def test_interrupted_first_write_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(results.json, "dump", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        results.write_json_atomic(tmp_path / "x.json", {"a": 1})
    assert list(tmp_path.iterdir()) == []


def test_skip_then_overwrite(tmp_path):
    first = run_demo(tmp_path)
    assert "written" in first.output
    path = only_result(tmp_path)
    created = json.loads(path.read_text())["created_at"]
    stamp = path.stat().st_mtime_ns
    second = run_demo(tmp_path, "--batch-size", "7")  # batch size does not change scores: same run
    assert second.exit_code == 0 and "skipped" in second.output
    assert path.stat().st_mtime_ns == stamp
    third = run_demo(tmp_path, "--overwrite")
    assert third.exit_code == 0 and "written" in third.output
    assert path.stat().st_mtime_ns != stamp or json.loads(path.read_text())["created_at"] >= created


def test_different_settings_need_overwrite(tmp_path):
    assert run_demo(tmp_path).exit_code == 0
    path = only_result(tmp_path)
    before = path.read_text()
    other = run_demo(tmp_path, "--seed", "3")
    assert other.exit_code == 2 and "--overwrite" in other.output
    assert path.read_text() == before
    assert run_demo(tmp_path, "--seed", "3", "--overwrite").exit_code == 0
    assert json.loads(path.read_text())["settings"]["seed"] == 3


def test_a_limited_run_is_partial_and_never_replaces_the_full_result(tmp_path):
    assert run_demo(tmp_path).exit_code == 0
    full = only_result(tmp_path)
    before = full.read_text()
    assert run_demo(tmp_path, "--limit", "3").exit_code == 0
    partial = full.with_name("demo.partial-limit3.json")
    assert full.read_text() == before
    data = json.loads(partial.read_text())
    assert data["coverage"] == {"complete": False, "queries": 3, "total_queries": 12, "reason": "--limit 3"}
    assert json.loads(before)["coverage"]["complete"] is True


def test_result_path_layout():
    import hashlib

    path = results.result_path("out", "org/model name", None, "beir-x")
    # the slug differs from the exact name: a hash of the exact name keeps the path injective
    digest = hashlib.sha256(b"org/model name").hexdigest()[:10]
    assert path.as_posix() == f"out/org__model_name~{digest}/no_revision/beir-x.json"
    assert results.result_path("out", "bm25", "bm25s-0.3.16", "demo").as_posix() == "out/bm25/bm25s-0.3.16/demo.json"
