"""The stand-in hub the tests start in-process: it lives in the package (``leaderboard.hub.devhub``), where
``leaderboard dev-hub`` serves it on a port; the tests keep importing it from here."""

from leaderboard.hub.devhub import HubServer, HubState, Repo, git_blob_sha1

__all__ = ["HubServer", "HubState", "Repo", "git_blob_sha1"]
