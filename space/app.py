"""Hugging Face Space entry point for the public leaderboard (copied into the Space by `leaderboard space build`).

RESULTS_REPO names the results dataset (ORG/NAME or hf://ORG/NAME; a local folder also works): the
Space variable set by `leaderboard space deploy`, else ``results_repo`` in space.json beside this file.
The app pulls it with huggingface_hub, reads it through the result index (each file validated once),
shows public benchmarks only, and polls the dataset's revision every LEADERBOARD_POLL_SECONDS
(default 600) to show new commits without a restart. REQUESTS_REPO (optional) names the evaluation
queue's requests dataset: the Submit and Queue tabs appear.

The benchmarks are the dataset's benchmarks.json (written by `leaderboard push`), completed by the
declarations of the plugins installed with the harness wheel, exactly as `leaderboard serve` and
`push` take them: over a local folder without benchmarks.json the Space is the same board as over
the dataset (ComLQ, NegConstraint, ...; never one raw board per task, never the non-public demo).
"""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # before gradio is imported

from leaderboard.app.server.live import DEFAULT_POLL_SECONDS
from leaderboard.app.ui import build_app, launch
from leaderboard.registry import installed_benchmarks

CONFIG = Path(__file__).with_name("space.json")
RESULTS = os.environ.get("RESULTS_REPO") or (json.loads(CONFIG.read_text()) if CONFIG.is_file() else {}).get(
    "results_repo"
)
if not RESULTS:
    raise SystemExit("Set the RESULTS_REPO variable to the results dataset (ORG/NAME) in the Space settings.")
SOURCE = RESULTS if RESULTS.startswith("hf://") or os.path.isdir(RESULTS) else f"hf://{RESULTS}"
POLL_SECONDS = float(os.environ.get("LEADERBOARD_POLL_SECONDS", DEFAULT_POLL_SECONDS))
# The evaluation queue (optional): the requests dataset behind the Submit and Queue tabs. Submitting
# writes to it with the HF_TOKEN Space secret, read by huggingface_hub on the server only.
REQUESTS = os.environ.get("REQUESTS_REPO") or (json.loads(CONFIG.read_text()) if CONFIG.is_file() else {}).get(
    "requests_repo"
)

BENCHMARKS = installed_benchmarks(lambda name, exc: print(f"benchmark {name} skipped: {exc!r}", file=sys.stderr))

demo = build_app(SOURCE, BENCHMARKS, public=True, poll_seconds=POLL_SECONDS or None, requests=REQUESTS)

if __name__ == "__main__":
    launch(
        demo,
        host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
    )
