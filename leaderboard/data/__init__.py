"""Data loaders: they validate input and record source, revision and content hash."""
