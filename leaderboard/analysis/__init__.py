"""Statistics over results: paired comparisons with Holm, each cell's interval from its own queries, the queries
where two models differ most, per-subset tables, and the per-query DataFrame."""
