"""Built-in benchmark declarations (task groups with their paper, citation and aggregate)."""
