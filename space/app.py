"""Hugging Face Space entry point for the public leaderboard.

RESULTS_REPO names the results dataset (hf://ORG/NAME, or ORG/NAME; a local folder also works).
The app pulls it with huggingface_hub, reads it through the result index (each file validated
once), shows public benchmarks only, and polls the dataset's revision every
LEADERBOARD_POLL_SECONDS (default 600) to show new commits without a restart.
"""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported

from leaderboard.app.live import DEFAULT_POLL_SECONDS
from leaderboard.app.ui import build_app, launch

RESULTS = os.environ.get("RESULTS_REPO", "hf://retrieval-leaderboard/results")
SOURCE = RESULTS if RESULTS.startswith("hf://") or os.path.isdir(RESULTS) else f"hf://{RESULTS}"
POLL_SECONDS = float(os.environ.get("LEADERBOARD_POLL_SECONDS", DEFAULT_POLL_SECONDS))

demo = build_app(SOURCE, public=True, poll_seconds=POLL_SECONDS or None)

if __name__ == "__main__":
    launch(
        demo,
        host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
    )
