"""Plugin discovery and the registry of tasks and models.

Every plugin, built-in or third-party, arrives through the ``leaderboard`` entry-point group.
Each entry point is loaded and each of its hooks is called in isolation, so one broken
plugin is reported (name + error) while everything else keeps working.
"""

from __future__ import annotations

import difflib
import importlib.util
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

import pluggy

from leaderboard.contract import hookspecs
from leaderboard.errors import BadInput

ENTRY_POINT_GROUP = "leaderboard"
ALLOWLIST_ENV = "LEADERBOARD_PLUGINS"  # comma-separated entry-point names; unset = load all
KINDS = ("task", "model", "benchmark", "judge")  # one per hook: register_<kind>s


@dataclass
class Registration:
    kind: str  # one of KINDS
    name: str  # exact name, or a prefix ending in ":"
    factory: Callable[..., Any]
    description: str
    plugin: str
    claims_directory: Callable[[Path], bool] | None = None  # for prefixes: does a bare directory belong to me?
    directory_priority: int = 0  # when several prefixes claim one directory, the highest wins
    requires: tuple[str, ...] = ()  # modules the factory imports
    install: str | None = None  # the command that provides them

    @property
    def is_prefix(self) -> bool:
        return self.name.endswith(":")

    @property
    def missing(self) -> list[str]:
        """Required modules that are not installed (found without importing them)."""
        return [m for m in self.requires if importlib.util.find_spec(m) is None]

    def ensure_available(self) -> None:
        missing = self.missing
        if missing:
            hint = self.install or f"pip install {' '.join(missing)}"
            raise BadInput(
                f"{self.kind} {self.name!r} needs {', '.join(missing)}, which is not installed. Enable it with: {hint}"
            )


@dataclass
class PluginInfo:
    name: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    tasks: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    benchmarks: list[str] = field(default_factory=list)
    judges: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)  # "kind name: pip install ..." for missing extras
    errors: list[str] = field(default_factory=list)


@dataclass
class Resolved:
    registration: Registration
    argument: str | None  # what followed a prefix, e.g. the path in "beir:/data/x"


class Registry:
    def __init__(self) -> None:
        self.plugins: dict[str, PluginInfo] = {}
        self.entries: dict[str, dict[str, Registration]] = {kind: {} for kind in KINDS}
        # (kind, name) -> every plugin that registered it, when more than one did
        self.conflicts: dict[tuple[str, str], list[str]] = {}

    # -- registration -------------------------------------------------------------------
    def add(self, registration: Registration) -> None:
        kind, name = registration.kind, registration.name
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{kind} name must be a non-empty string, got {name!r}")
        if not callable(registration.factory):
            raise ValueError(f"{kind} {name!r}: factory must be callable, got {registration.factory!r}")
        existing = self.entries[kind].get(name)
        info = self.plugins[registration.plugin]
        if existing is not None and existing.plugin != registration.plugin:
            owners = self.conflicts.setdefault((kind, name), [existing.plugin])
            owners.append(registration.plugin)
            info.errors.append(
                f"{kind} name {name!r} is registered by both plugin {existing.plugin!r} and "
                f"plugin {registration.plugin!r}; the name is unusable until one is renamed or removed"
            )
            return
        self.entries[kind][name] = registration
        getattr(info, kind + "s").append(name)
        if registration.requires and registration.missing:
            info.disabled.append(
                f"{kind} {name}: {registration.install or 'pip install ' + ' '.join(registration.missing)}"
            )

    # -- lookup -------------------------------------------------------------------------
    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def resolve(self, kind: str, spec: str) -> Resolved:
        owners = self.conflicts.get((kind, spec))
        if owners:
            raise BadInput(
                f"{kind} name {spec!r} is ambiguous: it is registered by plugins "
                + " and ".join(repr(o) for o in owners)
                + f". Uninstall one of them, or limit loading with {ALLOWLIST_ENV}=<names>."
            )
        entries = self.entries[kind]
        if spec in entries and not entries[spec].is_prefix:
            return self._available(Resolved(entries[spec], None))
        prefixes = sorted((n for n in entries if n.endswith(":")), key=len, reverse=True)
        for prefix in prefixes:
            if spec.startswith(prefix):
                if (kind, prefix) in self.conflicts:
                    return self.resolve(kind, prefix)
                return self._available(Resolved(entries[prefix], spec[len(prefix) :]))
        claimants = [entries[p] for p in prefixes if entries[p].claims_directory is not None]
        if claimants and Path(spec).expanduser().is_dir():
            return self._available(Resolved(self._claim(Path(spec).expanduser(), claimants), spec))
        if claimants and ("/" in spec or spec.startswith((".", "~"))):
            raise BadInput(
                f"{kind.capitalize()} directory {spec!r} does not exist; expected a data folder "
                f"({', '.join(r.name + '<dir>' for r in claimants)} accept one)."
            )
        folded = [n for n in entries if n.casefold() == spec.casefold()]
        if len(folded) == 1:  # unique up to case: "ComLQ" is comlq
            return self.resolve(kind, folded[0])
        close = difflib.get_close_matches(spec, list(entries), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise BadInput(
            f"Unknown {kind} {spec!r}.{hint} Known {kind}s: {', '.join(self.names(kind)) or 'none'}"
            f" (see `leaderboard {kind}s`; a {kind} comes from an installed plugin, see `leaderboard plugins`)."
        )

    @staticmethod
    def _available(resolved: Resolved) -> Resolved:
        resolved.registration.ensure_available()
        return resolved

    @staticmethod
    def _claim(path: Path, claimants: list[Registration]) -> Registration:
        """The prefix a bare directory belongs to: among those claiming it, the highest priority."""
        claiming = [r for r in claimants if _safe_claim(r, path)]
        if not claiming:
            names = ", ".join(r.name for r in claimants)
            raise BadInput(
                f"Directory {str(path)!r} is in no known data layout (tried {names}); see `leaderboard tasks`."
            )
        best = max(r.directory_priority for r in claiming)
        top = [r for r in claiming if r.directory_priority == best]
        if len(top) > 1:
            raise BadInput(
                f"Directory {str(path)!r} is claimed by {' and '.join(r.name for r in top)} with equal priority; "
                "name the one you mean with its prefix, e.g. " + top[0].name + str(path)
            )
        return top[0]


def _safe_claim(registration: Registration, path: Path) -> bool:
    try:
        return bool(registration.claims_directory(path))  # type: ignore[misc]
    except Exception:  # a broken claim test must not break resolution of other plugins
        return False


def _selected_entry_points() -> list[EntryPoint]:
    eps = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    allow = os.environ.get(ALLOWLIST_ENV)
    if allow is None or not allow.strip():
        return eps
    wanted = {name.strip() for name in allow.split(",") if name.strip()}
    return [ep for ep in eps if ep.name in wanted]


def _hook_names() -> list[str]:
    return [name for name in dir(hookspecs) if name.startswith("register_")]


def load_registry(eps: Iterable[EntryPoint] | None = None) -> Registry:
    """Load every selected plugin, each in isolation, and collect what they register."""
    registry = Registry()
    manager = pluggy.PluginManager(ENTRY_POINT_GROUP)
    manager.add_hookspecs(hookspecs)
    for ep in _selected_entry_points() if eps is None else eps:
        dist = getattr(ep, "dist", None)
        info = PluginInfo(
            name=ep.name,
            distribution=dist.name if dist else None,
            version=dist.version if dist else None,
        )
        registry.plugins[ep.name] = info
        try:
            manager.register(ep.load(), name=ep.name)
        except Exception as exc:  # a plugin that cannot import must not break the CLI
            info.errors.append(f"failed to load entry point {ep.value!r}: {type(exc).__name__}: {exc}")
    for hook_name in _hook_names():
        kind = hook_name.removeprefix("register_").removesuffix("s")
        for impl in getattr(manager.hook, hook_name).get_hookimpls():
            info = registry.plugins[impl.plugin_name]
            if hook_name not in info.hooks:
                info.hooks.append(hook_name)
            register = _make_register(registry, kind, impl.plugin_name)
            try:
                impl.function(register=register)
            except Exception as exc:  # a raising hook must not break the CLI either
                info.errors.append(f"hook {hook_name} raised {type(exc).__name__}: {exc}")
    return registry


def _make_register(registry: Registry, kind: str, plugin: str) -> Callable[..., None]:
    def register(
        name: str,
        factory: Callable[..., Any],
        description: str = "",
        *,
        requires: Iterable[str] = (),
        install: str | None = None,
        claims_directory: Callable[[Path], bool] | None = None,
        directory_priority: int = 0,
    ) -> None:
        registry.add(
            Registration(
                kind, name, factory, description, plugin, claims_directory, directory_priority, tuple(requires), install
            )
        )

    register.__doc__ = f"Register a {kind}; see leaderboard.contract.hookspecs for every keyword."
    return register


_cached: Registry | None = None


def get_registry(refresh: bool = False) -> Registry:
    global _cached
    if _cached is None or refresh:
        _cached = load_registry()
    return _cached
