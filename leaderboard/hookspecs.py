"""The plugin contract: the hooks a plugin may implement.

A plugin is a module (or object) exposed through the ``leaderboard`` entry-point group
that implements one or more of the hooks below with ``@leaderboard.hookimpl``::

    # pyproject.toml
    [project.entry-points.leaderboard]
    my-plugin = "my_package.plugin"

    # my_package/plugin.py
    from leaderboard import hookimpl

    @hookimpl
    def register_models(register):
        register("my-model", MyModel, description="...")

Built-in tasks and models use exactly this mechanism.
"""

import pluggy

hookspec = pluggy.HookspecMarker("leaderboard")
hookimpl = pluggy.HookimplMarker("leaderboard")


@hookspec
def register_tasks(register):
    """Register task plugins.

    Call ``register(name, factory, description="")``. ``factory(TaskRequest)`` returns a
    ``leaderboard.task.Task``. A name ending in ``:`` registers a prefix: ``beir:`` handles
    every ``--task beir:<argument>`` and receives the argument as ``request.argument``.
    """


@hookspec
def register_models(register):
    """Register model plugins.

    Call ``register(name, factory, description="")``. ``factory(ModelRequest)`` returns a
    ``leaderboard.model.Model``. A name ending in ``:`` registers a prefix (``st:`` gets
    ``st:<hub id or path>``).
    """
