"""The public leaderboard: a Gradio app over result JSON files.

It reads results only through the schema module (leaderboard.records.files) and never imports a
task or a model, so a Space needs neither installed.
"""
