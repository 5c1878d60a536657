"""A griffe extension: the facades' names are available at run time.

``leaderboard``, ``leaderboard.contract`` and ``leaderboard.toolkit`` list their public names once,
as ``from home import X as X`` under ``if TYPE_CHECKING:``, and load each on first use through the
module's ``__getattr__``. griffe sees imports under ``TYPE_CHECKING`` as absent at run time, so it
would neither document them at the facade nor expand the root facade's ``from leaderboard.contract
import *``. This extension tells griffe what Python does: those names are there at run time.
"""

from __future__ import annotations

import ast
from typing import Any

import griffe

FACADES = {"leaderboard", "leaderboard.contract", "leaderboard.toolkit"}


class LazyFacades(griffe.Extension):
    def on_alias_instance(self, *, alias: griffe.Alias, node: ast.AST, agent: Any, **kwargs: Any) -> None:
        if alias.parent is not None and alias.parent.path in FACADES and not alias.runtime:
            alias.runtime = True
