"""The evaluation queue: requests on the hub, a worker that evaluates them, no maintainer in the loop.

A requests dataset on the hub holds one JSON file per request (``requests.EvalRequest``, schema in
``leaderboard/records/schema/eval-request-1.json``) and the redacted log of each evaluation:

    requests/<id>.json      the request: plugin spec, model, benchmarks, status, lease, history
    logs/<id>.txt           the tail of its evaluation's log, secrets redacted

``submit`` checks a request and commits it; ``claim`` takes the oldest pending one with one commit
on the commit it read (a conflict means another worker won) and keeps its lease alive; ``worker``
installs the plugin in a fresh virtual environment, runs the benchmarks in ``sandbox`` (time and
memory limits, no secrets, a read-only file system outside its folder), checks the results with
``validate``'s checks and pushes them with ``push``'s store.
"""
