"""Metric implementations. They read scores and judgments only, never files."""
