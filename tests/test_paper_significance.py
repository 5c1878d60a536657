"""The ≈ of `show --format markdown|latex` is the board's test: for MultiConIR, whose score is a macro mean
over domains of unequal size, the paired sign-flip test weights each domain as the score does, and a
score without a stored interval gets the bootstrap of its domains, each resampled on its own. Recomputed
by hand: 12 queries, so every sign pattern is enumerated (an exact p-value)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from conftest import run_cli
from numbers_fixtures import DOMAIN_ROWS, multiconir_pair, strata_ids, with_values

from leaderboard.metrics.bootstrap import stratified_bootstrap

TASK, METRIC = "multiconir-task1", "mean_win_rate"
# B - A per query, domain by domain (3, 2, 3, 1 and 3 queries): significant as a mean over the 12 queries
# (p = 0.027), not as the macro mean over the five domains the score is (p = 0.19)
SHIFT = {
    "Books": (0.0, 0.3, 0.3),
    "Movies": (0.0, 0.2),
    "People": (0.4, 0.2, 0.1),
    "Medical Case": (-0.2,),
    "Legal Document": (0.0, 0.2, 0.2),
}


def exact_p(differences: list[np.ndarray], weights: list[float]) -> float:
    """Two-sided paired sign-flip p-value of the weighted mean of stratum means, every sign pattern enumerated."""
    n = sum(len(d) for d in differences)
    per_query = np.concatenate([d * w / len(d) for d, w in zip(differences, weights)])  # sum = the statistic
    observed = per_query.sum()
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
    null = signs @ per_query
    tolerance = abs(observed) * 1e-12
    one_sided = min((null <= observed + tolerance).sum(), (null >= observed - tolerance).sum())
    return min(1.0, 2 * one_sided / len(signs))


@pytest.fixture(scope="module")
def uneven_pair(tmp_path_factory):
    """seeded-a's Task 1 run, and a forged run B: A's values shifted by SHIFT, scores recomputed, no stored interval."""
    root = tmp_path_factory.mktemp("paper-multiconir")
    paths = multiconir_pair(root, tasks=(TASK,))
    data_a = json.loads(paths["seeded-a"][TASK].read_text())
    by_domain = strata_ids(data_a, "default", METRIC)  # one mapping per domain, in macro_over order
    domains = [name.removeprefix("domain=") for name in data_a["per_query"]["macro_over"]]
    assert [len(part) for part in by_domain] == [DOMAIN_ROWS[d] for d in domains]
    shifted = {
        q: part[q] + shift
        for part, domain in zip(by_domain, domains)
        for q, shift in zip(sorted(part), SHIFT[domain], strict=True)
    }
    data_b = with_values(data_a, METRIC, shifted)
    data_b["model"]["name"] = "shifted"
    folder = root / "pair"
    for name, data in (("seeded-a", data_a), ("shifted", data_b)):
        (folder / name).mkdir(parents=True)
        (folder / name / f"{TASK}.json").write_text(json.dumps(data))
    return folder, data_a, data_b


def test_the_mark_is_the_macro_means_test_and_the_interval_its_domains_bootstrap(uneven_pair, tmp_path):
    folder, data_a, data_b = uneven_pair
    parts_a, parts_b = strata_ids(data_a, "default", METRIC), strata_ids(data_b, "default", METRIC)
    differences = [np.array([b[q] - a[q] for q in sorted(a)]) for a, b in zip(parts_a, parts_b)]
    macro = exact_p(differences, [1 / len(differences)] * len(differences))
    pooled = exact_p([np.concatenate(differences)], [1.0])
    assert pooled < 0.05 <= macro  # so the plain mean's test would give the other mark
    assert data_b["main_score"] > data_a["main_score"]  # B is the best, A is tested against it
    interval_b = stratified_bootstrap([np.asarray([[part[q] for q in sorted(part)]]) for part in parts_b])
    shown_b = f"[{interval_b[0][0]:.4f}, {interval_b[1][0]:.4f}]"
    pooled_b = np.concatenate([[part[q] for q in sorted(part)] for part in parts_b])
    one_stratum = stratified_bootstrap([pooled_b[None, :]])
    assert shown_b != f"[{one_stratum[0][0]:.4f}, {one_stratum[1][0]:.4f}]"  # domains resampled on their own

    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    markdown = run_cli("show", str(folder), "--format", "markdown", env=env)
    assert markdown.returncode == 0, markdown.stderr
    md_interval = shown_b.replace("[", "\\[").replace("]", "\\]")
    assert f"| shifted | **{data_b['main_score']:.4f}** {md_interval} |" in markdown.stdout
    assert f"| seeded-a | {data_a['main_score']:.4f} \\[" in markdown.stdout
    assert f"] {'≈' if macro >= 0.05 else ''} |" in markdown.stdout.split("| seeded-a |")[1].splitlines()[0]
    latex = run_cli("show", str(folder), "--format", "latex", env=env)
    assert latex.returncode == 0, latex.stderr
    assert rf"seeded-a & {data_a['main_score']:.4f}\rlap{{\textsuperscript{{$\approx$}}}} \\" in latex.stdout
    assert rf"{{\scriptsize {shown_b}}}" in latex.stdout
