"""The records: the typed result and its files, the one reader of result files (without pydantic), the
per-query field (codec and checks), the results index, reported scores, and the mteb export."""
