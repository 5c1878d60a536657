"""The Score over time tab's points: each ranked model's score against its release date, with its 95% interval
(``charts.time_chart`` draws them). Models without a release date are named beside the chart, never dropped silently.

The release date is the model's own (an imported model's model_meta.json, or what its plugin records), not the date
of the run: a chart of how the field moved, as MTEB's board has none.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pandas as pd

from leaderboard.app.data.ranking import Line, Ranking
from leaderboard.app.views.charts import SOURCE_HERE, SOURCE_IMPORTED

COLUMNS = ["model", "released", "score", "low", "high", "source", "rank"]


def release_date(line: Line) -> dt.date | None:
    """The model's release date (an ISO date, or a datetime's date part), None where it has none or it is not one."""
    value = line.info.get("release_date")
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def time_frame(ranking: Ranking) -> tuple[pd.DataFrame, list[str]]:
    """The ranked rows with a release date (their intervals as computed so far: the tab computes them first), and
    the names of those without one."""
    rows: list[dict[str, Any]] = []
    undated = []
    for line in ranking.ranked + ranking.copied:
        released = release_date(line)
        if released is None or line.aggregate is None or not math.isfinite(line.aggregate):
            undated.append(line.name)
            continue
        low, high = line.aggregate_interval or (None, None)
        rows.append(
            {
                "model": line.name,
                "released": released.isoformat(),
                "score": line.aggregate,
                "low": low,
                "high": high,
                "source": SOURCE_IMPORTED if line.imported else SOURCE_HERE,
                "rank": line.rank,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS), undated


def dated(ranking: Ranking) -> list[Line]:
    """The ranked rows the chart plots (whose statistics the tab computes)."""
    return [line for line in ranking.ranked if release_date(line) is not None]
