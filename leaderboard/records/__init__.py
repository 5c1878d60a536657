"""The records: the typed result, result files, stores (local folder, Hugging Face dataset), submissions and
the mteb export/import."""
