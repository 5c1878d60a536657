#!/usr/bin/env bash
# Reproduce the baseline submissions: bm25, bm25-okapi and all-MiniLM-L6-v2 on every public benchmark
# whose data is reachable here (ComLQ, NegConstraint), complete runs only. Run from the repository root:
#   bash submissions/run_baselines.sh [DATA]     (DATA defaults to ../shared/data, holding comlq/ and negconstraint/)
# Existing results are kept (the run skips them); pass --overwrite through LEADERBOARD_RUN_ARGS to redo them.
# Check afterwards with: leaderboard validate submissions/ --data-dir comlq=DATA/comlq --data-dir negconstraint=DATA/negconstraint
# Each model's run writes to a temporary folder first, moved into submissions/ once every run is over: a
# result written into the checkout mid-way would make the next run's tree dirty (harness.git_dirty).
set -euo pipefail
data="${1:-../shared/data}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for model in bm25 bm25-okapi all-MiniLM-L6-v2; do
    [ -d "submissions/$model/results" ] && cp -r "submissions/$model/results" "$out/$model"
    leaderboard run -m "$model" -t comlq -t negconstraint \
        --data-dir "comlq=$data/comlq" --data-dir "negconstraint=$data/negconstraint" \
        --output "$out/$model" ${LEADERBOARD_RUN_ARGS:-}
done
for model in bm25 bm25-okapi all-MiniLM-L6-v2; do
    rm -rf "submissions/$model/results"
    cp -r "$out/$model" "submissions/$model/results"
done
