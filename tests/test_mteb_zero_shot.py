"""Zero-shot as mteb decides it: a model's training tasks include those of the model it was adapted from
(``ModelMeta.get_training_datasets``), checked on every real model_meta.json against mteb's own method."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED_DATA

from leaderboard.mteb.convert import training_tasks
from leaderboard.mteb.layouts import ModelMetaFile
from leaderboard.mteb.tasks import Registry, registry

FOLDERS = ("mteb-results", "mteb-results-splits")
METAS = sorted(p for folder in FOLDERS for p in (SHARED_DATA / folder).glob("results/*/*/model_meta.json"))


def test_a_models_training_tasks_include_its_adapted_from_models():
    """A hand-made registry: B was adapted from A, A from C; C's training data is unknown to mteb."""
    tasks = Registry(
        {
            "similar": {"NQ": ["NQ-PL"]},
            "models": {"org/A": {"training": ["NQ"], "adapted_from": "org/C"}, "org/D": {"training": ["FEVER"]}},
            "model_renames": {"org/old-D": "org/D"},
        }
    )
    meta = ModelMetaFile.model_validate({"name": "org/B", "training_datasets": {"MSMARCO": ["train"]}})
    assert training_tasks(meta, tasks) == ["MSMARCO"]  # no adapted_from
    adapted = meta.model_copy(update={"adapted_from": "org/A"})
    assert training_tasks(adapted, tasks) == ["MSMARCO", "NQ", "NQ-PL"]  # A's, with its similar task
    renamed = meta.model_copy(update={"adapted_from": "org/old-D"})
    assert training_tasks(renamed, tasks) == ["FEVER", "MSMARCO"]  # mteb's model rename followed
    unknown = meta.model_copy(update={"adapted_from": "/workspace/checkpoint-26250"})
    assert training_tasks(unknown, tasks) == ["MSMARCO"]
    none = ModelMetaFile.model_validate({"name": "org/B", "adapted_from": "org/A"})
    assert training_tasks(none, tasks) is None  # the model's own training data unknown: unknown, as mteb


@pytest.mark.skipif(not METAS, reason="real mteb results not found")
def test_every_real_model_meta_gives_mtebs_training_datasets():
    pytest.importorskip("mteb")
    from mteb.models.model_meta import ModelMeta

    added = 0
    for path in METAS:
        raw = json.loads(path.read_text())
        meta = ModelMetaFile.model_validate_json(path.read_bytes())
        trained = raw.get("training_datasets")
        # mteb's own method, on the two fields it reads (model_construct: old files fail today's validation)
        theirs = ModelMeta.model_construct(
            training_datasets=None if trained is None else set(trained), adapted_from=raw.get("adapted_from")
        ).get_training_datasets()
        ours = training_tasks(meta, registry())
        assert ours == (None if theirs is None else sorted(theirs)), path
        without = training_tasks(meta.model_copy(update={"adapted_from": None}), registry())
        added += ours != without
    assert added > 0  # some real models gain training data from the model they were adapted from
