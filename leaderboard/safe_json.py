"""JSON parsing that fails with a reason instead of crashing, on any input.

``json.loads`` alone raises RecursionError on deep nesting (or succeeds, and the code walking the
result recurses later), ValueError on integers over 4,300 digits, and accepts NaN/Infinity. Here
the nesting depth is checked before parsing, with a scan that does not recurse.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 100  # results nest about 8 levels and data records 2-3; far below Python's recursion limit

# A JSON string literal (unrolled loop: no backtracking blow-up on long strings).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # "\ud800": JSON text may name half a pair


class UnsafeJSON(ValueError):
    """Text that is not JSON this project reads; the message says why (with line and column when known)."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays/objects outside string literals, without recursion."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets.encode("ascii"))), default=0)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnsafeJSON(f"the number {text[:20]} is too large for a finite number")
    return value


def _no_constant(name: str) -> float:
    raise UnsafeJSON(f"{name} is not a finite number (strict JSON has no {name})")


def loads(text: str, *, finite: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``text``; UnsafeJSON with the reason for anything that is not (safe) JSON.

    Strings with a lone surrogate ("\\ud800" in the JSON text) are refused: they are not text, and
    printing, encoding or tokenizing them fails far from the file. ``finite``: strict JSON, as for
    result files: also refuse NaN, Infinity and numbers that overflow a float.
    """
    # Cheap bound first: the depth is at most the number of openings (most texts stop here).
    if text.count("[") + text.count("{") > max_depth and (depth := nesting_depth(text)) > max_depth:
        raise UnsafeJSON(f"nested {depth} levels deep; at most {max_depth} are allowed")
    try:
        if finite:
            data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
        else:
            data = json.loads(text)
        if _ESCAPED_SURROGATE.search(text):  # a pair decodes to one character; half a pair stays a surrogate
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        return data
    except UnicodeEncodeError:
        raise UnsafeJSON("a string holds a lone surrogate (half of a UTF-16 pair), which is not text") from None
    except UnsafeJSON:
        raise
    except json.JSONDecodeError as exc:
        raise UnsafeJSON(f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # unreachable below MAX_DEPTH; kept so a raised limit cannot crash a reader
        raise UnsafeJSON("nested too deeply") from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4,300-digit conversion limit
        raise UnsafeJSON(f"not readable JSON: {str(exc).split(';')[0]}") from None
