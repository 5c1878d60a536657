"""mteb's knowledge in one place: its results repository read in, our results written out in its layout.

Import (``leaderboard import``, from ``embeddings-benchmark/results`` or the hub dataset ``mteb/results``):
each text retrieval or reranking result becomes a result of this harness marked as a run made by
mteb (``imported_from``): ``tasks`` (mteb's task registry, shipped), ``layouts`` (every TaskResult
layout mteb 1.x-2.x wrote, and model_meta.json), ``convert`` (one file -> one record),
``sources`` (a folder, a git checkout, the hub), ``importer`` (incremental, idempotent writes),
``report`` (the counts the CLI prints).

Export (``leaderboard export --format mteb``, and ``mteb_model_meta`` for the mteb bridge): ``export``.

Running mteb's own evaluation loop is a plugin's job (``leaderboard_mteb``, through the toolkit).
"""
