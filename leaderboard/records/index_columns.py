"""How the results index stores a result's per-query columns: compact, and shared across results.

A result's per-query columns (``{"ids": [...], "values": {metric: [value or None per id]},
"subsets": {subset: [positions]}, ...}``) are mostly the same from one result to the next: every
run of a task has the same query ids and the same subsets. As plain JSON, each result's columns
would be stored and parsed whole (ComLQ's: 2,909 ids, 51 subsets, 6 columns of values), and a
board page reads a hundred of them. So the index stores:

* the ids and the subsets once per distinct value, in a ``shared`` table keyed by the sha256 of
  their JSON text (a reader checks the key against the text, so an edited row is never used), the
  row naming them by that key;
* each column of values as little-endian float64 bytes in base64, None (a query the metric was not
  computed on) as NaN: per-query values are finite numbers, so NaN means only "no value" here;
* every other key as it is, in JSON.

Pure Python (``array``), no numpy: ``show`` builds the index too, and must stay light.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import sys
from array import array
from typing import Any, cast

SHARED = ("ids", "subsets")  # what is kept once per distinct value
_NAN = float("nan")


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _bytes(column: Any) -> tuple[str, bool]:
    """A column (a list with None, or a float64 array with NaN: ``per_query_checks``' ``array("d")``, or
    numpy's) as base64 bytes, and whether it lacks a value somewhere."""
    if hasattr(column, "dtype"):
        data = column.astype("<f8").tobytes()
        return base64.b64encode(data).decode("ascii"), bool((column != column).any())
    if isinstance(column, array) and column.typecode == "d":
        values = array("d", column)  # a copy: the byte swap below must not touch the caller's column
        if sys.byteorder == "big":
            values.byteswap()
        return base64.b64encode(values.tobytes()).decode("ascii"), any(map(math.isnan, column))  # C speed
    values = array("d", [_NAN if v is None else v for v in column])
    if sys.byteorder == "big":
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii"), any(v is None for v in column)


def _column(text: str, missing: bool) -> list[float | None]:
    values = array("d")
    values.frombytes(base64.b64decode(text))
    if sys.byteorder == "big":
        values.byteswap()
    out: list[float] = values.tolist()
    return [None if v != v else v for v in out] if missing else cast(list[float | None], out)  # NaN: None only here


def encode(stored: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """(the row's text, {key: text} of the shared parts it names)."""
    shared: dict[str, str] = {}
    row: dict[str, Any] = {}
    for name, value in stored.items():
        if name in SHARED:
            text = json.dumps(value, separators=(",", ":"), allow_nan=False)
            key = text_sha256(text)
            shared[key] = text
            row[name] = {"shared": key}
        elif name == "values":
            encoded = {metric: _bytes(column) for metric, column in value.items()}
            row["values"] = {metric: text for metric, (text, _) in encoded.items()}
            row["missing"] = sorted(metric for metric, (_, missing) in encoded.items() if missing)
        else:
            row[name] = value
    return json.dumps(row, separators=(",", ":"), allow_nan=False), shared


def refs(text: str) -> list[str]:
    """The shared keys a row's text names."""
    row = json.loads(text)
    return [row[name]["shared"] for name in SHARED if isinstance(row.get(name), dict)]


def decode(text: str, shared: Any) -> dict[str, Any] | None:
    """The columns back from a row's text; ``shared(key)`` gives a shared part (None: missing or damaged).

    None when anything is missing or malformed: the caller then treats the result as having no values."""
    try:
        row = json.loads(text)
        out: dict[str, Any] = {}
        for name, value in row.items():
            if name in SHARED:
                found = shared(value["shared"])
                if found is None:
                    return None
                out[name] = found
            elif name == "values":
                missing = set(row.get("missing") or ())
                out["values"] = {metric: _column(data, metric in missing) for metric, data in value.items()}
            elif name != "missing":
                out[name] = value
        return out
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None
