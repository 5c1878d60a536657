"""The run engine: the API and runner, the evaluation kinds, dense search, pipelines and the embedding cache."""
