"""Agreement between two violation judges that labelled the same (query, passage) items: Cohen's kappa.

    python -m leaderboard_judges.agreement A.json.gz B.json.gz [--json]

A and B are judgments files of the same data (``leaderboard.judgments``: by default in
``<cache>/judgments``; a result's ``task_details.judgments.file`` names the one it used). Only items
both judges labelled (true/false, not null) count. Prints the number of such items, each judge's
violation count, the observed agreement and kappa (``leaderboard.metrics.agreement``); exit 2 when
the files are unreadable or about different data.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from leaderboard import BadInput
from leaderboard.toolkit import cohen_kappa, read_judgments


def agreement(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Kappa and counts over the items both payloads labelled."""
    if a.get("data_content_hash") != b.get("data_content_hash"):
        raise BadInput(
            f"the judgments are about different data ({a.get('data_content_hash')} vs {b.get('data_content_hash')})"
        )
    pairs = [
        (label, b["labels"][qid][doc])
        for qid, docs in sorted(a["labels"].items())
        for doc, label in sorted(docs.items())
        if label is not None and b["labels"].get(qid, {}).get(doc) is not None
    ]
    if not pairs:
        raise BadInput("the two judges have no labelled item in common")
    labels_a, labels_b = [p[0] for p in pairs], [p[1] for p in pairs]
    return {
        "judge_a": a["judge"],
        "judge_b": b["judge"],
        "data_content_hash": a.get("data_content_hash"),
        "items": len(pairs),
        "violations_a": sum(labels_a),
        "violations_b": sum(labels_b),
        "observed_agreement": sum(x == y for x, y in pairs) / len(pairs),
        "kappa": cohen_kappa(labels_a, labels_b),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    try:
        out = agreement(read_judgments(args.a), read_judgments(args.b))
    except BadInput as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
    else:
        print(
            f"{out['judge_a']['name']} vs {out['judge_b']['name']}: {out['items']} items labelled by both; "
            f"violations {out['violations_a']} vs {out['violations_b']}; "
            f"agreement {out['observed_agreement']:.4f}; Cohen's kappa {out['kappa']:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
