"""The paper's notation for the adjacent document pairs of Tasks 2-4 (arXiv 2503.08046, Sec. 3, Fig. 4,
Tables 18-20).

The paper writes d_k for the document that satisfies k of Query10's ten conditions and scores the pair
d_k vs d_{k-1} with WR_{k,k-1} = P[S(q_10, d_k) > S(q_10, d_{k-1})]. In the published files the positive
satisfies all ten (d_10, printed d^+ in Tables 19-20) and HN_j satisfies 10 - j, so HN_j = d_{10-j}
(HN1 = d_9, ..., HN10 = d_0). The pairs run in the tables' order: d_1 vs d_0 first, d_10 vs d_9 last.
"""

from __future__ import annotations

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def document(k: int) -> str:
    """The published column holding d_k."""
    return "Positive" if k == 10 else f"HN{10 - k}"


def label(k: int) -> str:
    """d_k vs d_{k-1}, with subscripts as the paper prints them."""
    return f"d{str(k).translate(_SUB)} vs d{str(k - 1).translate(_SUB)}"


PAIR_K = range(1, 11)  # k of each pair d_k vs d_{k-1}, in the order of Tables 18-20
PAIRS = [(document(k), document(k - 1)) for k in PAIR_K]  # (published column of d_k, of d_{k-1})
PAIR_NAMES = [f"d{k}_vs_d{k - 1}" for k in PAIR_K]
PAIR_LABELS = {name: label(k) for name, k in zip(PAIR_NAMES, PAIR_K)}
# Stated once here and shown in the views' legends and the README.
MAPPING = (
    "d_k satisfies k of Query10's ten conditions: d₁₀ is the Positive (d⁺), d_k is HN_{10-k} (HN1 = d₉ … HN10 = d₀)"
)
# Where each published column sits in a record's candidate list (Positive first, then HN1..HN10).
DOCUMENTS = ("Positive",) + tuple(f"HN{i}" for i in range(1, 11))
INDEX = {name: i for i, name in enumerate(DOCUMENTS)}
