"""The lettered chip spiral of the variable set-up (RULES.md 1.3.5 and 2.2.3).

Chips carry a letter on the back and are laid in alphabetical order: start on a corner hex of
the outer ring, go counter-clockwise around that ring, then spiral inward, skipping deserts.
This module computes that order for any convex frame of hexes (the 19-hex base board, the
30-hex 5-6 board, or any other hexagon-like shape) and reads or writes chips along it.

Rings are peeled from the outside: the outer ring is every hex of the frame with a neighbour
off the frame; removing it leaves the next frame. Each ring is ordered counter-clockwise as
seen from above (the board is drawn with y to the south, so that is *decreasing* screen angle).
The spiral goes around the outer ring from the chosen corner and then enters the next ring at
the hex beside both the last hex walked and the start hex (the way the letters continue on the
printed boards), and so on inward.

Letter values
-------------
The base values (A5 B2 C6 ... R11) are the standard ones of RULES.md 1.1.3.

The 5-6 values are a GAP in the rules (2.1.6, 2.2.5): the seeds give only the counts. We use
:data:`EXTENSION_LETTER_VALUES` (A2 B5 C4 D6 E3 F9 G8 H11 I11 J10 K6 L3 M8 N4 O8 P10 Q11 R12
S10 T5 U4 V9 W5 X9 Y12 Za3 Zb2 Zc6), which we believe is the printed extension set; it has the
counts of RULES.md 2.1.3 and, like the base values, never puts two red numbers side by side
for any start corner and any positions of the two deserts (tested exhaustively in
``tests/companion/test_setup_spiral.py``). A table whose chips differ can pass its own values.

>>> from companion.board import base_frame
>>> order = spiral_order(base_frame(), (0, -2))
>>> len(order), order[0], order[-1]
(19, (0, -2), (0, 0))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

from companion.board import Hex, hex_center, hex_distance, hex_neighbours

#: RULES.md 1.1.3 (standard values): the value under each letter A..R.
BASE_LETTER_VALUES: tuple[int, ...] = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
BASE_LETTERS: tuple[str, ...] = tuple("ABCDEFGHIJKLMNOPQR")

#: Our choice for the GAP of RULES.md 2.1.6: the value under each letter A..Y, Za, Zb, Zc.
EXTENSION_LETTER_VALUES: tuple[int, ...] = (
    2, 5, 4, 6, 3, 9, 8, 11, 11, 10, 6, 3, 8, 4, 8, 10, 11, 12, 10, 5, 4, 9, 5, 9, 12, 3, 2, 6,
)  # fmt: skip
EXTENSION_LETTERS: tuple[str, ...] = (*"ABCDEFGHIJKLMNOPQRSTUVWXY", "Za", "Zb", "Zc")


def _ccw_key(h: Hex, centre: tuple[float, float]) -> float:
    """Angle of a hex around ``centre``, growing counter-clockwise as seen from above."""
    x, y = hex_center(h)
    # Screen y points south, so negate it to get the mathematical (counter-clockwise) angle.
    return math.atan2(-(y - centre[1]), x - centre[0]) % (2 * math.pi)


def rings(hexes: Iterable[Hex]) -> list[list[Hex]]:
    """The frame peeled into rings, outermost first, each in counter-clockwise order.

    The first hex of each ring is the one at the smallest angle from the east; use
    :func:`spiral_order` for the order the letters follow.
    """
    left = set(hexes)
    out: list[list[Hex]] = []
    while left:
        ring = [h for h in left if any(n not in left for n in hex_neighbours(h))]
        pts = [hex_center(h) for h in left]
        centre = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
        ring.sort(key=lambda h: (_ccw_key(h, centre), h))
        out.append(ring)
        left.difference_update(ring)
    return out


def corner_hexes(hexes: Iterable[Hex]) -> list[Hex]:
    """The corner hexes of the outer ring (where the ring turns): the spiral's possible starts.

    >>> from companion.board import base_frame
    >>> len(corner_hexes(base_frame()))
    6
    """
    ring = rings(hexes)[0]
    if len(ring) < 3:
        return list(ring)
    out = []
    for i, h in enumerate(ring):
        prev, nxt = ring[i - 1], ring[(i + 1) % len(ring)]
        if (h[0] - prev[0], h[1] - prev[1]) != (nxt[0] - h[0], nxt[1] - h[1]):
            out.append(h)
    return out


@lru_cache(maxsize=64)
def _spiral_cached(frame: frozenset[Hex], start: Hex) -> tuple[Hex, ...]:
    all_rings = rings(frame)
    outer = all_rings[0]
    if start not in outer:
        raise ValueError(f"spiral start {start} is not on the outer ring of the frame")
    i = outer.index(start)
    order = outer[i:] + outer[:i]
    prev_ring = order
    for ring in all_rings[1:]:
        last, first = prev_ring[-1], prev_ring[0]
        # Enter the next ring beside the last hex walked, preferring the hex that also touches
        # the ring's first hex: the spiral keeps turning the same way.
        candidates = [h for h in ring if hex_distance(h, last) == 1] or ring
        entry = min(candidates, key=lambda h: (hex_distance(h, first), hex_distance(h, last), h))
        j = ring.index(entry)
        prev_ring = ring[j:] + ring[:j]
        order.extend(prev_ring)
    return tuple(order)


def spiral_order(hexes: Iterable[Hex], start: Hex) -> list[Hex]:
    """Every hex of the frame in spiral order from outer corner ``start``.

    Raises ValueError if ``start`` is not on the outer ring.
    """
    return list(_spiral_cached(frozenset(hexes), start))


def spiral_numbers(
    hexes: Iterable[Hex], start: Hex, skip: Iterable[Hex], values: Sequence[int]
) -> dict[Hex, int]:
    """The chip on each hex when ``values`` are laid in letter order from ``start``.

    Hexes in ``skip`` (the deserts) get no chip. Raises ValueError if the number of chips does
    not match the number of hexes that take one.
    """
    skipped = set(skip)
    targets = [h for h in spiral_order(hexes, start) if h not in skipped]
    if len(targets) != len(values):
        raise ValueError(
            f"the spiral has {len(targets)} hexes for chips but there are {len(values)} chips"
        )
    return dict(zip(targets, values, strict=True))


def matching_starts(
    numbers: dict[Hex, int | None], skip: Iterable[Hex], values: Sequence[int]
) -> list[Hex]:
    """Outer corners from which the lettered spiral gives exactly the chips in ``numbers``.

    ``numbers`` maps every hex of the frame to its chip (None for none). An empty list means
    the chips were not laid along the spiral.
    """
    skipped = set(skip)
    frame = list(numbers)
    if sum(1 for h in frame if h not in skipped) != len(values):
        return []
    out = []
    for start in corner_hexes(frame):
        laid = spiral_numbers(frame, start, skipped, values)
        if all(numbers[h] == laid.get(h) for h in frame):
            out.append(start)
    return out
