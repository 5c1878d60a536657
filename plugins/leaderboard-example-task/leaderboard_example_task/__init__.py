"""An example task plugin for retrieval-leaderboard, built only on the public contract."""
