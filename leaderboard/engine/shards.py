"""Moved to ``leaderboard.engine.corpus_store`` (the plan and the shard store); these names stay importable
from here for code written before the split."""

from leaderboard.engine.corpus_store import (
    SHARD_DIR_ENV,
    SHARD_ROWS,
    DocumentTexts,
    EncodePlan,
    ShardStore,
    make_plan,
    shard_root,
    text_hash,
)

__all__ = [
    "SHARD_DIR_ENV",
    "SHARD_ROWS",
    "DocumentTexts",
    "EncodePlan",
    "ShardStore",
    "make_plan",
    "shard_root",
    "text_hash",
]
