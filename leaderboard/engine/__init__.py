"""The run engine: the API, building and checking models and tasks, the runner and its coverage, the
evaluation kinds, dense search, pipelines and the embedding cache."""
