"""The joint reading of a board's chips under the multiset constraint."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from vision.chips import CHIP_VALUES, MIN_JOINT_SCORE, ChipReading, read_chips_jointly

BASE = Counter({2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1})


def _reading(scores: dict[int, float]) -> ChipReading:
    full = {v: 0.0 for v in CHIP_VALUES} | scores
    total = sum(full.values())
    full = {v: s / total for v, s in full.items()}
    best = max(full, key=full.__getitem__)
    return ChipReading(best, full[best], full, best in (6, 8), None)


def test_confident_readings_are_kept() -> None:
    readings = [_reading({v: 0.9, 3: 0.1}) for v in (2, 4, 5)]
    assert read_chips_jointly(readings, BASE) == [2, 4, 5]


def test_a_value_read_too_often_goes_to_the_least_sure_chip_second_choice() -> None:
    # Three chips look most like 6, but the board has only two 6s; the third is a blurred 9.
    readings = [
        _reading({6: 0.95, 8: 0.05}),
        _reading({6: 0.9, 9: 0.1}),
        _reading({6: 0.55, 9: 0.45}),
    ]
    assert read_chips_jointly(readings, BASE) == [6, 6, 9]


def test_unreadable_chip_stays_none_instead_of_taking_the_leftover_value() -> None:
    flat = ChipReading(None, 0.0, {v: 0.0 for v in CHIP_VALUES}, False, None)
    readings = [_reading({2: 1.0}), flat]
    assert read_chips_jointly(readings, BASE) == [2, None]


def test_more_chips_than_the_board_has_leaves_the_weakest_unassigned() -> None:
    readings = [_reading({12: 0.99, 2: 0.01}), _reading({12: 0.6, 11: 0.4})]
    # Only one 12; the second chip's other choice 11 is plausible enough to be taken.
    assert read_chips_jointly(readings, BASE) == [12, 11]
    lone = [_reading({12: 0.99, 2: 0.01}), _reading({12: 0.999, 2: 0.001})]
    assert read_chips_jointly(lone, Counter({12: 1})) == [None, 12]


def test_empty_inputs() -> None:
    assert read_chips_jointly([], BASE) == []
    assert read_chips_jointly([_reading({5: 1.0})], Counter()) == [None]


@pytest.mark.parametrize("expected", [Counter({7: 1}), Counter({5: -1}), Counter({13: 2})])
def test_impossible_expectations_are_refused(expected: Counter[int]) -> None:
    with pytest.raises(ValueError, match="expected chip counts"):
        read_chips_jointly([_reading({5: 1.0})], expected)


def _log_score(readings: list[ChipReading], values: tuple[int | None, ...]) -> float:
    return sum(
        math.log(MIN_JOINT_SCORE) if v is None else math.log(max(r.scores.get(v, 0.0), 1e-9))
        for r, v in zip(readings, values, strict=True)
    )


def test_the_joint_reading_is_the_best_laying_of_the_slots() -> None:
    # Against every way of giving the chips values within the counts (or leaving one unread at
    # the floor's score): no laying scores more than the one read.
    rng = np.random.default_rng(11)
    for _ in range(40):
        expected = Counter({int(v): int(rng.integers(1, 3)) for v in rng.choice(CHIP_VALUES, 3)})
        readings = [
            _reading({int(v): float(rng.uniform(0.01, 1.0)) for v in rng.choice(CHIP_VALUES, 4)})
            for _ in range(int(rng.integers(1, 5)))
        ]

        choices = [*expected, None]
        feasible = [
            values
            for values in itertools.product(choices, repeat=len(readings))
            if all(values.count(v) <= n for v, n in expected.items())
        ]
        got = tuple(read_chips_jointly(readings, expected))
        assert got in feasible
        best = max(_log_score(readings, values) for values in feasible)
        assert _log_score(readings, got) == pytest.approx(best)


def _board_confidences(readings: list[ChipReading], expected: Counter[int]) -> list[float]:
    from vision.read_board import _joint_confidences

    values = read_chips_jointly(readings, expected)
    return _joint_confidences(readings, values, expected)


def test_a_value_filled_in_by_the_board_is_weighed_against_every_value_left_free() -> None:
    # Two clear 10s; the third chip looks most like 10, then 12, and a little like every value
    # the board leaves free (each below the joint floor, together a third of the 12's score).
    # Weighed against leaving it unread only, its 12 came out 0.94: a guess shown as certain.
    from vision.read_board import CERTAIN

    faint = dict.fromkeys((2, 3, 4, 5, 6, 8, 9, 11), 0.0125)
    readings = [_reading({10: 0.95, 5: 0.05}), _reading({10: 0.95, 5: 0.05})]
    readings.append(_reading({10: 0.4, 12: 0.3, **faint}))
    confs = _board_confidences(readings, BASE)
    assert read_chips_jointly(readings, BASE) == [10, 10, 12]
    assert confs[2] < CERTAIN
    assert min(confs[:2]) > CERTAIN


def test_the_board_still_vouches_for_a_chip_whose_other_reading_is_taken() -> None:
    # A chip torn between 2 and 12, with the board's one 12 read clearly elsewhere, is a 2.
    from vision.read_board import CERTAIN

    readings = [_reading({2: 0.5, 12: 0.5}), _reading({12: 0.97, 11: 0.03})]
    confs = _board_confidences(readings, BASE)
    assert read_chips_jointly(readings, BASE) == [2, 12]
    assert min(confs) > CERTAIN
