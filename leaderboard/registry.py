"""Plugin discovery and the registry of tasks and models.

Every plugin, built-in or third-party, arrives through the ``leaderboard`` entry-point group.
Each entry point is loaded and each of its hooks is called in isolation, so one broken
plugin is reported (name + error) while everything else keeps working: an exception, a
``sys.exit``, an import that hangs (time limit ``LEADERBOARD_PLUGIN_TIMEOUT``) or output on
stdout (sent to stderr, so ``plugins --json`` stays clean).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib.util
import os
import sys
import threading
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
TIMEOUT_ENV = "LEADERBOARD_PLUGIN_TIMEOUT"  # seconds allowed for importing a plugin, and for each of its hooks
DEFAULT_TIMEOUT_S = 30.0
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


class UnknownName(BadInput):
    """A name no plugin registered (``kind`` and ``name`` say which); its message suggests close ones."""

    def __init__(self, message: str, kind: str, name: str):
        super().__init__(message)
        self.kind, self.name = kind, name


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """ " Did you mean 'x'?" naming up to three of ``candidates`` close to ``name`` (case aside), or "".

    Every command that takes a name suggests through this: `run`, `compare`, `cite`, `show --task`."""
    folded = {c.casefold(): c for c in candidates}  # suggestions ignore case too ("BM26" -> bm25)
    close = [folded[c] for c in difflib.get_close_matches(name.casefold(), list(folded), n=3)]
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""


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
        # plugin -> why it did not load: an unknown name may be one of these plugins' (said, not guessed)
        self.load_failures: dict[str, str] = {}

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
        unloaded = ""
        if self.load_failures:  # the name may well be theirs: say so first, the submitter's name may be right
            unloaded = f"{'; '.join(self.load_failures.values())}, so its {kind}s are unknown. "
        raise UnknownName(
            f"{unloaded}Unknown {kind} {spec!r}.{did_you_mean(spec, entries)} Known {kind}s: "
            f"{', '.join(self.names(kind)) or 'none'}"
            f" (see `leaderboard {kind}s`; a {kind} comes from an installed plugin, see `leaderboard plugins`).",
            kind,
            spec,
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
    unknown = sorted(wanted - {ep.name for ep in eps})
    if unknown:
        print(
            f"Warning: {ALLOWLIST_ENV} names {', '.join(repr(n) for n in unknown)}, which no installed plugin "
            f"provides (installed: {', '.join(ep.name for ep in eps) or 'none'}).",
            file=sys.stderr,
        )
    return [ep for ep in eps if ep.name in wanted]


def plugin_timeout() -> float:
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise BadInput(f"{TIMEOUT_ENV}={raw!r}: expected a positive number of seconds (default {DEFAULT_TIMEOUT_S:g}).")
    return value


class _Stopped(Exception):
    """What a plugin's call ended with, other than an ordinary exception: SystemExit, a time-out."""


class _TimedOut(_Stopped):
    """A plugin's call still running at its time limit (a slow machine, or a plugin that hangs)."""

    def __init__(self, timeout: float):
        super().__init__(f"did not finish within {timeout:g} s ({TIMEOUT_ENV}); skipped")
        self.timeout = timeout


def load_timeout_message(plugin: str, timeout: float) -> str:
    """What a plugin whose import outlasted the limit is reported as: the load, not the plugin's model, is named."""
    return (
        f"plugin {plugin!r} did not finish loading within {timeout:g} s (raise the limit with "
        f"{TIMEOUT_ENV}=SECONDS or `leaderboard --plugin-timeout SECONDS`)"
    )


def _isolated(call: Callable[[], Any], timeout: float) -> Any:
    """``call()`` in a worker thread, bounded by ``timeout``; any BaseException it raises comes back as an Exception.

    A thread cannot be killed: a plugin past its time limit keeps running in the background (a
    daemon thread, so it does not keep the process alive) and whatever it registers later is
    ignored. A real Ctrl-C still reaches the main thread, which is waiting here, and stops the CLI.
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by the plugin itself, ...
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="leaderboard-plugin", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise _TimedOut(timeout)
    error = outcome.get("error")
    if isinstance(error, Exception):
        raise error
    if error is not None:
        raise _Stopped(f"raised {type(error).__name__}: {error}")
    return outcome.get("value")


def _hook_names() -> list[str]:
    return [name for name in dir(hookspecs) if name.startswith("register_")]


def load_registry(eps: Iterable[EntryPoint] | None = None) -> Registry:
    """Load every selected plugin, each in isolation, and collect what they register."""
    registry = Registry()
    manager = pluggy.PluginManager(ENTRY_POINT_GROUP)
    manager.add_hookspecs(hookspecs)
    timeout = plugin_timeout()
    selected = _selected_entry_points() if eps is None else eps
    # Plugins' prints go to stderr: stdout carries the CLI's own output (e.g. `plugins --json`).
    with contextlib.redirect_stdout(sys.stderr):
        for ep in selected:
            dist = getattr(ep, "dist", None)
            info = PluginInfo(
                name=ep.name,
                distribution=dist.name if dist else None,
                version=dist.version if dist else None,
            )
            registry.plugins[ep.name] = info
            try:
                manager.register(_isolated(ep.load, timeout), name=ep.name)
            except _TimedOut as exc:
                info.errors.append(load_timeout_message(ep.name, exc.timeout) + "; skipped")
                registry.load_failures[ep.name] = load_timeout_message(ep.name, exc.timeout)
            except _Stopped as exc:
                info.errors.append(f"failed to load entry point {ep.value!r}: import {exc}")
                registry.load_failures[ep.name] = f"plugin {ep.name!r} failed to load: {exc}"
            except Exception as exc:  # a plugin that cannot import must not break the CLI
                info.errors.append(f"failed to load entry point {ep.value!r}: {type(exc).__name__}: {exc}")
                registry.load_failures[ep.name] = f"plugin {ep.name!r} failed to load: {type(exc).__name__}: {exc}"
        for hook_name in _hook_names():
            kind = hook_name.removeprefix("register_").removesuffix("s")
            for impl in getattr(manager.hook, hook_name).get_hookimpls():
                info = registry.plugins[impl.plugin_name]
                if hook_name not in info.hooks:
                    info.hooks.append(hook_name)
                open_flag = threading.Event()
                open_flag.set()
                register = _make_register(registry, kind, impl.plugin_name, open_flag)
                try:
                    _isolated(functools.partial(impl.function, register=register), timeout)
                except _Stopped as exc:
                    info.errors.append(f"hook {hook_name} {exc}")
                except Exception as exc:  # a raising hook must not break the CLI either
                    info.errors.append(f"hook {hook_name} raised {type(exc).__name__}: {exc}")
                finally:
                    open_flag.clear()  # a hook still running past its limit registers nothing more
    return registry


def _make_register(
    registry: Registry, kind: str, plugin: str, open_flag: threading.Event | None = None
) -> Callable[..., None]:
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
        if open_flag is not None and not open_flag.is_set():
            return
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


def installed_benchmarks(on_skip: Callable[[str, BaseException], None] | None = None) -> list[Any]:
    """Every installed plugin's benchmark declaration, by name (factories take no arguments).

    One list for every place that needs them: ``push`` writes them into the results dataset's
    benchmarks.json, and ``serve`` and the Space pass them to the app, so a board over a folder and
    one over the dataset rank the same benchmarks. A factory that fails is skipped and passed to
    ``on_skip(name, exception)``: one plugin's bug never stops a push or a board.
    """
    found = []
    for name, registration in sorted(get_registry().entries["benchmark"].items()):
        try:
            found.append(registration.factory())
        except Exception as exc:
            if on_skip is not None:
                on_skip(name, exc)
    return found
