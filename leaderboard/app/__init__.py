"""The public leaderboard: a Gradio app over result JSON files.

It reads results only through the schema module (leaderboard.records.files) and never imports a
task or a model, so a Space needs neither installed.

Four layers, each importing only those before it (``tests/test_layers.py`` holds the direction):
``data`` (the board, its rankings, statistics and filters: plain values), ``server`` (where the results
come from, live refresh, the background work), ``views`` (HTML and charts from the data, no Gradio) and
``tabs`` (the Gradio wiring, with the page's CSS and JavaScript). ``ui`` builds the page from the tabs.
"""
