"""Dice statistics: the chi-square survival function and the fairness tests."""

from __future__ import annotations

import math
import random

import pytest

from web.stats import (
    MIN_EXPECTED,
    P_TOTAL,
    TOTAL_BINS,
    chi2_sf,
    chi_square_test,
    dice_stats,
    min_rolls,
)

# Critical values of the chi-square distribution at the 5 % and 1 % levels (statistics tables).
CRITICAL_05 = {1: 3.841, 2: 5.991, 3: 7.815, 4: 9.488, 5: 11.070, 8: 15.507, 10: 18.307}
CRITICAL_01 = {1: 6.635, 5: 15.086, 8: 20.090}


@pytest.mark.parametrize(("df", "x"), sorted(CRITICAL_05.items()))
def test_chi2_sf_at_five_percent_critical_values(df: int, x: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(0.05, abs=2e-4)


@pytest.mark.parametrize(("df", "x"), sorted(CRITICAL_01.items()))
def test_chi2_sf_at_one_percent_critical_values(df: int, x: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(0.01, abs=1e-4)


def test_chi2_sf_closed_forms() -> None:
    # df = 2 is the exponential distribution with mean 2.
    for x in (0.5, 3.0, 9.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2))
    # df = 1 is the square of a standard normal.
    assert chi2_sf(1.0, 1) == pytest.approx(math.erfc(1 / math.sqrt(2)))
    assert chi2_sf(0.0, 5) == 1.0 and chi2_sf(-1.0, 3) == 1.0


def test_chi2_sf_falls_with_x() -> None:
    for df in (1, 5, 8):
        values = [chi2_sf(x / 4, df) for x in range(1, 200)]
        assert all(a > b for a, b in zip(values, values[1:], strict=False))


def test_chi2_sf_refuses_no_degrees_of_freedom() -> None:
    with pytest.raises(ValueError, match="df"):
        chi2_sf(1.0, 0)


def test_bins_cover_every_total_once() -> None:
    assert sorted(t for b in TOTAL_BINS for t in b) == list(P_TOTAL)
    assert sum(P_TOTAL.values()) == pytest.approx(1.0)


def test_min_rolls_gives_every_bin_its_expected_count() -> None:
    probs = [sum(P_TOTAL[t] for t in b) for b in TOTAL_BINS]
    n = min_rolls(probs)
    assert min(p * n for p in probs) >= MIN_EXPECTED - 1e-9
    assert min(p * (n - 1) for p in probs) < MIN_EXPECTED


def test_no_test_until_enough_rolls() -> None:
    assert chi_square_test([0, 0], [0.5, 0.5]) is None
    assert chi_square_test([4, 5], [0.5, 0.5]) is None
    assert chi_square_test([5, 5], [0.5, 0.5]) == {"statistic": 0.0, "df": 1, "p_value": 1.0}


def test_perfect_distribution_is_not_suspicious() -> None:
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)] * 3  # every outcome 3 times
    s = dice_stats(rolls)
    assert s["rolls"] == 108
    assert s["totals_test"]["p_value"] == 1.0 and s["faces_test"]["p_value"] == 1.0
    assert s["histogram"]["7"] == 18 and s["expected"]["7"] == 18.0


def test_loaded_dice_are_flagged() -> None:
    rng = random.Random(4)

    # A die that shows 6 half the time.
    def loaded() -> int:
        return 6 if rng.random() < 0.5 else rng.randint(1, 5)

    s = dice_stats([(loaded(), loaded()) for _ in range(200)])
    assert s["faces_test"]["p_value"] < 0.001
    assert s["totals_test"]["p_value"] < 0.001


def test_fair_random_dice_usually_pass() -> None:
    rng = random.Random(9)
    passes = 0
    for _ in range(50):
        rolls = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(120)]
        passes += dice_stats(rolls)["faces_test"]["p_value"] > 0.01
    assert passes >= 45  # about 1 in 100 fair runs falls below 0.01


def test_faces_test_starts_before_totals_test() -> None:
    s = dice_stats([(1, 2)] * 15)
    assert s["faces_min_rolls"] == 15 and s["faces_test"] is not None
    assert s["totals_min_rolls"] == 60 and s["totals_test"] is None
