"""Built-in task plugins (installed as ``leaderboard_tasks``), registered through entry points."""
