"""`leaderboard import` on the real MTEB results files (../shared/data/mteb-results), and on each quirk they hold.

The references are independent of the importer: the files' own JSON, mteb's own reader
(``TaskResult.from_disk``, which converts every historic layout) for the main scores, git for
blob hashes, the stand-in hub's log for what was downloaded.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import HUB_ONLINE, SHARED_DATA, run_cli
from hub_server import HubServer

MTEB_RESULTS = SHARED_DATA / "mteb-results"
REAL = MTEB_RESULTS / "results"
REPOSITORY = "https://github.com/embeddings-benchmark/results"
COMMIT = "f4cc6c8b365a3c779dbc708d6affe0b0355b2ddf"

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"real mteb results not found at {REAL}")


def real_files() -> list[Path]:
    return sorted(p for p in REAL.glob("*/*/*.json") if p.name != "model_meta.json")


def git_blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def imported_records(out: Path) -> dict[str, dict]:
    """Source path (in the repository) -> the imported record."""
    found = {}
    for path in out.glob("*/*/*.json"):
        record = json.loads(path.read_text())
        found[record["imported_from"]["file"]] = record | {"_path": path}
    return found


def count(value) -> int | None:
    """A model_meta count as the board shows it: unknown when missing or not a positive finite number
    (mteb writes max_tokens Infinity for models without a limit, such as BM25)."""
    ok = isinstance(value, (int, float)) and math.isfinite(value) and value > 0
    return int(value) if ok else None


def run_import(*args: str) -> subprocess.CompletedProcess:
    return run_cli("import", *args)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The real folder imported once through the CLI, with its summary as JSON."""
    tmp = tmp_path_factory.mktemp("mteb-import")
    ran = run_import(
        str(MTEB_RESULTS), "--repository", REPOSITORY, "--commit", COMMIT, "-o", str(tmp / "out"),
        "--summary-json", str(tmp / "summary.json"),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    return {
        "out": tmp / "out",
        "summary": json.loads((tmp / "summary.json").read_text()),
        "records": imported_records(tmp / "out"),
        "stdout": ran.stdout,
    }


def test_every_real_file_is_imported_or_skipped_with_counts_per_task(imported):
    summary, records = imported["summary"], imported["records"]
    files = real_files()
    by_task = Counter(json.loads(p.read_text()).get("task_name") or p.stem for p in files)
    assert summary["imported"] + summary["unchanged"] + sum(summary["skipped"].values()) == len(files) == 1317
    assert summary["skipped"] == {} and summary["imported"] == 1317 and len(records) == 1317
    per_task = {task: counts["imported"] for task, counts in summary["per_task"].items()}
    renamed = {"mFollowIRCrossLingualInstructionRetrieval": "mFollowIRCrossLingual"}  # mteb 2's name
    assert per_task == {renamed.get(task, task): n for task, n in by_task.items()}
    assert "Imported 1,317 result(s)" in imported["stdout"] and "0 skipped" in imported["stdout"]
    assert {f"results/{p.relative_to(REAL).as_posix()}" for p in files} == set(records)


def test_every_main_score_equals_mtebs_reading_of_the_file(imported):
    mteb = pytest.importorskip("mteb")
    from mteb.results import TaskResult

    for source, record in imported["records"].items():
        split = record["task"]["splits"][0]
        task = mteb.get_task(record["task_details"]["mteb_task"])
        # mteb's own reader, as MTEB's leaderboard reads a file
        expected = TaskResult.from_disk(MTEB_RESULTS / source).validate_and_filter_scores(task).get_score()
        assert math.isclose(record["main_score"], expected, rel_tol=0, abs_tol=1e-9), source
        assert record["scores"][split]["default"][record["task"]["main_score"]] == record["main_score"]


def test_dates_provenance_and_model_columns_come_from_the_files(imported):
    for source, record in imported["records"].items():
        raw_bytes = (MTEB_RESULTS / source).read_bytes()
        raw = json.loads(raw_bytes)
        date = raw.get("date")
        expected_date = dt.datetime.fromtimestamp(date, dt.UTC).replace(microsecond=0).isoformat() if date else None
        assert record["created_at"] == expected_date, source  # never the import time
        origin = record["imported_from"]
        assert origin["blob"] == git_blob(raw_bytes)
        assert (origin["repository"], origin["commit"]) == (REPOSITORY, COMMIT)
        assert origin["url"] == f"{REPOSITORY}/blob/{COMMIT}/{source}"
        assert origin["mteb_version"] == raw.get("mteb_version") == record["task_details"]["mteb_version"]
        assert record["harness"] == {
            "name": "mteb",
            "version": raw.get("mteb_version") or "unknown",
            "git_commit": None,
        }
        revision = raw.get("dataset_revision")
        assert record["task"]["source"]["revision"] == (None if revision in (None, "None") else revision)
        seconds = raw["evaluation_time"] if "evaluation_time" in raw else raw.get("test", {}).get("evaluation_time")
        assert record["timings"].get("total") == seconds
        folder = (MTEB_RESULTS / source).parent
        meta_file = folder / "model_meta.json"
        model = record["model"]
        if not meta_file.exists():
            assert (model["name"], model["revision"]) == (folder.parent.name.replace("__", "/"), folder.name)
            assert "no model_meta.json" in " ".join(record["task_details"]["import_notes"])
            continue
        meta = json.loads(meta_file.read_text())
        assert (model["name"], model["revision"]) == (meta["name"], meta["revision"])
        shown = model["metadata"]
        for ours, theirs in (
            ("n_parameters", "n_parameters"),
            ("embedding_dim", "embed_dim"),
            ("max_length", "max_tokens"),
        ):
            assert shown[ours] == count(meta.get(theirs)), (source, ours)
        assert shown["license"] == meta.get("license") and shown["release_date"] == meta.get("release_date")
        assert shown["open_weights"] == meta.get("open_weights") and shown["reference"] == meta.get("reference")
        trained = meta.get("training_datasets")
        assert shown["training_datasets"] == (sorted(trained) if trained is not None else None)


def test_nan_nauc_values_are_dropped_and_named_the_rest_kept(imported):
    hits = [p for p in real_files() if "NaN" in p.read_text()]
    assert len(hits) > 100  # the real repository's quirk: NaN in nauc_* (nAUC of a constant ranking)
    for path in hits[:50]:
        record = imported["records"][f"results/{path.relative_to(REAL).as_posix()}"]
        dropped = record["task_details"]["non_finite_metrics_dropped"]
        raw = json.loads(path.read_text())  # Python's json reads NaN
        split = next(iter(raw["scores"]))
        nan_names = {k for e in raw["scores"][split] for k, v in e.items() if isinstance(v, float) and math.isnan(v)}
        assert {d.split("/")[-1] for d in dropped if d.startswith(f"{split}/")} >= nan_names
        assert any("non-finite" in note for note in record["task_details"]["import_notes"])
        for name in nan_names:
            assert all(name not in values for values in record["scores"][split].values())


def test_a_non_finite_main_score_skips_only_that_file(tmp_path):
    source = tmp_path / "results"
    shutil.copytree(REAL / "BAAI__bge-base-en-v1.5", source / "BAAI__bge-base-en-v1.5")
    victim = next(source.rglob("SciFact.json"))
    text = victim.read_text()
    data = json.loads(text)
    entry = data["scores"]["test"][0]
    entry["main_score"] = entry["ndcg_at_10"] = float("nan")
    victim.write_text(json.dumps(data))  # json writes NaN, as mteb's files do
    ran = run_import(str(tmp_path), "-o", str(tmp_path / "out"))
    assert ran.returncode == 4, ran.stderr
    assert "Skipped, non-finite main score: 1" in ran.stderr and "Import incomplete" in ran.stderr
    assert f"results/{victim.relative_to(source).as_posix()}" not in imported_records(tmp_path / "out")
    assert len(list((tmp_path / "out").glob("*/*/*.json"))) == len(list(source.rglob("*.json"))) - 2  # meta, victim


def test_a_file_with_broken_json_is_skipped_with_where_and_the_others_imported(tmp_path):
    source = tmp_path / "results"
    shutil.copytree(REAL / "intfloat__e5-large", source / "intfloat__e5-large")
    victim = next(source.rglob("News21InstructionRetrieval.json"))
    victim.write_bytes(victim.read_bytes()[:500])  # cut off mid-file
    ran = run_import(str(source), "-o", str(tmp_path / "out"))
    assert ran.returncode == 4 and "Traceback" not in ran.stderr
    assert "Skipped, broken JSON: 1" in ran.stderr and "not JSON" in ran.stderr and "line" in ran.stderr
    assert "News21InstructionRetrieval.json" in ran.stderr
    tasks = sorted(r["task"]["name"] for r in imported_records(tmp_path / "out").values())
    assert tasks == ["Core17InstructionRetrieval", "Robust04InstructionRetrieval", "mteb:SciFact"]


def test_files_without_a_date_have_none_and_dated_ones_keep_theirs(imported):
    records = imported["records"].values()
    undated = [r for r in records if r["created_at"] is None]
    assert len(undated) == 850 and all(r["imported_from"] is not None for r in undated)  # counted in the files
    dated = [r for r in records if r["created_at"] is not None]
    assert len(dated) == 467 and max(r["created_at"] for r in dated) < "2030"


def test_old_field_names_and_layouts(imported):
    records = imported["records"]
    # before 1.11: the task as mteb_dataset_name and the split at the top level, no main_score field
    old = records["results/BAAI__bge-base-en/no_revision_available/Core17InstructionRetrieval.json"]
    assert old["task_details"]["mteb_layout"] == "before 1.11" and old["main_score"] == pytest.approx(
        -0.026528676852285965
    )
    old_scifact = records["results/Alibaba-NLP__gte-Qwen1.5-7B-instruct/no_revision_available/SciFact.json"]
    assert old_scifact["scores"]["test"]["default"]["ndcg_at_10"] == old_scifact["main_score"] == 0.75312
    assert old_scifact["timings"] == {"total": 34.64}
    # mteb 1.x's FollowIR groups: individual.original/changed are mteb 2's og/changed
    v1 = records[
        "results/Alibaba-NLP__gte-Qwen1.5-7B-instruct/07d27e5226328010336563bc1b564a5e3436a298/Core17InstructionRetrieval.json"
    ]
    raw = json.loads((MTEB_RESULTS / v1["imported_from"]["file"]).read_text())["scores"]["test"][0]["individual"]
    values = v1["scores"]["test"]["default"]
    assert values["og_map_at_1000"] == raw["original"]["map_at_1000"]
    assert values["changed_ndcg_at_5"] == raw["changed"]["ndcg_at_5"]
    assert values["og_naucs_at_1_std"] == raw["original"]["naucs_at_1_std"]  # 1.x's nAUC name, kept (may be < 0)
    # mteb 2.x wrote MRR's nAUC as mrr_at_k_max/std/diff1: kept, not mistaken for an MRR outside [0, 1]
    v2 = records[
        "results/codefuse-ai__F2LLM-v2-0.6B/54b4e2dc74e01be7126d4cf5f016af6b21edc563/News21InstructionRetrieval.json"
    ]
    assert v2["scores"]["test"]["default"]["changed_mrr_at_100_max"] == -0.31855
    assert "out_of_range_metrics_dropped" not in v2["task_details"]


def test_per_language_subsets_and_missing_subsets(imported):
    records = imported["records"]
    cross = next(r for r in records.values() if r["task"]["name"] == "mFollowIRCrossLingual")
    subsets = cross["scores"]["test"]
    assert set(subsets) == {"default", "eng-fas", "eng-rus", "eng-zho"} and cross["coverage"]["complete"]
    mean = sum(subsets[s]["p-MRR"] for s in ("eng-fas", "eng-rus", "eng-zho")) / 3
    assert subsets["default"]["p-MRR"] == pytest.approx(mean, abs=1e-12) == cross["main_score"]
    assert "mteb renamed mFollowIRCrossLingualInstructionRetrieval" in " ".join(cross["task_details"]["import_notes"])
    bright = [r for r in records.values() if r["task"]["name"] == "mteb:BrightRetrieval"]
    assert len(bright) == 29 and all(r["coverage"]["complete"] for r in bright)
    for record in bright:  # twelve domains as hf_subsets; "default" is their mean, as mteb's get_score
        domains = [v for k, v in record["scores"]["standard"].items() if k != "default"]
        assert len(domains) == 12
        mean = sum(v["ndcg_at_10"] for v in domains) / 12
        assert record["main_score"] == pytest.approx(mean, abs=1e-12)


def test_a_file_missing_some_of_the_tasks_subsets_is_partial(tmp_path):
    source = next(p for p in REAL.glob("*/*/BrightRetrieval.json"))
    data = json.loads(source.read_text())
    data["scores"]["standard"] = [e for e in data["scores"]["standard"] if e["hf_subset"] not in ("leetcode", "pony")]
    folder = tmp_path / "results" / "org__m" / "r"
    folder.mkdir(parents=True)
    (folder / "BrightRetrieval.json").write_text(json.dumps(data))
    assert run_import(str(tmp_path), "-o", str(tmp_path / "out")).returncode == 0
    (record,) = imported_records(tmp_path / "out").values()
    assert record["coverage"]["complete"] is False  # never ranked, as mteb fills the missing ones with NaN
    assert "lacks 2 of the task's subsets" in record["coverage"]["reason"]
    assert "leetcode" in record["coverage"]["reason"] and "pony" in record["coverage"]["reason"]


def test_external_revisions_are_marked(imported):
    external = [r for r in imported["records"].values() if "/external/" in r["imported_from"]["file"]]
    assert len(external) == 96 and all(r["imported_from"]["external"] for r in external)
    assert not any(r["imported_from"]["external"] for r in imported["records"].values() if r not in external)
    assert all(r["model"]["revision"] == "external" for r in external)
    e5 = imported["records"]["results/intfloat__e5-large/external/SciFact.json"]
    assert e5["task"]["source"]["revision"] is None  # the file says "None": no dataset revision is known


def test_reimport_writes_nothing_and_a_changed_file_replaces_its_import(imported, tmp_path):
    source = tmp_path / "results"
    shutil.copytree(REAL / "intfloat__e5-large", source / "intfloat__e5-large")
    out = tmp_path / "out"
    assert run_import(str(source), "-o", str(out)).returncode == 0
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("*/*/*.json")}
    again = run_import(str(source), "-o", str(out))
    assert again.returncode == 0 and "Imported 0 result(s)" in again.stdout and "4 unchanged" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/*/*.json")} == stamps
    (out / ".mteb-import.json").unlink()  # without the manifest: converted again, compared byte for byte
    assert "Imported 0 result(s)" in run_import(str(source), "-o", str(out)).stdout
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/*/*.json")} == stamps
    changed = next(source.rglob("SciFact.json"))
    data = json.loads(changed.read_text())
    data["scores"]["test"][0]["main_score"] = data["scores"]["test"][0]["ndcg_at_10"] = 0.5
    changed.write_text(json.dumps(data))
    third = run_import(str(source), "-o", str(out))
    assert "Imported 1 result(s)" in third.stdout and "1 replacing" in third.stdout
    assert imported_records(out)["results/intfloat__e5-large/external/SciFact.json"]["main_score"] == 0.5


def test_other_task_types_are_counted_never_read_and_unknown_tasks_are_skipped(tmp_path):
    folder = tmp_path / "results" / "org__model" / "abc"
    folder.mkdir(parents=True)
    shutil.copy(REAL / "intfloat__e5-large" / "external" / "SciFact.json", folder / "SciFact.json")
    (folder / "STS12.json").write_text("{ not json: never opened")  # an STS task: counted by its name only
    (folder / "Banking77Classification.json").write_text("[")
    (folder / "NoSuchTaskAnywhere.json").write_text("{}")
    ran = run_import(str(tmp_path), "-o", str(tmp_path / "out"))
    assert ran.returncode == 4
    assert "2 of other task types not read" in ran.stdout and "STS 1" in ran.stderr and "Classification 1" in ran.stderr
    assert "Skipped, a task unknown to mteb" in ran.stderr and "NoSuchTaskAnywhere" in ran.stderr
    assert "broken JSON" not in ran.stderr
    (record,) = imported_records(tmp_path / "out").values()
    assert record["task"]["name"] == "mteb:SciFact" and record["model"]["name"] == "org/model"


def test_cli_needs_one_source():
    assert run_import().returncode == 2
    both = run_import(str(REAL), "--repo", "mteb/results")
    assert both.returncode == 2 and "not both" in both.stderr


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout.strip()


def test_a_git_checkout_gives_commit_blob_and_link(tmp_path):
    repo = tmp_path / "results-repo"
    shutil.copytree(REAL / "intfloat__e5-large", repo / "results" / "intfloat__e5-large")
    _git(tmp_path, "init", "-q", str(repo))
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "results")
    _git(repo, "remote", "add", "origin", "git@github.com:embeddings-benchmark/results.git")
    head = _git(repo, "rev-parse", "HEAD")
    dirty = repo / "results" / "intfloat__e5-large" / "external" / "SciFact.json"
    dirty.write_text(dirty.read_text().replace("0.7258", "0.7259"))  # an uncommitted change
    assert run_import(str(repo), "-o", str(tmp_path / "out")).returncode == 0
    records = imported_records(tmp_path / "out")
    assert len(records) == 4
    for path, record in records.items():
        origin = record["imported_from"]
        assert origin["repository"] == REPOSITORY
        if path.endswith("external/SciFact.json"):
            assert origin["commit"] is None and origin["url"] is None  # the link would show other bytes
            assert origin["blob"] == git_blob(dirty.read_bytes())
        else:
            assert origin["commit"] == head and origin["blob"] == _git(repo, "rev-parse", f"HEAD:{path}")
            assert origin["url"] == f"{REPOSITORY}/blob/{head}/{path}"


def test_the_hub_dataset_downloads_only_what_it_imports(tmp_path):
    files = {}
    for path in sorted((REAL / "intfloat__e5-large").rglob("*")):
        if path.is_file():
            files[f"results/{path.relative_to(REAL).as_posix()}"] = path.read_bytes()
    files["results/intfloat__e5-large/external/STS12.json"] = b'{"task_name": "STS12"}'
    files["README.md"] = b"# results\n"
    with HubServer() as hub:
        from hub_server import Repo

        hub.state.repos["mteb/results"] = Repo(files=dict(files))
        ran = run_cli(
            "import", "--repo", "mteb/results", "--endpoint", hub.endpoint, "-o", str(tmp_path / "out"), env=HUB_ONLINE
        )
        assert ran.returncode == 0, ran.stderr
        downloaded = set(hub.state.downloads)
        assert "results/intfloat__e5-large/external/STS12.json" not in downloaded and "README.md" not in downloaded
        assert {p for p in downloaded if not p.endswith("model_meta.json")} == {
            p for p in files if p.endswith("Retrieval.json") or p.endswith("SciFact.json")
        }
        records = imported_records(tmp_path / "out")
        assert len(records) == 4
        for path, record in records.items():
            origin = record["imported_from"]
            assert origin["repository"] == f"{hub.endpoint}/datasets/mteb/results"
            assert origin["url"] == f"{hub.endpoint}/datasets/mteb/results/blob/{origin['commit']}/{path}"
            assert origin["blob"] == git_blob(files[path])
        hub.state.downloads.clear()
        again = run_cli(
            "import", "--repo", "mteb/results", "--endpoint", hub.endpoint, "-o", str(tmp_path / "out"), env=HUB_ONLINE
        )
        assert again.returncode == 0 and "4 unchanged" in again.stdout
        assert hub.state.downloads == []  # unchanged blob ids: nothing downloaded


def test_an_unreachable_hub_is_bad_input(tmp_path):
    with HubServer() as hub:
        endpoint = hub.endpoint
    ran = run_cli(
        "import", "--repo", "mteb/results", "--endpoint", endpoint, "-o", str(tmp_path / "out"), env=HUB_ONLINE
    )
    assert ran.returncode == 2 and "Network error" in ran.stderr and "Traceback" not in ran.stderr


def test_the_shipped_task_registry_is_mtebs():
    pytest.importorskip("mteb")
    import mteb

    from leaderboard.mteb.tasks import REGISTRY_FILE, generate, registry_text

    shipped = json.loads(REGISTRY_FILE.read_text())
    if shipped["mteb_version"] != mteb.__version__:
        pytest.skip(f"shipped from mteb {shipped['mteb_version']}, installed {mteb.__version__}")
    assert REGISTRY_FILE.read_text() == registry_text(generate()), "run: python -m leaderboard.mteb.tasks"


def test_a_broken_model_meta_costs_the_model_columns_not_the_results(tmp_path):
    source = tmp_path / "results"
    shutil.copytree(REAL / "intfloat__e5-large", source / "intfloat__e5-large")
    (source / "intfloat__e5-large" / "external" / "model_meta.json").write_text('{"name": "intfloat/e5-large", ')
    assert run_import(str(source), "-o", str(tmp_path / "out")).returncode == 0
    record = imported_records(tmp_path / "out")["results/intfloat__e5-large/external/SciFact.json"]
    assert (record["model"]["name"], record["model"]["revision"]) == ("intfloat/e5-large", "external")
    assert record["model"]["metadata"] == {"training_tasks": None}
    assert "model_meta.json is not readable" in " ".join(record["task_details"]["import_notes"])


def test_the_zero_shot_filter_is_in_the_link():
    from leaderboard.app.data.url_state import parse

    assert parse("?benchmark=FollowIR&zs=only").zero_shot == "only"
    assert parse("?benchmark=FollowIR").zero_shot == ""


def test_hostile_files_are_skipped_and_never_block_or_crash(tmp_path):
    import os

    folder = tmp_path / "results" / "org__m" / "r"
    folder.mkdir(parents=True)
    shutil.copy(REAL / "intfloat__e5-large" / "external" / "SciFact.json", folder / "SciFact.json")
    os.mkfifo(folder / "NFCorpus.json")  # reading it would block forever
    (folder / "ArguAna.json").write_text("[" * 100_000 + "]" * 100_000)  # nested deeper than any parser allows
    (folder / "FiQA2018.json").write_text(json.dumps({"task_name": "FiQA2018", "scores": {"test": ["x", 1]}}))
    (folder / "model_meta.json").write_text(
        json.dumps({"name": "<img src=x onerror=alert(1)>/..", "n_parameters": "7B"})
    )
    (folder / "SCIDOCS.json").mkdir()  # a folder with a result's name
    ran = run_import(str(tmp_path), "-o", str(tmp_path / "out"))
    assert ran.returncode == 4 and "Traceback" not in ran.stderr
    assert "Skipped, unreadable: 1" in ran.stderr and "not a regular file" in ran.stderr
    assert "Skipped, broken JSON: 1" in ran.stderr and "ArguAna.json" in ran.stderr
    assert "FiQA2018.json" in ran.stderr  # scores that are not scores: no split mteb could read
    (record,) = imported_records(tmp_path / "out").values()
    assert (
        record["model"]["name"] == "<img src=x onerror=alert(1)>/.."
        and record["model"]["metadata"]["n_parameters"] is None
    )
    assert all(
        ".." not in part for part in next((tmp_path / "out").glob("*/*/*.json")).relative_to(tmp_path / "out").parts
    )
