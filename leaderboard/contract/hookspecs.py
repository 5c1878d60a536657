"""The plugin contract: the hooks a plugin may implement.

A plugin is a module exposed through the ``leaderboard`` entry-point group that implements one
or more of the hooks below with ``@leaderboard.hookimpl``::

    # pyproject.toml
    [project.entry-points.leaderboard]
    my-plugin = "my_package.plugin"

    # my_package/plugin.py
    from leaderboard import hookimpl

    @hookimpl
    def register_models(register):
        register("my-model", MyModel, description="...")

Built-in tasks, models, benchmarks and judges use exactly this mechanism.

Every hook receives one argument, ``register``, and calls it once per thing it provides::

    register(name, factory, description="", *, requires=(), install=None,
             claims_directory=None, directory_priority=0)

Keywords of ``register``:

``name``
    The name users type. A name ending in ``:`` registers a prefix: ``st:`` receives everything
    after it as ``request.argument``. Two plugins registering one name make it unusable (both named).
``factory``
    A callable that builds the object when it is used, never at registration: loading a plugin
    must stay cheap. Tasks: ``factory(TaskRequest) -> Task``; models: ``factory(ModelRequest) ->
    Model``; benchmarks: ``factory() -> Benchmark``; judges: ``factory(JudgeRequest) -> Judge``.
``description``
    One line shown by ``leaderboard tasks`` / ``models`` / ``benchmarks`` / ``judges``.
``requires``
    Importable module names the factory needs (e.g. ``("sentence_transformers",)``). When one is
    missing, the name is listed as disabled and using it is bad input that names ``install``.
``install``
    The exact command that provides ``requires``, e.g. ``pip install 'retrieval-leaderboard[dense]'``.
``claims_directory``
    Prefixes only: ``claims_directory(path) -> bool`` says whether a bare ``--task DIR`` belongs to
    this prefix (e.g. a folder in mteb's layout).
``directory_priority``
    Prefixes only: when several prefixes claim one directory, the highest priority wins (a generic
    format such as BEIR registers a low priority, a specific layout a higher one); a tie is an error.
"""

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("leaderboard")
hookimpl = pluggy.HookimplMarker("leaderboard")


@hookspec
def register_tasks(register: Callable[..., None]) -> None:
    """Register task plugins: ``register(name, factory, ...)`` with ``factory(TaskRequest) -> Task``.

    A prefix such as ``beir:`` handles every ``--task beir:<argument>``; with ``claims_directory``
    it also handles a bare ``--task DIR`` that it recognises.

    Args:
        register: Call once per task: ``register(name, factory, description=..., ...)``; its keywords
            are on the Hooks page.
    """


@hookspec
def register_models(register: Callable[..., None]) -> None:
    """Register model plugins: ``register(name, factory, ...)`` with ``factory(ModelRequest) -> Model``.

    A prefix such as ``st:`` gets ``st:<hub id or path>``. The factory must not load weights:
    the runner calls ``Model.load()`` only when the model is about to be used.

    Args:
        register: Call once per model: ``register(name, factory, description=..., ...)``.
    """


@hookspec
def register_benchmarks(register: Callable[..., None]) -> None:
    """Register benchmarks: ``register(name, factory, ...)`` with ``factory() -> Benchmark``.

    A benchmark groups tasks, names each task's main metric and direction, and states its
    aggregate as a formula; the leaderboard ranks models within a benchmark by that aggregate.

    Args:
        register: Call once per benchmark: ``register(name, factory, description=...)``.
    """


@hookspec
def register_judges(register: Callable[..., None]) -> None:
    """Register violation judges: ``register(name, factory, ...)`` with ``factory(JudgeRequest) -> Judge``.

    A judge decides whether a retrieved passage violates a query's negated condition; metrics
    such as LSNC name the judge that supplied their labels.

    Args:
        register: Call once per judge: ``register(name, factory, description=...)``.
    """
