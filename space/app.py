"""Hugging Face Space entry point for the public leaderboard.

The Space reads the results dataset named by RESULTS_REPO (default below), pulls it with
huggingface_hub, validates every file against the result schema and serves the Gradio app.
"""

import os

from leaderboard.app.sources import resolve_results
from leaderboard.app.ui import build_app

RESULTS = os.environ.get("RESULTS_REPO", "hf://retrieval-leaderboard/results")

demo = build_app(resolve_results(RESULTS if RESULTS.startswith("hf://") else f"hf://{RESULTS}"))

if __name__ == "__main__":
    demo.launch()
