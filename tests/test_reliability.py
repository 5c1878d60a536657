"""Reliability (issue 16): result paths never collide, plugins are isolated, the cache heals, files are tidy."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import time
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner
from conftest import make_plugin_dist, run_cli

import leaderboard
from leaderboard.contract.model import DenseModel, ModelKind, ModelMetadata
from leaderboard.errors import BadInput, LeaderboardError
from leaderboard.fileio import atomic_open, current_umask, process_start_time
from leaderboard.records import files
from leaderboard.registry import _isolated, _Stopped


class Toy(DenseModel):
    """A deterministic bag-of-characters encoder: tiny, offline, and different for each seed."""

    def __init__(self, name: str, seed: int = 0, dim: int = 16, revision: str | None = "r1"):
        self.metadata = ModelMetadata(name, ModelKind.DENSE, revision=revision, similarity="cosine")
        self.seed, self.dim = seed, dim

    def encode(self, texts, role):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for ch in text:
                out[i, (ord(ch) * 31 + self.seed) % self.dim] += 1.0
            out[i, self.seed % self.dim] += 0.5
        return out


def run_toy(model, out, **options):
    (outcome,) = leaderboard.evaluate([model], ["demo"], output=out, **options)
    return outcome


# -- result paths ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "one, other",
    [("a/b", "a__b"), ("org/m", "org__m"), ("m 1", "m_1"), ("x" * 150, "x" * 151)],  # st:org/m is named org/m
)
def test_path_components_are_injective(one, other):
    assert files.slug(one) == files.slug(other) or len(one) > 100  # the old layout collided (or was too long)
    assert files.path_component(one) != files.path_component(other)


def test_plain_names_keep_their_folder_and_long_names_are_bounded():
    assert files.path_component("bm25") == "bm25" and files.path_component("bm25s-0.3.16") == "bm25s-0.3.16"
    for name in ("é" * 300, "a/" * 200, "x" * 1000, "模型/" * 100):
        part = files.path_component(name)
        assert len(part.encode()) <= files.MAX_COMPONENT_BYTES
        assert part.endswith(hashlib.sha256(name.encode()).hexdigest()[: files.NAME_HASH_CHARS])
    assert files.path_component("\ud800") != files.path_component("\ud801")  # lone surrogates hash too


def test_two_models_sharing_a_slug_get_their_own_results(tmp_path):
    """'a/b' and 'a__b' shared a folder: the second run said it held 'a result for a__b' (false), and
    --overwrite replaced a/b's result."""
    first = run_toy(Toy("a/b", seed=1), tmp_path)
    second = run_toy(Toy("a__b", seed=2), tmp_path)
    assert first.status == second.status == "written" and first.path != second.path
    third = run_toy(Toy("a__b", seed=3), tmp_path, overwrite=True)
    assert third.path == second.path
    assert files.read_result(first.path).model.name == "a/b"  # untouched
    assert files.read_result(second.path).model.name == "a__b"
    assert run_toy(Toy("a/b", seed=1), tmp_path).status == "skipped"


def test_results_in_the_old_layout_are_still_found(tmp_path):
    written = run_toy(Toy("org/m", seed=1), tmp_path)
    legacy = files.legacy_result_path(tmp_path, "org/m", "r1", "demo")
    assert legacy != written.path
    legacy.parent.mkdir(parents=True)
    written.path.rename(legacy)  # as an earlier version wrote it: plain slugs
    again = run_toy(Toy("org/m", seed=1), tmp_path)
    assert again.status == "skipped" and again.path == legacy
    with pytest.raises(BadInput, match="different settings"):
        run_toy(Toy("org/m", seed=1), tmp_path, seed=5)
    replaced = run_toy(Toy("org/m", seed=1), tmp_path, seed=5, overwrite=True)
    assert replaced.path == legacy and files.read_result(legacy).settings.seed == 5  # replaced in place


def test_an_old_file_of_another_model_is_never_replaced(tmp_path):
    """In the old layout 'org/m' wrote org__m/...; a model really named 'org__m' must not take that file."""
    written = run_toy(Toy("org/m", seed=1), tmp_path)
    legacy = files.legacy_result_path(tmp_path, "org/m", "r1", "demo")
    legacy.parent.mkdir(parents=True)
    written.path.rename(legacy)
    before = legacy.read_bytes()
    for overwrite in (False, True):
        with pytest.raises(BadInput) as caught:
            run_toy(Toy("org__m", seed=2), tmp_path, overwrite=overwrite)
        message = str(caught.value)
        assert "holds a result for model 'org/m'" in message and "not for 'org__m'" in message
        assert "never replaced" in message
    assert legacy.read_bytes() == before


def test_a_model_name_over_255_bytes_is_written(tmp_path):
    """It exited 1 with 'File name too long' and left empty folders behind."""
    outcome = run_toy(Toy("n" * 300, revision="v" * 300), tmp_path)
    assert outcome.status == "written"
    assert all(len(part.encode()) <= 110 for part in outcome.path.relative_to(tmp_path).parts)
    assert files.read_result(outcome.path).model.name == "n" * 300


def test_a_failed_write_leaves_no_folders(tmp_path):
    target = tmp_path / "a" / "b" / "c" / "result.json"
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("{")
        raise RuntimeError("killed half-way")
    assert list(tmp_path.iterdir()) == []


# -- housekeeping ------------------------------------------------------------------------------------


def test_stale_temporaries_are_removed_and_live_ones_kept(tmp_path):
    stale = tmp_path / ".demo.json.abcd1234.tmp"
    live = tmp_path / ".demo.json.efgh5678.tmp"
    other = tmp_path / ".notes.tmp"  # not one of ours
    for path in (stale, live, other):
        path.write_text("{")
    old = process_start_time() - 3600
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    with atomic_open(tmp_path / "demo.json") as handle:
        handle.write("{}")
    assert not stale.exists() and live.exists() and other.exists()


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_follow_the_umask(tmp_path, umask):
    previous = os.umask(umask)
    try:
        assert current_umask() == umask
        with atomic_open(tmp_path / "r.json") as handle:
            handle.write("{}")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o666 & ~umask


def test_labelled_errors_and_foreign_sys_exit():
    """A push conflict printed 'Internal error:' (exit 3); a plugin's sys.exit(3) passed for a push conflict."""
    from leaderboard.cli.main import Group

    class Conflict(LeaderboardError):
        exit_code = 3
        label = "Push conflict"

    @click.group(cls=Group)
    def group():
        pass

    @group.command()
    def conflict():
        raise Conflict("someone pushed first")

    @group.command()
    def exits():
        raise SystemExit(3)

    ran = CliRunner().invoke(group, ["conflict"])
    assert ran.exit_code == 3 and ran.output.startswith("Push conflict: someone pushed first")
    ran = CliRunner().invoke(group, ["exits"])
    assert ran.exit_code == 1 and "called sys.exit(3)" in ran.output and "Traceback" not in ran.output


def test_push_conflict_is_labelled():
    from leaderboard.hub.store import PushConflict

    assert PushConflict.label == "Push conflict" and PushConflict.exit_code == 3


# -- plugin isolation --------------------------------------------------------------------------------

HANGS = "import time\ntime.sleep(120)\n"
EXITS = "import sys\nsys.exit(3)\n"
PRINTS = """
from leaderboard import hookimpl
print("hello from import")

@hookimpl
def register_tasks(register):
    print("hello from a hook")
"""
HOOK_EXITS = """
from leaderboard import hookimpl

@hookimpl
def register_tasks(register):
    raise SystemExit(4)
"""
FACTORY_EXITS = """
from leaderboard import hookimpl

def factory(request):
    raise SystemExit(3)

@hookimpl
def register_models(register):
    register("exits-when-built", factory, description="calls sys.exit(3)")
"""


def test_hostile_plugins_are_reported_and_the_cli_keeps_working(tmp_path):
    site = tmp_path / "site"
    for name, source in [
        ("hangs", HANGS),
        ("exits", EXITS),
        ("prints", PRINTS),
        ("hook-exits", HOOK_EXITS),
        ("factory-exits", FACTORY_EXITS),
    ]:
        module = name.replace("-", "_")
        make_plugin_dist(site, name, module, source, {name: module})
    allow = "hangs,exits,prints,hook-exits,factory-exits,bm25,demo"
    env = {"PYTHONPATH": str(site), "LEADERBOARD_PLUGIN_TIMEOUT": "1.5", "LEADERBOARD_PLUGINS": allow}
    started = time.monotonic()
    listed = run_cli("plugins", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert time.monotonic() - started < 60  # a hanging import used to hang forever
    plugins = {p["name"]: p for p in json.loads(listed.stdout)}  # stdout is pure JSON
    assert "plugin 'hangs' did not finish loading within 1.5 s" in plugins["hangs"]["errors"][0]
    assert "SystemExit: 3" in plugins["exits"]["errors"][0]
    assert "hook register_tasks raised SystemExit: 4" in plugins["hook-exits"]["errors"][0]
    assert not plugins["prints"]["errors"] and "hello from import" in listed.stderr
    assert "hello from a hook" in listed.stderr
    assert plugins["bm25"]["models"] == ["bm25", "bm25:mair"]  # the default and its named MAIR variant
    ran = run_cli("run", "-m", "bm25", "-t", "demo", "-o", str(tmp_path / "out"), env=env)
    assert ran.returncode == 0, ran.stderr  # exited 3 (the push-conflict code) with no output; `tasks` hung
    ran = run_cli("run", "-m", "exits-when-built", "-t", "demo", "-o", str(tmp_path / "out"), env=env)
    assert ran.returncode == 1 and "sys.exit(3)" in ran.stderr and "Traceback" not in ran.stderr


def test_unknown_allowlist_names_are_warned_about():
    ran = run_cli("plugins", "--json", env={"LEADERBOARD_PLUGINS": "bm25,bm52"})
    assert ran.returncode == 0 and [p["name"] for p in json.loads(ran.stdout)] == ["bm25"]
    assert "LEADERBOARD_PLUGINS names 'bm52'" in ran.stderr and "bm25" in ran.stderr


def test_isolated_call_bounds_time_and_catches_every_exit():
    assert _isolated(lambda: 5, 1.0) == 5
    with pytest.raises(_Stopped, match="did not finish within 0.2 s"):
        _isolated(lambda: time.sleep(5), 0.2)
    with pytest.raises(_Stopped, match="raised SystemExit: 3"):
        _isolated(lambda: (_ for _ in ()).throw(SystemExit(3)), 1.0)
    with pytest.raises(_Stopped, match="raised KeyboardInterrupt"):
        _isolated(lambda: (_ for _ in ()).throw(KeyboardInterrupt()), 1.0)
    with pytest.raises(ValueError, match="plain"):
        _isolated(lambda: (_ for _ in ()).throw(ValueError("plain")), 1.0)


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan"])
def test_a_bad_plugin_timeout_is_bad_input(monkeypatch, value):
    from leaderboard.registry import load_registry

    monkeypatch.setenv("LEADERBOARD_PLUGIN_TIMEOUT", value)
    with pytest.raises(BadInput, match="LEADERBOARD_PLUGIN_TIMEOUT"):
        load_registry([])


# -- the embedding cache -----------------------------------------------------------------------------


def make_cache(root: Path, rows: int = 400, dim: int = 8):
    from leaderboard.engine.cache import EmbeddingCache

    cache = EmbeddingCache("toy", "r1", {}, root=root)
    texts = [f"text {i}" for i in range(rows)]
    cache.put_many("document", texts, np.full((rows, dim), 0.5, dtype=np.float32))
    return cache, texts


def corrupt_a_table_page(path: Path) -> None:
    """Overwrite the header of a page that holds vector data (0.5 = 00 00 00 3f), not an index page.

    The file change counter (header bytes 24-27) is bumped as any writer would, so a connection that
    is already open drops its page cache and reads the damaged page.
    """
    raw = bytearray(path.read_bytes())
    page_size = int.from_bytes(raw[16:18], "big")
    at = raw.index(bytes.fromhex("0000003f") * 8, 2 * page_size)
    page = at // page_size
    raw[page * page_size : page * page_size + 12] = b"\xff" * 12
    raw[24:28] = (int.from_bytes(raw[24:28], "big") + 1).to_bytes(4, "big")
    path.write_bytes(bytes(raw))


def test_corrupt_table_pages_behind_an_intact_index_are_caught_on_open(tmp_path, capsys):
    from leaderboard.engine.cache import EmbeddingCache

    cache, texts = make_cache(tmp_path)
    cache._db.close()
    corrupt_a_table_page(cache.path)
    db = sqlite3.connect(cache.path)
    assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == len(texts)  # the old open check passes
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        db.execute("SELECT data FROM vectors").fetchall()  # ... and every later run failed
    db.close()
    reopened = EmbeddingCache("toy", "r1", {}, root=tmp_path)
    message = capsys.readouterr().err.replace("\n", "")
    assert str(cache.path) in message and "moved it to" in message
    (aside,) = reopened.moved_aside
    assert aside.exists() and aside.name.startswith(cache.path.name + ".corrupt-")
    assert reopened.get_many("document", texts[:5]) == {}  # recomputed, never served
    reopened.put_many("document", texts[:5], np.ones((5, 8), dtype=np.float32))
    assert len(reopened.get_many("document", texts[:5])) == 5


def test_damage_found_after_opening_is_healed_mid_run(tmp_path, capsys):
    cache, texts = make_cache(tmp_path)
    corrupt_a_table_page(cache.path)  # while this process has the database open
    found = cache.get_many("document", texts)
    assert found == {} or all(v.shape == (8,) for v in found.values())
    assert "is damaged" in capsys.readouterr().err and len(cache.moved_aside) == 1
    cache.put_many("document", texts[:3], np.ones((3, 8), dtype=np.float32))
    assert len(cache.get_many("document", texts[:3])) == 3


def test_a_self_consistent_row_of_the_wrong_width_is_not_served(tmp_path):
    from leaderboard.engine.cache import EmbeddingCache, text_key

    cache, texts = make_cache(tmp_path, rows=10)
    wrong = np.ones(5, dtype=np.float32).tobytes()
    with cache._db:
        cache._db.execute(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            (text_key("document", texts[0]), 5, hashlib.sha256(wrong).hexdigest(), wrong),
        )
    for fresh in (cache, EmbeddingCache("toy", "r1", {}, root=tmp_path)):
        found = fresh.get_many("document", texts)
        assert texts[0] not in found and len(found) == 9 and fresh.stats.corrupt == 1


def test_a_cache_without_a_stored_width_uses_the_width_most_rows_have(tmp_path):
    from leaderboard.engine.cache import EmbeddingCache, text_key

    cache, texts = make_cache(tmp_path, rows=10)
    wrong = np.ones(5, dtype=np.float32).tobytes()
    with cache._db:
        cache._db.execute("DELETE FROM meta WHERE name = 'dim'")  # as written by an earlier version
        cache._db.execute(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            (text_key("document", texts[0]), 5, hashlib.sha256(wrong).hexdigest(), wrong),
        )
    found = EmbeddingCache("toy", "r1", {}, root=tmp_path).get_many("document", texts)
    assert texts[0] not in found and len(found) == 9


def test_a_locked_database_is_not_mistaken_for_damage():
    from leaderboard.sqlite_damage import is_damage

    assert not is_damage(sqlite3.OperationalError("database is locked"))
    assert is_damage(sqlite3.DatabaseError("database disk image is malformed"))


def test_a_lone_surrogate_in_a_passage_with_a_dense_model_and_the_cache(tmp_path):
    """It exited 1 (UnicodeEncodeError in cache.text_key). The JSON escape "\\ud800" gives Python half a
    UTF-16 pair: the loader refuses it as bad input naming the line, and the cache key takes any string."""
    from conftest import write_beir

    from leaderboard.engine.cache import EmbeddingCache, text_key

    assert text_key("document", "\ud800") != text_key("document", "\ud801")
    cache = EmbeddingCache("toy", "r1", {}, root=tmp_path / "cache")
    cache.put_many("document", ["a \ud800"], np.ones((1, 4), dtype=np.float32))
    assert len(cache.get_many("document", ["a \ud800"])) == 1
    folder = write_beir(tmp_path / "data", {"d1": "alpha \ud800", "d2": "beta"}, {"q1": "alpha"}, {"q1": {"d1": 1}})
    assert "\\ud800" in (folder / "corpus.jsonl").read_text()  # json.dumps escaped it: valid UTF-8 and JSON
    with pytest.raises(BadInput, match=r"corpus.jsonl, line 1: a string holds a lone surrogate"):
        leaderboard.evaluate([Toy("toy")], [str(folder)], output=tmp_path / "out")
    assert not (tmp_path / "out").exists()
