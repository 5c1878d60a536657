"""Agreement between two judges who labelled the same items: Cohen's kappa.

kappa = (p_o - p_e) / (1 - p_e), where p_o is the fraction of items both judges labelled alike and
p_e = sum over labels c of P_a(c) * P_b(c), the agreement expected if each judge labelled at random
with their own label frequencies. Labels may be any hashable values (binary or categorical).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence


def cohen_kappa(labels_a: Sequence[Hashable], labels_b: Sequence[Hashable]) -> float:
    """Cohen's kappa; nan when undefined (both judges gave every item one and the same label, p_e = 1).

    nan rather than 1.0 there: chance alone explains the agreement (scikit-learn also returns nan).
    """
    if len(labels_a) != len(labels_b):
        raise ValueError(f"the judges labelled different numbers of items: {len(labels_a)} vs {len(labels_b)}")
    n = len(labels_a)
    if n == 0:
        raise ValueError("no items to compare")
    observed = sum(a == b for a, b in zip(labels_a, labels_b, strict=True)) / n
    count_a, count_b = Counter(labels_a), Counter(labels_b)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if expected == 1.0:
        return math.nan
    return (observed - expected) / (1 - expected)
