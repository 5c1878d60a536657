"""Links into the app: over-long query strings trimmed before Gradio sees them, and a link's model picks
(plain names, name@revision, the old internal form) resolved against a benchmark's models."""

from __future__ import annotations

import asyncio
import urllib.parse
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from leaderboard.app.data import url_state
from leaderboard.app.server.legacy_links import LegacyPageLinks, repaired
from leaderboard.app.tabs.picks import Picks, listed_names, unknown_note

LONG = "x" * 100_000


def test_a_query_that_fits_is_left_alone():
    query = "benchmark=ComLQ&models=a%7Cb&q=bm25"
    assert url_state.trim(query) == query
    assert repaired(query) is None


def test_an_overlong_query_keeps_its_short_parameters_and_the_list_items_that_fit():
    names = [f"org-{i}/model-{i}" for i in range(10_000)]
    query = urllib.parse.urlencode([("benchmark", "ComLQ"), ("models", "|".join(names)), ("q", LONG), ("tab", "views")])
    trimmed = url_state.trim(query)
    assert len(trimmed) <= url_state.MAX_QUERY
    state = url_state.parse(query)  # the page load reads the same trimmed view
    assert state.benchmark == "ComLQ" and state.tab == "views" and state.search == ""  # q= did not fit: dropped
    assert 100 < len(state.models) < len(names) and list(state.models) == names[: len(state.models)]  # whole names


@given(st.lists(st.tuples(st.sampled_from(["a", "models", "q", "b"]), st.text(max_size=3000)), max_size=12))
def test_a_trimmed_query_never_exceeds_the_limit_and_keeps_whole_parameters(pairs):
    query = urllib.parse.urlencode(pairs)
    trimmed = url_state.trim(query, 1000)
    assert len(trimmed) <= 1000
    kept = urllib.parse.parse_qsl(trimmed, keep_blank_values=True)
    for key, value in kept:  # each kept value is a given value, or a list cut after whole items
        assert any(v == value or (value and v.startswith(value + "|")) for k, v in pairs if k == key)


def test_a_query_of_a_million_separators_is_cut_quickly():
    assert url_state.trim("&" * 1_000_000 + "benchmark=x") in ("", "benchmark=x")


def call(middleware, path: str, query: str):
    """One GET through the middleware; the response it sends itself, or the query the app received."""
    sent: list[dict] = []
    seen: dict = {}

    async def app(scope, receive, send):
        seen["query"] = scope["query_string"].decode("latin-1")

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "root_path": "", "query_string": query.encode()}
    asyncio.run(middleware(app)(scope, None, send))
    return sent, seen.get("query")


def test_the_middleware_redirects_a_page_link_too_long_for_gradio_and_trims_any_other_request():
    query = "benchmark=ComLQ&tab=compare&q=" + LONG
    sent, reached = call(LegacyPageLinks, "/", query)
    assert reached is None and sent[0]["status"] == 307
    location = dict(sent[0]["headers"])[b"location"].decode()
    assert location == "?benchmark=ComLQ&tab=compare" and len(location) < url_state.MAX_QUERY
    sent, reached = call(LegacyPageLinks, "/gradio_api/queue/join", query)  # trimmed in place, not redirected
    assert sent == [] and reached == "benchmark=ComLQ&tab=compare"
    sent, reached = call(LegacyPageLinks, "/", "benchmark=ComLQ&page=2")  # the old pager's links still mended
    assert dict(sent[0]["headers"])[b"location"] == b"?benchmark=ComLQ&p=2"
    assert call(LegacyPageLinks, "/", "benchmark=ComLQ&p=2") == ([], "benchmark=ComLQ&p=2")


def ranking(*keys):
    return SimpleNamespace(lines=[SimpleNamespace(key=key) for key in keys])


NEWEST = ranking(("bm25", "v2"), ("bm25-okapi", "r1"), ("Org/Model", "abc123def"))
EVERY = ranking(("bm25", "v2"), ("bm25", "v1-older"), ("bm25-okapi", "r1"), ("Org/Model", "abc123def"))


def test_a_pick_is_a_plain_name_a_name_at_revision_or_the_old_internal_form():
    picks = Picks(NEWEST, EVERY)
    assert picks.key("bm25") == ("bm25", "v2")  # a plain name: the revision the board shows
    assert picks.key("bm25@v1-older") == ("bm25", "v1-older")
    assert picks.key("bm25 @ v1-older") == ("bm25", "v1-older")  # as the pickers label it
    assert picks.key("bm25\x1fv1-older") == ("bm25", "v1-older")  # links written by older pages
    assert picks.key("org/model") == ("Org/Model", "abc123def")  # case, when only one model matches
    assert picks.key("Org/Model@abc1") == ("Org/Model", "abc123def")  # a unique prefix of a commit
    for unknown in ("nope", "bm25@v3", "bm25\x1fv3", "", None, "   "):
        assert picks.key(unknown) is None, unknown
    assert [value for _, value in picks.choices()] == ["bm25", "bm25@v1-older", "bm25-okapi", "Org/Model"]
    assert Picks(NEWEST).key("bm25@v1-older") is None  # the views picker offers the shown revisions only


def test_a_picker_lists_the_first_models_and_the_picks_shown_the_others_are_typed(monkeypatch):
    """Thousands of listed choices cost the browser seconds on every tab switch (perf_app: Task views 1.6 s at
    10,000 files, 0.6 s with the list capped): a picker lists the first models and the picks it shows."""
    from leaderboard.app.tabs import picks as module

    monkeypatch.setattr(module, "LISTED_AT_MOST", 2)
    picks = Picks(NEWEST, EVERY)
    assert [value for _, value in picks.choices()] == ["bm25", "bm25@v1-older"]
    kept = picks.choices(keep=["org/model", "nope", "bm25"])  # a typed name, resolved; unknown names dropped
    assert [value for _, value in kept] == ["bm25", "bm25@v1-older", "Org/Model"]
    assert picks.key("bm25-okapi") == ("bm25-okapi", "r1")  # an unlisted model is still resolved when typed


def test_the_model_pickers_list_the_first_names_and_the_picks_shown(monkeypatch):
    """The model page's and the side-by-side pickers list the first models (most benchmarks first), as Compare's
    do: 10,000 listed names cost the browser about 0.4 s of every click (perf_app, docs/development/perf.md)."""
    from leaderboard.app.tabs import picks as module

    monkeypatch.setattr(module, "LISTED_AT_MOST", 3)
    names = ["e5-large", "bm25", "E5-small", "gte-base", "e5-mistral", "contriever"]
    first = ["e5-large", "bm25", "E5-small"]
    assert listed_names(names) == first
    assert listed_names(names, keep=["contriever", "bm25", "contriever"]) == [*first, "contriever"]
    assert listed_names(names[:2]) == names[:2]


def test_picks_are_resolved_in_order_capped_and_unknown_ones_named():
    found = Picks(NEWEST).resolve(["bm25-okapi", "nope", "bm25", "bm25", "Org/Model"], limit=2)
    assert found.values == ["bm25-okapi", "bm25"] and found.over_limit == 1 and found.unknown == ["nope"]
    note = unknown_note([f"m{i}<b>" for i in range(8)], "ComLQ", "models")
    assert note.startswith("No models named “m0&lt;b&gt;”") and "and 3 more" in note and "<b>" not in note
