"""How a subset is named in a table: as the task's views name it, with its own name where the label hides it.

"¬2in (type=2in)", "#1 (evidence=1)", "A - a" (for "category=A - a": the label is in the name),
"all queries". One writing for ``compare --per-subset``, ``show --subsets`` and the app's Compare tab.
"""

from __future__ import annotations


def subset_text(label: str, subset: str) -> str:
    return label if label == "all queries" or label in subset else f"{label} ({subset})"
