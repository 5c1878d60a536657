"""BM25 + dense retrieval fused by reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009)."""
