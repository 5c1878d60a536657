"""Built-in model plugins (installed as ``leaderboard_plugins``), registered through entry points.

Separately installable third-party examples live in sub-folders with their own pyproject.toml.
"""
