"""The records: the typed result and its files, the per-query field (codec and checks), reading without
pydantic, the results index, reported scores, and the mteb export."""
