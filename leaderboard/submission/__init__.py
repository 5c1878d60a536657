"""Submission workflows: `validate` checks a submission folder, `verify` re-runs a sample of it.

They sit above the records (which they read) and the engine (which they run), so that
``leaderboard.records`` stays a layer of plain data: it imports nothing from the engine or the CLI.
"""
