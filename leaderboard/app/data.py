"""Results -> the leaderboard's tables. Pure pandas; no Gradio here, so it is testable on its own."""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from leaderboard.records.files import validation_errors
from leaderboard.records.listing import result_files

FAMILY_LABELS = {
    "multiconir": "MultiConIR",
    "comlq": "ComLQ",
    "negconstraint": "NegConstraint",
    "followir": "FollowIR",
    "instructir": "InstructIR",
    "ifir": "IFIR",
    "nevir": "NevIR",
    "bright": "BRIGHT",
    "mteb": "mteb",
    "beir": "BEIR",
    "demo": "Demo",
    "multiconir-demo": "MultiConIR demo",
}
NEGATION_TYPES = ("2in", "3in", "inp", "pin", "pni")
QUERY_TYPES = ("1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up") + NEGATION_TYPES
DOMAINS = ("Books", "Movies", "People", "Medical Case", "Legal Document")
INSTRUCTION_FAMILIES = ("followir", "instructir", "ifir", "nevir", "bright", "mteb")
MISSING = "—"


@dataclass
class Results:
    rows: list[dict] = field(default_factory=list)  # validated results
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)


def load(root: Path) -> Results:
    """Every *.json under root that is a valid result; everything else is listed with the reason."""
    out = Results()
    for path in result_files(root):
        try:
            data = json.loads(path.read_text("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            out.skipped.append((str(path), f"not valid JSON: {exc}"))
            continue
        errors = validation_errors(data)
        if errors:
            out.skipped.append((str(path), "; ".join(errors[:3])))
        else:
            data["_file"] = str(path)
            out.rows.append(data)
    return out


# -- text that reaches the browser -----------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>])")


def safe_text(text: Any) -> str:
    """Plain text for a markdown cell: HTML-escaped, markdown specials backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=True))


def model_link(name: str, reference: str | None) -> str:
    label = safe_text(name)
    if reference and re.match(r"^https?://[^\s<>\"'()]+$", reference):
        return f"[{label}]({reference})"
    return label


def fmt(value: float | None, partial: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.4f}{'*' if partial else ''}"


# -- the overview ------------------------------------------------------------------------------------


def _direction(result: dict) -> str:
    main = result["task"]["main_score"]
    return next((m["direction"] for m in result["task"]["metrics"] if m["name"] == main), "higher")


def model_key(result: dict) -> tuple[str, str]:
    return result["model"]["name"], str(result["model"]["revision"])


def family_columns(results: list[dict]) -> tuple[list[str], dict[str, list[str]]]:
    """Column name per family ("higher is better" tasks averaged) and separate "↓" columns."""
    columns: dict[str, list[str]] = {}
    for r in results:
        family = r["task"]["family"]
        label = FAMILY_LABELS.get(family, family)
        column = label if _direction(r) == "higher" else f"{label} {r['task']['main_score']} ↓"
        columns.setdefault(column, [])
        if r["task"]["name"] not in columns[column]:
            columns[column].append(r["task"]["name"])
    order = sorted(columns, key=lambda c: (c.endswith("↓"), c))
    return order, columns


def overview(results: list[dict]) -> pd.DataFrame:
    """One row per (model, revision): metadata, a column per family, an average, a rank."""
    order, tasks_of = family_columns(results)
    higher = [c for c in order if not c.endswith("↓")]
    models: dict[tuple[str, str], dict] = {}
    for r in sorted(results, key=lambda r: r["created_at"]):
        m = models.setdefault(model_key(r), {"scores": {}, "latest": r})
        m["latest"] = r
        m["scores"][r["task"]["name"]] = r["main_score"]
    rows = []
    for (name, revision), m in models.items():
        latest = m["latest"]
        meta = latest["model"].get("metadata", {})
        row = {
            "Model": model_link(name, meta.get("reference")),
            "Kind": latest["model"]["kind"],
            "Params": meta.get("n_parameters"),
            "Instructions": "yes" if meta.get("takes_instructions") else "no",
            "Revision": revision,
            "Harness": f"{latest['harness']['name']} {latest['harness']['version']}",
            "_name": name,
            "_params": meta.get("n_parameters"),
            "_kind": latest["model"]["kind"],
            "_instructions": bool(meta.get("takes_instructions")),
        }
        family_means = []
        for column in order:
            have = [m["scores"][t] for t in tasks_of[column] if t in m["scores"]]
            value = sum(have) / len(have) if have else None
            row[column] = fmt(value, partial=bool(have) and len(have) < len(tasks_of[column]))
            if value is not None and column in higher:
                family_means.append(value)
        coverage = len(family_means)
        average = sum(family_means) / coverage if coverage else None
        row["Average"] = fmt(average) + (
            f" ({coverage}/{len(higher)} families)" if average is not None and coverage < len(higher) else ""
        )
        row["_coverage"], row["_average"] = coverage, average if average is not None else -math.inf
        rows.append(row)
    # Models covering more families rank first; within equal coverage, by average ("higher" families only).
    rows.sort(key=lambda r: (-r["_coverage"], -r["_average"]))
    for i, row in enumerate(rows, start=1):
        row["Rank"] = i
    columns = ["Rank", "Model", "Kind", "Params", "Instructions", "Revision", "Harness", "Average"] + order
    frame = pd.DataFrame(rows, columns=columns + ["_name", "_params", "_kind", "_instructions"])
    frame["Params"] = frame["Params"].map(
        lambda p: f"{p / 1e6:.1f}M" if isinstance(p, (int, float)) and not pd.isna(p) else MISSING
    )
    return frame


def filter_models(
    frame: pd.DataFrame,
    kinds: list[str] | None,
    min_params: float | None,
    max_params: float | None,
    instructions: str,
    search: str,
) -> pd.DataFrame:
    keep = pd.Series(True, index=frame.index)
    if kinds:
        keep &= frame["_kind"].isin(kinds)
    params = pd.to_numeric(frame["_params"], errors="coerce")
    if min_params is not None and min_params > 0:
        keep &= params >= min_params * 1e6
    if max_params is not None and max_params > 0:
        keep &= params <= max_params * 1e6
    if instructions == "yes":
        keep &= frame["_instructions"]
    elif instructions == "no":
        keep &= ~frame["_instructions"]
    if search:
        keep &= frame["_name"].str.contains(search, case=False, regex=False)
    return frame[keep]


def visible(frame: pd.DataFrame, columns: list[str] | None = None) -> pd.DataFrame:
    shown = [
        c
        for c in frame.columns
        if not c.startswith("_") and (columns is None or c in columns or c in ("Rank", "Model"))
    ]
    return frame[shown]


# -- family views ------------------------------------------------------------------------------------


def _label(r: dict) -> str:
    return f"{r['model']['name']} @ {r['model']['revision']}"


def _with(results: list[dict], metric: str) -> list[dict]:
    return [
        r
        for r in results
        if r["task"]["family"].startswith("multiconir") and metric in r["scores"]["test"].get("default", {})
    ]


def win_rate_curve(results: list[dict], subset: str = "default") -> pd.DataFrame:
    rows = [
        {"model": _label(r), "conditions": str(k), "win rate": r["scores"]["test"][subset][f"win_rate_k{k}"]}
        for r in _with(results, "win_rate_k1")
        if subset in r["scores"]["test"]
        for k in range(1, 11)
    ]
    return pd.DataFrame(rows, columns=["model", "conditions", "win rate"])


def decline_table(results: list[dict], subset: str = "default") -> pd.DataFrame:
    rows = []
    for r in _with(results, "decline"):
        s, ci = r["scores"]["test"].get(subset), r.get("confidence_intervals", {}).get("test", {}).get(subset, {})
        if s:
            rows.append(
                {
                    "model": _label(r),
                    "task": r["task"]["name"],
                    "WR k=1": fmt(s["win_rate_k1"]),
                    "WR k=10": fmt(s["win_rate_k10"]),
                    "Decline": fmt(s["decline"]),
                    "mean WR": fmt(s["mean_win_rate"]),
                    "mean WR 95% CI": " – ".join(fmt(v) for v in ci.get("mean_win_rate", [])) or MISSING,
                }
            )
    return pd.DataFrame(rows, columns=["model", "task", "WR k=1", "WR k=10", "Decline", "mean WR", "mean WR 95% CI"])


CONDITION_LABELS = [str(k) for k in range(1, 11)]
PAIR_LABELS = ["d+ vs HN1"] + [f"HN{i} vs HN{i + 1}" for i in range(1, 10)]
PAIR_KEYS = ["pos_vs_hn1"] + [f"hn{i}_vs_hn{i + 1}" for i in range(1, 10)]


def adjacent_curve(results: list[dict], subset: str = "default") -> pd.DataFrame:
    rows = [
        {"model": _label(r), "pair": PAIR_LABELS[i], "win rate": r["scores"]["test"][subset][f"win_rate_{key}"]}
        for r in _with(results, "win_rate_pos_vs_hn1")
        if r["task"]["name"].endswith("task2") and subset in r["scores"]["test"]
        for i, key in enumerate(PAIR_KEYS)
    ]
    return pd.DataFrame(rows, columns=["model", "pair", "win rate"])


def flip_rate_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in _with(results, "flip_rate"):
        s = r["scores"]["test"]
        rows.append(
            {
                "model": _label(r),
                **{d: fmt(s.get(f"domain={d}", {}).get("flip_rate")) for d in DOMAINS},
                "average ↓": fmt(s["default"]["flip_rate"]),
            }
        )
    return pd.DataFrame(rows, columns=["model", *DOMAINS, "average ↓"])


def length_table(results: list[dict], subset: str = "default") -> pd.DataFrame:
    by_model: dict[str, dict] = {}
    for r in _with(results, "mean_adjacent_win_rate"):
        column = {"task2": "original", "task4-512": "512 words", "task4-1024": "1024 words"}.get(
            r["task"]["name"].split("-", 2)[-1].replace("demo-", "")
        )
        if column and subset in r["scores"]["test"]:
            by_model.setdefault(_label(r), {})[column] = r["scores"]["test"][subset]["mean_adjacent_win_rate"]
    rows = [
        {"model": m, **{c: fmt(v.get(c)) for c in ("original", "512 words", "1024 words")}} for m, v in by_model.items()
    ]
    return pd.DataFrame(rows, columns=["model", "original", "512 words", "1024 words"])


def comlq_tables(results: list[dict]) -> tuple[pd.DataFrame, pd.DataFrame]:
    type_rows, other_rows = [], []
    for r in (r for r in results if r["task"]["family"] == "comlq"):
        s = r["scores"]["test"]
        type_rows.append(
            {
                "model": _label(r),
                **{
                    (f"¬{t}" if t in NEGATION_TYPES else t): fmt(s.get(f"type={t}", {}).get("ndcg_at_10"))
                    for t in QUERY_TYPES
                },
            }
        )
        lsnc = {k: v for k, v in s["default"].items() if k.startswith("lsnc_")}
        other_rows.append(
            {
                "model": _label(r),
                "nDCG@10": fmt(s["default"]["ndcg_at_10"]),
                "negation nDCG@10": fmt(s.get("group=negation", {}).get("ndcg_at_10")),
                "LSNC@10": fmt(next((v for k, v in lsnc.items() if k.endswith("_at_10")), None)),
                "LSNC@100": fmt(next((v for k, v in lsnc.items() if k.endswith("_at_100")), None)),
                **{f"{n} evidence": fmt(s.get(f"evidence={n}", {}).get("ndcg_at_10")) for n in (1, 2, 3)},
            }
        )
    type_columns = ["model"] + [f"¬{t}" if t in NEGATION_TYPES else t for t in QUERY_TYPES]
    return (
        pd.DataFrame(type_rows, columns=type_columns),
        pd.DataFrame(
            other_rows,
            columns=[
                "model",
                "nDCG@10",
                "negation nDCG@10",
                "LSNC@10",
                "LSNC@100",
                "1 evidence",
                "2 evidence",
                "3 evidence",
            ],
        ),
    )


def instruction_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in (
        r
        for r in results
        if r["task"]["family"] in INSTRUCTION_FAMILIES or r.get("task_details", {}).get("framework") == "mteb"
    ):
        s = r["scores"]["test"].get("default", {})
        rows.append(
            {
                "model": _label(r),
                "task": r["task"]["name"],
                "main score": r["task"]["main_score"],
                "value": fmt(r["main_score"]),
                "p-MRR": fmt(s.get("p-MRR")),
                "MAP@1000 og": fmt(s.get("og_map_at_1000")),
                "MAP@1000 changed": fmt(s.get("changed_map_at_1000")),
                "nDCG@5 og": fmt(s.get("og_ndcg_at_5")),
                "nDCG@5 changed": fmt(s.get("changed_ndcg_at_5")),
                "source": "imported from mteb" if r.get("imported_from") else "run here",
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "task",
            "main score",
            "value",
            "p-MRR",
            "MAP@1000 og",
            "MAP@1000 changed",
            "nDCG@5 og",
            "nDCG@5 changed",
            "source",
        ],
    )


def provenance_table(results: list[dict]) -> pd.DataFrame:
    rows = []
    for r in results:
        ci = r.get("confidence_intervals", {}).get("test", {}).get("default", {}).get(r["task"]["main_score"])
        rows.append(
            {
                "model": _label(r),
                "task": r["task"]["name"],
                "main score": fmt(r["main_score"]),
                "95% CI": " – ".join(fmt(v) for v in ci) if ci else MISSING,
                "data hash": (r["task"]["source"].get("content_hash") or MISSING)[:19],
                "data revision": r["task"]["source"].get("revision") or MISSING,
                "harness": f"{r['harness']['name']} {r['harness']['version']} {(r['harness'].get('git_commit') or '')[:8]}".strip(),
                "date": r["created_at"],
                "imported": "yes" if r.get("imported_from") else "no",
            }
        )
    return pd.DataFrame(
        rows,
        columns=["model", "task", "main score", "95% CI", "data hash", "data revision", "harness", "date", "imported"],
    )
