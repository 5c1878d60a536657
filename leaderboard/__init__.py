"""Evaluation harness and leaderboard for retrieval models (retrievers and rerankers)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("retrieval-leaderboard")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

from .hookspecs import hookimpl  # noqa: E402  (the decorator plugins import)

__all__ = ["__version__", "hookimpl"]
