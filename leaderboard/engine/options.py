"""``RunOptions``: every setting of one evaluation, each default declared once.

``leaderboard.evaluate`` takes these as typed keywords (its defaults are read from this class),
``leaderboard run`` builds one from its flags, and the runner, the Ray path and the submission
checks read it. Values are checked here, so every entry point rejects the same things.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from leaderboard.contract.model import DEFAULT_BATCH_SIZE, DTYPES
from leaderboard.engine.corpus_store import SHARD_ROWS
from leaderboard.errors import BadInput


@dataclass
class RunOptions:
    """Every setting of one evaluation: the keywords of ``leaderboard.evaluate`` (each described there), with
    their defaults, and the flags of ``leaderboard run``."""

    output: Path = Path("results")
    batch_size: int = DEFAULT_BATCH_SIZE
    device: str | None = None  # torch device; None: the model's choice
    max_length: int | None = None
    limit: int | None = None  # evaluate only the first N queries (quick checks; recorded, partial)
    overwrite: bool = False
    seed: int = 0
    use_cache: bool = True  # on-disk embedding cache (--no-cache turns it off)
    data_dirs: dict[str, str] = field(default_factory=dict)  # task spec -> local data folder
    dtype: str | None = None  # one of DTYPES for the weights and embeddings; None keeps the model's own
    task_options: dict[str, str] = field(default_factory=dict)  # --task-option KEY=VALUE, for every task
    shard_dir: str | None = None  # corpus embedding shards (default: the cache folder); Ray workers share it
    keep_shards: bool = False  # keep shard files after a search (they are work files, removed by default)
    shard_rows: int = SHARD_ROWS  # distinct texts per shard; a corpus that fits in one stays in memory
    corpus_sample: int | None = None  # search a seeded sample of N documents (judged ones kept); partial
    ray: str | None = None  # run on Ray: a cluster address, or "auto" (RAY_ADDRESS, else a local cluster)
    ray_encoders: int | None = None  # encoder actors per corpus (default: one per node, or per GPU); 0: none
    # seconds a Ray run waits for a worker to register and for a node that offers what its jobs need (None:
    # LEADERBOARD_RAY_START_S, else 120) before it stops as "Ray cluster unusable"
    ray_start_timeout: float | None = None
    allow_partial: bool = False  # write a result found incomplete while scoring (a judge that stopped) as partial

    def __post_init__(self) -> None:
        self.output = Path(self.output)
        if self.dtype is not None and self.dtype not in DTYPES:
            raise BadInput(f"dtype {str(self.dtype)[:40]!r}: expected one of {', '.join(DTYPES)}.")
        for name in ("batch_size", "shard_rows"):
            if getattr(self, name) < 1:
                raise BadInput(f"{name} {getattr(self, name)}: expected an integer >= 1.")
        if self.ray_start_timeout is not None and not self.ray_start_timeout > 0:
            raise BadInput(f"ray_start_timeout {self.ray_start_timeout}: expected a positive number of seconds.")
        for name in ("limit", "max_length", "corpus_sample"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise BadInput(f"{name} {value}: expected an integer >= 1 (or None).")


OPTION_NAMES = tuple(f.name for f in fields(RunOptions))
