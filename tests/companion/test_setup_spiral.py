"""The lettered spiral: shape of the walk on both frames, and the red-number claims of
RULES.md 1.3.7 (base) and of our choice for the 5-6 letter values (GAP of 2.1.6)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from companion.board import base_frame, extension_frame, hex_center, hex_distance
from companion.layouts import BASE_CHIPS, EXTENSION_CHIPS, RED_NUMBERS
from companion.spiral import (
    BASE_LETTER_VALUES,
    BASE_LETTERS,
    EXTENSION_LETTER_VALUES,
    EXTENSION_LETTERS,
    corner_hexes,
    matching_starts,
    rings,
    spiral_numbers,
    spiral_order,
)

FRAMES = {"base": base_frame(), "5-6": extension_frame()}


def signed_area(points: list[tuple[float, float]]) -> float:
    """Shoelace area with y pointing up: positive for a counter-clockwise polygon."""
    pts = [(x, -y) for x, y in points]
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1], strict=True))


def test_letter_values_have_the_chip_counts_of_the_rules():
    assert Counter(BASE_LETTER_VALUES) == BASE_CHIPS
    assert Counter(EXTENSION_LETTER_VALUES) == EXTENSION_CHIPS
    assert len(BASE_LETTERS) == 18 and len(EXTENSION_LETTERS) == 28
    assert EXTENSION_LETTERS[-3:] == ("Za", "Zb", "Zc") and EXTENSION_LETTERS[24] == "Y"


@pytest.mark.parametrize(("name", "sizes"), [("base", [12, 6, 1]), ("5-6", [16, 10, 4])])
def test_rings_peel_the_frame_from_outside(name, sizes):
    frame = FRAMES[name]
    got = rings(frame)
    assert [len(r) for r in got] == sizes
    assert sorted(h for r in got for h in r) == sorted(frame)
    assert len(corner_hexes(frame)) == 6


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_spiral_walks_every_hex_once_step_by_step_counter_clockwise(name):
    frame = FRAMES[name]
    outer = len(rings(frame)[0])
    for start in corner_hexes(frame):
        order = spiral_order(frame, start)
        assert order[0] == start and sorted(order) == sorted(frame)
        assert all(hex_distance(a, b) == 1 for a, b in zip(order, order[1:], strict=False))
        ring = [hex_center(h) for h in order[:outer]]
        assert signed_area(ring) > 0  # counter-clockwise as seen from above


@pytest.mark.parametrize(
    ("name", "values", "deserts"),
    [("base", BASE_LETTER_VALUES, 1), ("5-6", EXTENSION_LETTER_VALUES, 2)],
)
def test_the_spiral_never_puts_red_numbers_side_by_side(name, values, deserts):
    frame = FRAMES[name]
    for start in corner_hexes(frame):
        for skip in combinations(frame, deserts):
            laid = spiral_numbers(frame, start, skip, values)
            reds = [h for h, n in laid.items() if n in RED_NUMBERS]
            assert not any(hex_distance(a, b) == 1 for a, b in combinations(reds, 2))


def test_matching_starts_finds_the_corner_the_chips_were_laid_from():
    frame = FRAMES["base"]
    start = corner_hexes(frame)[4]
    laid = spiral_numbers(frame, start, [(1, 1)], BASE_LETTER_VALUES)
    numbers = {h: laid.get(h) for h in frame}
    assert matching_starts(numbers, [(1, 1)], BASE_LETTER_VALUES) == [start]
    a, b = (h for h in frame if numbers[h] in (2, 12))
    numbers[a], numbers[b] = numbers[b], numbers[a]
    assert matching_starts(numbers, [(1, 1)], BASE_LETTER_VALUES) == []


def test_bad_starts_and_counts_are_refused():
    with pytest.raises(ValueError, match="outer ring"):
        spiral_order(FRAMES["base"], (0, 0))
    with pytest.raises(ValueError, match="18 chips"):
        spiral_numbers(FRAMES["base"], (0, -2), [], BASE_LETTER_VALUES)
