"""JSON parsing that fails with a reason instead of crashing, on any input: ``pydantic_core.from_json``.

``json.loads`` raises RecursionError on deep nesting, ValueError on integers over 4,300 digits and
accepts NaN/Infinity. pydantic_core's parser (jiter, in Rust) needs no hand-written checks: it
stops at a fixed nesting depth with a clean error (however deep the input, no recursion in
Python), refuses escaped lone surrogates and over-long numbers, and is faster than ``json``. What
remains here: one exception type with a readable message, and the finite check for strict files
(its ``allow_inf_nan=False`` refuses NaN but parses ``1e400`` as inf).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic_core import from_json

MAX_DEPTH = 201  # pydantic_core's own nesting limit (see above); results nest about 8 levels, data records 2-3


class UnsafeJSON(ValueError):
    """Text that is not JSON this project reads; the message says why (with line and column when known)."""


def _reason(message: str) -> str:
    if message.startswith("recursion limit exceeded"):
        return f"nested more than {MAX_DEPTH} levels deep ({message.removeprefix('recursion limit exceeded ')})"
    if "hex escape" in message or "unicode code point" in message:
        return f"a string holds a lone surrogate (half of a UTF-16 pair) or a broken \\u escape ({message})"
    return f"not valid JSON ({message})"


def _all_finite(data: Any) -> bool:
    """No float in ``data`` (parsed JSON: dicts, lists, scalars) is NaN or infinite.

    Container by container, at C speed: a sum of floats is finite only when each is (NaN and inf
    propagate), so one sum settles a container of finite scores; only a sum that overflowed is checked
    value by value. (A result file holds thousands of numbers; a walk value by value took longer than
    parsing it.)"""
    if type(data) is not dict and type(data) is not list:
        return not (type(data) is float and not math.isfinite(data))
    stack = [data]  # iterative: the depth is bounded anyway, but a walk needs no recursion
    while stack:
        value = stack.pop()
        values = value.values() if type(value) is dict else value
        floats = [v for v in values if type(v) is float]
        if floats and not math.isfinite(sum(floats)) and not all(map(math.isfinite, floats)):
            return False
        stack.extend(v for v in values if type(v) is dict or type(v) is list)
    return True


def loads(text: str | bytes, *, finite: bool = False) -> Any:
    """Parse ``text``; UnsafeJSON with the reason for anything that is not (safe) JSON.

    Strings with a lone surrogate are refused: they are not text, and printing, encoding or
    tokenizing them fails far from the file. ``finite``: strict JSON, as for result files: also
    refuse NaN, Infinity and numbers that overflow a float.
    """
    try:
        data = from_json(text)  # NaN and Infinity parse, so that strict mode below can name them
    except ValueError as exc:
        raise UnsafeJSON(_reason(str(exc))) from None
    except TypeError:  # a Python str holding a lone surrogate cannot even be encoded for the parser
        raise UnsafeJSON("a string holds a lone surrogate (half of a UTF-16 pair), which is not text") from None
    if finite and not _all_finite(data):
        raise UnsafeJSON("a number is not a finite number (NaN, Infinity or too large for a float)")
    return data
