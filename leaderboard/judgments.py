"""Materialised violation judgments, for any task that asks a judge: each (query, passage) item is judged
once, then read from disk.

One gzip JSON file per (data content hash, judge identity) — the identity is the judge's name,
version, model and prompt sha256, plus whatever else decides its labels (lexical-v1: a hash of its
rules, word lists, stopwords and stemmer release) — in ``$LEADERBOARD_JUDGMENTS_DIR`` (default
``<cache home>/judgments``)::

    {"format": "leaderboard-judgments/1", "key": "<sha256>", "data_content_hash": "sha256:...",
     "judge": {"name": ..., "version": ..., "model": ..., "prompt_sha256": ...},
     "labels": {"<query id>": {"<doc id>": true | false | null}}}

The file grows as runs need new items (another model retrieves other passages); labels never
change once written. An item the judge could not label (``null``: a flaky endpoint, a "Maybe") is not
final: it is asked again on the next run, and a label it gets then replaces the ``null``.
It is written atomically after every batch (an interrupted run keeps what it
paid for) and merged with what is on disk first, so two runs sharing the folder lose nothing.
Publishing a result that used judgments means publishing this file with it (the result's
``task_details.judgments.file`` names it); a copy dropped into another machine's folder makes that
machine's runs call nothing.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard.contract.judge import Judge, JudgeItem, JudgeUnavailable
from leaderboard.errors import BadInput
from leaderboard.fileio import atomic_open, cache_home
from leaderboard.records.files import slug

FORMAT = "leaderboard-judgments/1"
ENV_VAR = "LEADERBOARD_JUDGMENTS_DIR"

Labels = dict[str, dict[str, bool | None]]  # query id -> doc id -> label


def judge_slug(name: str) -> str:
    """A judge name as it appears inside metric names: 'llm:gpt-4o-mini' -> 'llm_gpt_4o_mini'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def judgments_dir() -> Path:
    configured = os.environ.get(ENV_VAR)
    return Path(configured).expanduser() if configured else cache_home() / "judgments"


def cache_key(judge: Judge, data_content_hash: str | None) -> str:
    payload = {"data_content_hash": data_content_hash, "judge": judge.identity()}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def labels_sha256(labels: Labels) -> str:
    """A checksum of a set of labels (sorted JSON), to tie a result to the labels it used."""
    return hashlib.sha256(json.dumps(labels, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_judgments(path: Path) -> dict[str, Any]:
    """A judgments file, checked: format, key, data hash, judge identity and labels."""
    try:
        with gzip.open(path, "rb") as handle:
            payload = json.loads(handle.read().decode("utf-8"))
    except (OSError, EOFError, ValueError) as exc:
        raise BadInput(f"{path}: not a readable judgments file ({exc}); delete it to judge again.") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise BadInput(f"{path}: expected a judgments file in format {FORMAT} (field 'format').")
    for name, kind in (("key", str), ("judge", dict), ("labels", dict)):
        if not isinstance(payload.get(name), kind):
            raise BadInput(f"{path}: field {name!r} must be a {kind.__name__}.")
    for qid, docs in payload["labels"].items():
        if not isinstance(docs, dict) or not all(v is None or isinstance(v, bool) for v in docs.values()):
            raise BadInput(f"{path}: labels of query {qid!r} must map doc ids to true, false or null.")
    return payload


@dataclass
class Lookup:
    labels: Labels  # every requested item
    cached: int  # items found on disk
    computed: int  # items judged now
    stopped: str | None = None  # why the judge stopped answering before every item was asked (JudgeUnavailable)


class JudgmentStore:
    """A judge's labels for one dataset, materialised once per item on disk and reused by every later run."""

    def __init__(self, judge: Judge, data_content_hash: str | None, folder: Path | None = None):
        self.judge = judge
        self.data_content_hash = data_content_hash
        self.key = cache_key(judge, data_content_hash)
        self.path = (folder or judgments_dir()) / f"{slug(judge.name)}-{self.key[:16]}.json.gz"

    def read(self) -> Labels:
        if not self.path.is_file():
            return {}
        payload = read_judgments(self.path)
        if payload["key"] != self.key:
            raise BadInput(
                f"{self.path}: holds judgments with key {payload['key']}, expected {self.key} "
                "(other data or another judge). Delete it to judge again."
            )
        labels: Labels = payload["labels"]  # read_judgments checked its shape
        return labels

    def write(self, labels: Labels) -> None:
        merged = self.read()  # another run may have added items since we read
        for qid, docs in labels.items():
            known = merged.setdefault(qid, {})
            for doc, label in docs.items():
                if label is not None or known.get(doc) is None:  # a label is never replaced by "no label"
                    known[doc] = label
        payload: dict[str, Any] = {
            "format": FORMAT,
            "key": self.key,
            "data_content_hash": self.data_content_hash,
            "judge": self.judge.identity(),
            "labels": merged,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(self.path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
            out.write(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8"))

    def lookup(self, items: Sequence[JudgeItem]) -> Lookup:
        """Labels for every item: from the file where labelled, else from the judge (then saved).

        An item stored without a label (``null``) is asked again: only true and false are final."""
        known = self.read()
        missing = [i for i in items if known.get(i.query_id, {}).get(i.doc_id) is None]
        step = max(1, self.judge.batch_size)
        stopped = None
        asked = 0
        for start in range(0, len(missing), step):
            batch = missing[start : start + step]
            try:
                labels = self.judge.judge(batch)
            except JudgeUnavailable as exc:  # the items not labelled stay unlabelled; the task says the run is partial
                stopped = str(exc)
                break
            asked += len(batch)
            if len(labels) != len(batch):
                raise BadInput(f"judge {self.judge.name} returned {len(labels)} labels for {len(batch)} items")
            fresh: Labels = {}
            for item, label in zip(batch, labels):
                if label is not None and not isinstance(label, bool):
                    raise BadInput(f"judge {self.judge.name} returned {label!r}; expected True, False or None")
                fresh.setdefault(item.query_id, {})[item.doc_id] = label
                known.setdefault(item.query_id, {})[item.doc_id] = label
            self.write(fresh)
        wanted: Labels = {}
        for item in items:
            wanted.setdefault(item.query_id, {})[item.doc_id] = known.get(item.query_id, {}).get(item.doc_id)
        return Lookup(wanted, len(items) - len(missing), asked, stopped)
