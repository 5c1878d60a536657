"""The server's plumbing: where the results come from, loading and live refresh, the background work.

``sources`` and ``loading`` make a board, ``live`` swaps in each new revision and warms it up,
``prefetch`` computes the next page ahead, ``foreground`` and ``background`` let readers go first and
say when the work is done, ``memory`` keeps the process small; the ASGI middleware, the CSV downloads
and the queue's requests dataset (``live_queue``) live here too. It reads the ``data`` layer and never
draws: what the warm-up must draw comes in as callables from the tabs (``LiveBoard.warmers``).
"""
