"""The joint reading of a board's chips keeps to the ink's colour: red is 6 or 8, black neither."""

from __future__ import annotations

import numpy as np
import pytest
from chip_boards import base_chip_board

from vision.chips import CHIP_VALUES, ChipReading
from vision.read_board import CHIP_COUNTS, _read_chips


def _reading(scores: dict[int, float], red: bool) -> ChipReading:
    full = dict.fromkeys(CHIP_VALUES, 0.0) | scores
    best = max(full, key=full.__getitem__)
    value = best if full[best] >= 0.5 else None
    return ChipReading(value, full[best], full, red, None)


def test_a_glyph_against_its_ink_does_not_take_the_other_colours_slot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A black 9 whose blurred glyph looks like a 6 (0.6) more than a 9 (0.05), and a red 6
    # whose glyph the reader took for a 10 (the 10s are read clearly elsewhere): by the scores
    # alone the 9 takes the free 6 and the 6 stays unread; the ink says otherwise.
    board = base_chip_board()
    values = board.values
    nine, six = board.where(9), board.where(6)
    readings = {h: _reading({v: 0.99}, v in (6, 8)) for h, v in values.items()}
    readings[nine] = _reading({6: 0.6, 9: 0.05}, red=False)
    readings[six] = _reading({10: 0.5, 6: 0.1}, red=True)
    discs = {h: (10.0 * i, 0.0, 4.0) for i, h in enumerate(board.hexes)}
    by_disc = {discs[h]: r for h, r in readings.items()}
    monkeypatch.setattr(
        "vision.read_board._read_disc", lambda image, top, t2i, disc, covered: by_disc[disc]
    )
    top = np.zeros((8, 8, 3), np.uint8)
    numbers, conf, _ = _read_chips(
        None, top, np.eye(3), board.reg, board.terrain, discs, None, [], CHIP_COUNTS["base"]
    )
    assert numbers == values
    # Neither is sure: each was read on little evidence.
    assert conf[nine] < 0.9 and conf[six] < 0.9
