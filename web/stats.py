"""Dice statistics: histogram of the rolled totals against the expected distribution, and a
chi-square test of the physical dice once enough rolls are in.

>>> s = dice_stats([(1, 2), (6, 6), (3, 4)])
>>> s["rolls"], s["histogram"]["3"], s["histogram"]["12"], s["histogram"]["7"]
(3, 1, 1, 1)
>>> s["totals_test"] is None  # far too few rolls for a fair verdict
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

TOTALS = tuple(range(2, 13))

#: Probability of each total of two fair six-sided dice.
P_TOTAL: dict[int, float] = {t: (6 - abs(7 - t)) / 36 for t in TOTALS}

#: Bins of the totals test: the rare totals are pooled so that every bin's expected count
#: reaches MIN_EXPECTED with fewer rolls (2 with 3, 11 with 12: 3/36 each).
TOTAL_BINS: tuple[tuple[int, ...], ...] = (
    (2, 3),
    (4,),
    (5,),
    (6,),
    (7,),
    (8,),
    (9,),
    (10,),
    (11, 12),
)

#: Cochran's rule of thumb: the chi-square approximation holds when every bin expects >= 5.
MIN_EXPECTED = 5.0


def chi2_sf(x: float, df: int) -> float:
    """Survival function P(X >= x) of the chi-square distribution with ``df`` degrees of freedom.

    Closed forms for integer ``df`` (no SciPy): for even df a finite Poisson sum, for odd df
    the complementary error function plus a finite sum.

    >>> round(chi2_sf(3.841, 1), 3), round(chi2_sf(15.507, 8), 3)
    (0.05, 0.05)
    """
    if df < 1:
        raise ValueError("df: must be a whole number >= 1")
    if x <= 0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    root = math.sqrt(x)
    total = math.erfc(root / math.sqrt(2.0))
    # 2 * phi(sqrt x) * sum_{k=1}^{(df-1)/2} x^(k-1/2) / (1*3*...*(2k-1))
    term = root
    acc = 0.0
    for k in range(1, (df - 1) // 2 + 1):
        if k > 1:
            term *= x / (2 * k - 1)
        acc += term
    total += 2.0 * math.exp(-half) / math.sqrt(2.0 * math.pi) * acc
    return min(1.0, total)


def chi_square_test(
    observed: Sequence[int], probabilities: Sequence[float]
) -> dict[str, Any] | None:
    """Pearson's goodness-of-fit test; None while some bin expects fewer than MIN_EXPECTED."""
    n = sum(observed)
    expected = [n * p for p in probabilities]
    if n == 0 or min(expected) < MIN_EXPECTED:
        return None
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    df = len(observed) - 1
    return {"statistic": round(stat, 4), "df": df, "p_value": round(chi2_sf(stat, df), 6)}


def min_rolls(probabilities: Sequence[float]) -> int:
    """Fewest observations for which every bin expects at least MIN_EXPECTED."""
    return math.ceil(MIN_EXPECTED / min(probabilities) - 1e-9)


def dice_stats(rolls: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """Histogram of totals and faces of ``rolls`` with expected counts and two fairness tests.

    The totals test pools 2+3 and 11+12 (8 degrees of freedom); the faces test counts every
    die's face over both dice (5 degrees of freedom) and needs far fewer rolls. A test is None
    until enough rolls are in (``*_min_rolls``).
    """
    n = len(rolls)
    totals = {t: 0 for t in TOTALS}
    faces = {f: 0 for f in range(1, 7)}
    for a, b in rolls:
        totals[a + b] += 1
        faces[a] += 1
        faces[b] += 1
    bin_p = [sum(P_TOTAL[t] for t in b) for b in TOTAL_BINS]
    bin_obs = [sum(totals[t] for t in b) for b in TOTAL_BINS]
    face_p = [1 / 6] * 6
    return {
        "rolls": n,
        "histogram": {str(t): totals[t] for t in TOTALS},
        "expected": {str(t): round(n * P_TOTAL[t], 3) for t in TOTALS},
        "faces": {str(f): faces[f] for f in faces},
        "totals_test": chi_square_test(bin_obs, bin_p),
        "totals_min_rolls": min_rolls(bin_p),
        "faces_test": chi_square_test(list(faces.values()), face_p),
        # Two faces per roll: half as many rolls as face observations.
        "faces_min_rolls": math.ceil(min_rolls(face_p) / 2),
    }
