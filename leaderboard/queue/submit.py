"""Submitting a request: every check before anything is written, then one commit.

In order, cheapest first; the first failing group stops with one message naming each field:

1. the fields: a model id, a revision when given, a contact, at least one benchmark, each of them
   a public one (``requestable``: a non-public benchmark, demo data, never goes on the public
   board), none of them a placeholder (``queue.placeholders``, as `validate` refuses them);
2. the plugin spec parses (``plugin_spec.parse``) and names something real: a version on the
   package index or a commit in the repository (``plugin_spec.check_exists``);
3. against the queue as it is at the commit the request is written on (re-checked after a
   conflicting commit): the same model and revision is not pending, running or finished on any of
   the same benchmarks (a new benchmark for an evaluated model is a new request), and the submitter
   (by contact) has fewer than ``max_open`` requests pending or running;
4. one identity per model (``queue.names``): the model's canonical identity is not already published
   (on the results dataset, or by a finished request) under another spelling or by another plugin
   distribution; the same plugin's new revisions stay welcome.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from leaderboard.errors import BadInput, shorten
from leaderboard.queue import plugin_spec
from leaderboard.queue.dataset import Change, RequestsDataset, Snapshot
from leaderboard.queue.names import card_claims, collision_problems, queue_claims, request_claims
from leaderboard.queue.placeholders import is_placeholder
from leaderboard.queue.requests import MODEL_ID, OPEN, REVISION, EvalRequest, Event, new_id, now
from leaderboard.records.identity import Claim

DEFAULT_MAX_OPEN = 3


@dataclass(frozen=True)
class Submission:
    plugin: str
    model: str
    benchmarks: tuple[str, ...]
    contact: str
    revision: str | None = None


def requestable(benchmarks: Iterable[Any]) -> list[str]:
    """The names of the benchmarks a request may name: the public ones (``Benchmark.public``), as the public board."""
    return sorted(b.name for b in benchmarks if b.public)


def field_problems(submission: Submission, known_benchmarks: Collection[str] | None) -> list[str]:
    """What is wrong with the fields themselves (nothing asked of the network or the queue)."""
    problems = []
    model, revision, contact = submission.model.strip(), (submission.revision or "").strip(), submission.contact.strip()
    if not model or is_placeholder(model):
        problems.append("model: give the model id that `leaderboard run --model` takes")
    elif not re.match(MODEL_ID, model):
        problems.append(f"model {shorten(model, 60)!r}: letters, digits and . _ : / @ + = - only, at most 200")
    if revision and (is_placeholder(revision) or not re.match(REVISION, revision)):
        problems.append(f"revision {shorten(revision, 60)!r}: a commit, tag or version (letters, digits, . _ / + -)")
    if len(contact) < 3 or is_placeholder(contact) or len(contact) > 200 or any(ord(c) < 32 for c in contact):
        problems.append("contact: an e-mail address or hub user name where we can reach you (3 to 200 characters)")
    benchmarks = [b.strip() for b in submission.benchmarks if b.strip()]
    if not benchmarks:
        problems.append("benchmarks: choose at least one")
    elif known_benchmarks is not None:
        unknown = [b for b in benchmarks if b not in known_benchmarks]
        if unknown:
            known = ", ".join(sorted(known_benchmarks)) or "none"
            problems.append(f"benchmarks: no public benchmark named {', '.join(map(repr, unknown))} (public: {known})")
    try:
        plugin_spec.parse(submission.plugin)
    except BadInput as exc:
        problems.append(str(exc).rstrip("."))
    return problems


def _same_model(a: EvalRequest, b: EvalRequest) -> bool:
    """The same model and revision; without a revision, the same model from the same plugin spec."""
    if a.model != b.model:
        return False
    if a.revision or b.revision:
        return a.revision == b.revision
    return a.plugin == b.plugin


def queue_problems(snapshot: Snapshot, request: EvalRequest, max_open: int) -> list[str]:
    problems = collision_problems(request_claims(request), queue_claims(snapshot.ordered(), None, but=request.id))
    for other in snapshot.ordered():
        if other.status in (*OPEN, "finished") and _same_model(other, request):
            shared = sorted(set(other.benchmarks) & set(request.benchmarks))
            if shared:
                what = f"{request.model}" + (f" at revision {request.revision}" if request.revision else "")
                problems.append(f"{what} is already {other.status} on {', '.join(shared)} (request {other.id})")
    open_requests = [r for r in snapshot.requests.values() if r.status in OPEN and r.submitter == request.submitter]
    if len(open_requests) >= max_open:
        problems.append(
            f"{request.contact} already has {len(open_requests)} request(s) pending or running (at most {max_open}); "
            "submit again when one has finished"
        )
    return problems


def submit(
    dataset: RequestsDataset,
    submission: Submission,
    *,
    known_benchmarks: Collection[str] | None = None,
    max_open: int = DEFAULT_MAX_OPEN,
    pip_index_args: tuple[str, ...] = (),
    by: str = "submit",
    results_repo: str | None = None,
) -> EvalRequest:
    """Check ``submission`` and commit it as a pending request; BadInput (nothing written) when refused.

    ``results_repo``: the results dataset the queue publishes to, whose models the request's identity is
    checked against (default: the one the queue's latest finished request published to)."""
    problems = field_problems(submission, known_benchmarks)
    if problems:
        raise BadInput("Cannot submit: " + "; ".join(problems) + ".")
    spec = plugin_spec.parse(submission.plugin)
    plugin_spec.check_exists(spec, pip_index_args)
    at = now()
    model = submission.model.strip()
    request = EvalRequest(
        id=new_id(model, at),
        plugin=spec.requirement,
        model=model,
        revision=(submission.revision or "").strip() or None,
        benchmarks=list(dict.fromkeys(b.strip() for b in submission.benchmarks if b.strip())),
        contact=" ".join(submission.contact.split()),
        submitted_at=at,
        history=[Event(at=at, status="pending", by=by, note=f"submitted: {spec.requirement}")],
    )

    published = published_models(dataset, request, results_repo)

    def decide(snapshot: Snapshot) -> Change:
        refused = queue_problems(snapshot, request, max_open) + collision_problems(request_claims(request), published)
        if refused:
            raise BadInput("Cannot submit: " + "; ".join(refused) + ".")
        return Change({request.path: request.to_bytes()}, f"Submit {request.id}: {request.model} ({request.plugin})")

    dataset.update(decide)
    return request


def published_models(dataset: RequestsDataset, request: EvalRequest, results_repo: str | None) -> list[Claim]:
    """The model cards on the results dataset that ``request``'s names may collide with (none when the queue
    has published nothing yet). The queue's own finished requests are checked on each snapshot."""
    from leaderboard.hub.store import HubStore

    if results_repo is None:
        finished = [r for r in dataset.snapshot().ordered() if r.status == "finished" and r.results_repo]
        results_repo = finished[-1].results_repo if finished else None
    if results_repo is None:
        return []
    try:
        store = HubStore(results_repo, dataset.store.endpoint, dataset.store.token, option="--results")
    except BadInput:  # a request file names a results dataset that is no repository name: nothing to check there
        return []
    if not store.exists():
        return []
    head = store.head()
    return card_claims(store, store.files(head), head, [c.name for c in request_claims(request)])


def cancel(dataset: RequestsDataset, request_id: str, by: str, reason: str = "") -> EvalRequest:
    """Cancel a pending or running request (a running one's worker stops at its next heartbeat, writing nothing)."""
    cancelled: dict[str, EvalRequest] = {}

    def decide(snapshot: Snapshot) -> Change:
        current = snapshot.requests.get(request_id)
        if current is None:
            raise BadInput(f"No request {request_id!r} in {dataset.repo_id}.")
        if current.status not in OPEN:
            raise BadInput(f"Request {request_id} is {current.status}; only a pending or running one can be cancelled.")
        note = f"cancelled{': ' + reason if reason else ''}"
        at = now()
        cancelled["request"] = current.moved("cancelled", by, note, at, lease=None, finished_at=at)
        return Change({current.path: cancelled["request"].to_bytes()}, f"Cancel {request_id}")

    dataset.update(decide)
    return cancelled["request"]
