#!/usr/bin/env bash
# Reproduce the baseline submissions: bm25, bm25-okapi and all-MiniLM-L6-v2 on every public benchmark
# whose data is reachable here (ComLQ, NegConstraint), complete runs only. Run from the repository root:
#   bash submissions/run_baselines.sh [DATA]     (DATA defaults to ../shared/data, holding comlq/ and negconstraint/)
# Existing results are kept (the run skips them); pass --overwrite through LEADERBOARD_RUN_ARGS to redo them.
# Check afterwards with: leaderboard validate submissions/ --data-dir comlq=DATA/comlq --data-dir negconstraint=DATA/negconstraint
set -euo pipefail
data="${1:-../shared/data}"
for model in bm25 bm25-okapi all-MiniLM-L6-v2; do
    leaderboard run -m "$model" -t comlq -t negconstraint \
        --data-dir "comlq=$data/comlq" --data-dir "negconstraint=$data/negconstraint" \
        --output "submissions/$model/results" ${LEADERBOARD_RUN_ARGS:-}
done
