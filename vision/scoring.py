"""Compare a board reading with the truth under the 12 symmetries of the hex grid.

A camera cannot know which side of the table is up, nor can a label made from a photo, so a
reading is scored against the truth in the best of the 6 rotations about the board centre,
with and without a mirror. Both boards must be in the same frame (base or 5-6), centred on the
origin as :mod:`companion.board` places them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from companion.board import NEIGHBOUR_OFFSET, Harbor, Hex, Terrain, Tile, hex_neighbour, rows_of

Symmetry = Callable[[Hex], Hex]


def _rotate(h: Hex, k: int) -> Hex:
    q, r = h
    s = -q - r
    for _ in range(k % 6):
        q, r, s = -r, -s, -q
    return (q, r)


def symmetries() -> list[Symmetry]:
    """The 12 symmetries of the hex grid about hex (0, 0): 6 rotations, with or without a
    mirror (the mirror swaps q and r, a reflection across the line at 30 degrees)."""

    def make(k: int, mirror: bool) -> Symmetry:
        def f(h: Hex) -> Hex:
            q, r = h
            if mirror:
                q, r = r, q
            return _rotate((q, r), k)

        return f

    return [make(k, m) for m in (False, True) for k in range(6)]


@dataclass(frozen=True)
class Score:
    """Matches of a reading against the truth under the best symmetry."""

    terrain_right: int
    terrain_total: int
    chips_right: int
    chips_total: int

    @property
    def terrain_accuracy(self) -> float:
        return self.terrain_right / self.terrain_total if self.terrain_total else 1.0

    @property
    def chip_accuracy(self) -> float:
        return self.chips_right / self.chips_total if self.chips_total else 1.0


def score_board(truth: Mapping[Hex, Tile], read: Mapping[Hex, Tile]) -> Score:
    """Best agreement of ``read`` with ``truth`` over the 12 grid symmetries.

    Terrain counts every truth hex (a hex missing from the reading is wrong); chips count the
    truth hexes whose number is known (not None). The symmetry maximising terrain plus chip
    matches is used for both figures (see :func:`best_alignment`).
    """
    return best_alignment(truth, read)[0]


def best_alignment(
    truth: Mapping[Hex, Tile], read: Mapping[Hex, Tile]
) -> tuple[Score, Callable[[Hex], Hex]]:
    """The score of the best of the 12 grid symmetries, and that symmetry as a map from the
    truth's hexes to the reading's (so that the truth's robber or pieces can be compared).

    Each symmetry is followed by the translation that lays the truth's frame onto the
    reading's (frames such as 5-6 are not centred on a hex).
    """
    best: tuple[Score, Callable[[Hex], Hex]] | None = None
    read_min = min(read) if read else (0, 0)
    for g in symmetries():
        moved = {h: g(h) for h in truth}
        lo = min(moved.values())
        t = (read_min[0] - lo[0], read_min[1] - lo[1])
        t_ok = c_ok = c_total = 0
        for h, tile in truth.items():
            other = read.get((moved[h][0] + t[0], moved[h][1] + t[1]))
            if other is not None and other.terrain == tile.terrain:
                t_ok += 1
            if tile.number is not None:
                c_total += 1
                if other is not None and other.number == tile.number:
                    c_ok += 1
        s = Score(t_ok, len(truth), c_ok, c_total)
        if best is None or t_ok + c_ok > best[0].terrain_right + best[0].chips_right:

            def aligned(h: Hex, g: Symmetry = g, t: Hex = t) -> Hex:
                m = g(h)
                return (m[0] + t[0], m[1] + t[1])

            best = (s, aligned)
    assert best is not None  # symmetries() is never empty
    return best


#: How a harbour reading compares with the truth, per harbour of the truth ("extra": a
#: harbour read where the truth has none).
HARBOUR_OUTCOMES = ("right", "unseen", "wrong", "extra")


def harbour_outcomes(
    truth: list[Harbor], read: list[Harbor], aligned: Callable[[Hex], Hex]
) -> dict[str, int]:
    """Count the truth's harbours read right, not read (unseen) or read as another kind
    (wrong), and the harbours read where the truth has none (extra).

    ``aligned`` maps the truth's hexes to the reading's (see :func:`best_alignment`); a side
    is carried over by its two hexes.

    >>> h = Harbor(0, 0, "E", "ore")
    >>> harbour_outcomes([h], [Harbor(0, 0, "E", "wool")], lambda x: x)["wrong"]
    1
    """
    moved: dict[tuple[Hex, str], str] = {}
    for hb in truth:
        a, b = aligned((hb.q, hb.r)), aligned(hex_neighbour((hb.q, hb.r), hb.side))
        offset = (b[0] - a[0], b[1] - a[1])
        side = next(s for s, o in NEIGHBOUR_OFFSET.items() if o == offset)
        moved[(a, side)] = hb.kind
    got = {((hb.q, hb.r), hb.side): hb.kind for hb in read}
    out = dict.fromkeys(HARBOUR_OUTCOMES, 0)
    for site, kind in moved.items():
        seen = got.get(site)
        out["right" if seen == kind else "unseen" if seen is None else "wrong"] += 1
    out["extra"] = sum(1 for site in got if site not in moved)
    return out


def truth_from_rows(rows: list[list[list]], frame: list[Hex]) -> dict[Hex, Tile]:
    """Truth tiles from ``groundtruth.json`` rows (``[terrain, number]`` left to right).

    Rows that are really columns (a flat-top photo) are a mirror and rotation of rows, which
    the 12-symmetry scoring absorbs, so they are read the same way.
    """
    grid = rows_of(frame)
    if [len(r) for r in grid] != [len(r) for r in rows]:
        raise ValueError(
            f"truth rows of lengths {[len(r) for r in rows]} do not fit the frame's "
            f"{[len(r) for r in grid]}"
        )
    out: dict[Hex, Tile] = {}
    for hex_row, truth_row in zip(grid, rows, strict=True):
        for h, (terrain, number) in zip(hex_row, truth_row, strict=True):
            out[h] = Tile(Terrain(terrain), number)
    return out
