"""Names of the adjacent document pairs of Tasks 2-4."""

from __future__ import annotations

PAIRS = [("Positive", "HN1")] + [(f"HN{i}", f"HN{i + 1}") for i in range(1, 10)]  # the paper's order
PAIR_NAMES = ["pos_vs_hn1"] + [f"hn{i}_vs_hn{i + 1}" for i in range(1, 10)]
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# The paper's names for the adjacent pairs (Fig. 3): d⁺ vs d₁, d₁ vs d₂, ..., d₉ vs d₁₀.
PAIR_LABELS = {"pos_vs_hn1": "d⁺ vs d₁"} | {
    f"hn{i}_vs_hn{i + 1}": f"d{str(i).translate(_SUB)} vs d{str(i + 1).translate(_SUB)}" for i in range(1, 10)
}
# Where each published column sits in a record's candidate list (Positive first, then HN1..HN10).
DOCUMENTS = ("Positive",) + tuple(f"HN{i}" for i in range(1, 11))
INDEX = {name: i for i, name in enumerate(DOCUMENTS)}
