"""Charts (Vega-Lite through altair): declared curves and bars, size vs score, score over time. The tabs hand
them to Gradio's Plot (``tabs.base.plot_data``).

Every chart shows at most ``MAX_MODELS`` models, each with its own colour from a 20-colour
palette, and a legend that lists all of them (no truncation). Axis entries keep the order the
task declared (e.g. the adjacent pairs of a ranking, in the paper's order).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import pandas as pd

from leaderboard.contract.task import View

MAX_MODELS = 20
WIDTH = 640  # pixels; narrower windows get narrower charts (Gradio does not size Vega charts to their box)
PALETTE: Literal["tableau20"] = "tableau20"
INSTALL = "pip install 'retrieval-leaderboard[app]'"
# Where a charted score comes from: a point with its interval, or an imported one (marked: it has none)
SOURCE_HERE, SOURCE_IMPORTED = "run here (95% interval)", "imported: run by mteb (no interval)"

if TYPE_CHECKING:
    import altair as alt


def available() -> bool:
    """Charts need altair (the app extra); without it the board and tables still work."""
    import importlib.util

    return importlib.util.find_spec("altair") is not None


def warm() -> None:
    """Import altair and load its Vega-Lite schema now (the background warm-up after a start): the first chart a
    reader opens otherwise waits for both, about 0.2 s here."""
    if available():
        import altair as alt

        alt.Chart(pd.DataFrame({"x": [0.0]})).mark_point().encode(x="x:Q").to_json()


def fit_width(window: float | None) -> int:
    """A chart width for a browser window this wide (the page's margins and the chart's axes around it)."""
    if not window or window != window or window <= 0:
        return WIDTH
    return int(max(240, min(WIDTH, window - 110)))


def _height(kind: str) -> int:
    return 280 if kind == "curve" else 300


def view_chart(frame: pd.DataFrame, view: View, y_label: str, width: int = WIDTH) -> alt.Chart | None:
    """A declared curve or bar chart; None when there is nothing to draw."""
    import altair as alt

    data = frame.dropna(subset=["value"])
    if data.empty:
        return None
    legend = alt.Legend(orient="bottom", columns=2, symbolLimit=0, labelLimit=360, title=None)
    order = [view.label(s, m) for s, m in view.axis]
    models = list(dict.fromkeys(frame["model"]))
    x = alt.X("entry:N", sort=order, title=None, axis=alt.Axis(labelAngle=-35, labelLimit=160))
    scale = alt.Scale(domain=list(view.y_range)) if view.y_range else alt.Scale(zero=False)
    y = alt.Y("value:Q", title=y_label, scale=scale)
    color = alt.Color("model:N", scale=alt.Scale(domain=models, scheme=PALETTE), legend=legend)
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("entry:N", title="entry"), alt.Tooltip("value:Q", format=".4f")]
    base = alt.Chart(data)  # the page puts the view's title above the chart
    if view.kind == "bars":
        offset = alt.XOffset("model:N", sort=models)
        if "low" in data:
            tooltip += [
                alt.Tooltip("low:Q", format=".4f", title="95% CI low"),
                alt.Tooltip("high:Q", format=".4f", title="95% CI high"),
            ]
        chart = base.mark_bar().encode(x=x, xOffset=offset, y=y, color=color, tooltip=tooltip)
        if "low" in data and data["low"].notna().any():  # each bar's 95% interval, where it has one
            whiskers = (
                base.transform_filter("isValid(datum.low)")
                .mark_rule(color="black", strokeWidth=1.5, opacity=0.75)
                .encode(x=x, xOffset=offset, y="low:Q", y2="high:Q")
            )
            chart = alt.layer(chart, whiskers)
    else:
        chart = base.mark_line(point=True).encode(x=x, y=y, color=color, tooltip=tooltip)
    drawn: alt.Chart = chart.properties(width=width, height=_height(view.kind))
    return drawn


def size_chart(frame: pd.DataFrame, y_label: str, width: int = WIDTH) -> alt.Chart | None:
    """Score against parameter count (log scale), one point per ranked model with a known size."""
    import altair as alt

    if frame.empty:
        return None
    # Altair refuses a data frame of over 5,000 rows when a chart is serialised (MaxRowsError: Size vs score
    # never drew at 100,000 imported results, about 8,000 models). Its documented switch lifts the check for
    # this process, whose charts are all the app's; a few thousand circles are nothing to Vega. (Inline
    # values would pass too, but Altair's schema check then walks every point: 4x the time.)
    alt.data_transformers.disable_max_rows()
    low = 10 ** math.floor(math.log10(frame["parameters"].min()))
    high = 10 ** math.ceil(math.log10(frame["parameters"].max()))
    if high == low:
        high = low * 10
    decades = [10**e for e in range(round(math.log10(low)), round(math.log10(high)) + 1)]
    # Tick labels as the model cards write sizes: 10M, 100M, 1B.
    labels = "datum.value >= 1e9 ? format(datum.value / 1e9, '~g') + 'B' : format(datum.value / 1e6, '~g') + 'M'"
    x = alt.X(
        "parameters:Q",
        scale=alt.Scale(type="log", domain=[low, high]),
        axis=alt.Axis(values=decades, labelExpr=labels, title="Parameters (log scale)", grid=True),
    )
    chart = (
        alt.Chart(frame, title=alt.Title("Model size vs score", anchor="start"))
        .mark_circle(size=90, opacity=0.85)
        .encode(
            x=x,
            y=alt.Y("score:Q", title=y_label, scale=alt.Scale(zero=False)),
            color=alt.Color("kind:N", legend=alt.Legend(orient="bottom", title="kind")),
            tooltip=[
                alt.Tooltip("model:N"),
                alt.Tooltip("size:N", title="parameters"),
                alt.Tooltip("score:Q", format=".4f"),
                alt.Tooltip("rank:Q"),
            ],
        )
    )
    drawn: alt.Chart = chart.properties(width=width, height=380)
    return drawn


def time_chart(frame: pd.DataFrame, y_label: str, width: int = WIDTH) -> alt.LayerChart | None:
    """Score against release date, one point per ranked model, its 95% interval a whisker where it has one; an
    imported score (no interval) a hollow diamond. No line joins the models: each is its own point."""
    import altair as alt

    if frame.empty:
        return None
    alt.data_transformers.disable_max_rows()  # as ``size_chart``: thousands of models on a big board
    x = alt.X("released:T", title="Release date", axis=alt.Axis(format="%Y-%m", labelAngle=-30))
    y = alt.Y("score:Q", title=y_label, scale=alt.Scale(zero=False))
    shape = alt.Shape(
        "source:N",
        scale=alt.Scale(domain=[SOURCE_HERE, SOURCE_IMPORTED], range=["circle", "diamond"]),
        legend=alt.Legend(orient="bottom", title=None, labelLimit=320),
    )
    color = alt.Color(
        "source:N",
        scale=alt.Scale(domain=[SOURCE_HERE, SOURCE_IMPORTED], range=["#2e7dd9", "#d97706"]),
        legend=alt.Legend(orient="bottom", title=None, labelLimit=320),  # one legend with the shapes
    )
    tooltip = [
        alt.Tooltip("model:N"),
        alt.Tooltip("released:T", format="%Y-%m-%d", title="released"),
        alt.Tooltip("score:Q", format=".4f"),
        alt.Tooltip("low:Q", format=".4f", title="95% CI low"),
        alt.Tooltip("high:Q", format=".4f", title="95% CI high"),
        alt.Tooltip("rank:Q"),
        alt.Tooltip("source:N"),
    ]
    base = alt.Chart(frame, title=alt.Title("Score over release date", anchor="start"))
    whiskers = (
        base.transform_filter("isValid(datum.low)")
        .mark_rule(strokeWidth=1.5, opacity=0.7)
        .encode(x=x, y="low:Q", y2="high:Q", color=color)
    )
    points = base.mark_point(size=60, opacity=0.9).encode(
        x=x,
        y=y,
        shape=shape,
        color=color,
        fill=alt.condition(f"datum.source === '{SOURCE_HERE}'", color, alt.value("transparent")),
        tooltip=tooltip,
    )
    return alt.layer(whiskers, points).properties(width=width, height=380)
