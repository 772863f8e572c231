"""A disc the chip reader found on the art, off every chip's paper, is read as no chip."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from chip_boards import base_chip_board

from vision.chips import CHIP_VALUES, ChipReading
from vision.read_board import CHIP_COUNTS, _read_chips

_PAPER, _SHEEP = (200, 225, 235), (90, 185, 170)


def _sure(value: int, confidence: float) -> ChipReading:
    scores = dict.fromkeys(CHIP_VALUES, 0.0) | {value: confidence}
    return ChipReading(value, confidence, scores, value in (6, 8), None)


@pytest.mark.parametrize("on_the_art", [True, False])
def test_a_stray_disc_is_unread_and_its_chip_comes_from_the_counts(
    monkeypatch: pytest.MonkeyPatch, on_the_art: bool
) -> None:
    # bench vision --real-hands 4 seed 4, vieja_F_0: registration missed a pasture's 11
    # under a hand, the reader's circle search found a sheep 67 pixels from it, and the
    # numeral-like ink on the sheep read 4 at 0.96.
    board = base_chip_board()
    stray = board.where(11)
    reg = replace(board.reg, chip_hexes=set(board.land) - {stray})
    top = np.full((120, 420, 3), (60, 150, 90), np.uint8)
    discs = {}
    for i, h in enumerate(board.land):
        x, y = 20 + 40 * (i % 10), 30 + 60 * (i // 10)
        paper = _SHEEP if h == stray and on_the_art else _PAPER
        cv2.circle(top, (x, y), 15, paper, -1)
        discs[h] = (float(x), float(y), 15.0)
    # On the art the reader's 4, surer than the board's two 4s (taken as a chip, it would
    # push one of them off); on the paper the chip's own 11.
    by_disc = {discs[h]: _sure(v, 0.9) for h, v in board.values.items()}
    by_disc[discs[stray]] = _sure(4, 0.99) if on_the_art else _sure(11, 0.9)
    monkeypatch.setattr(
        "vision.read_board._read_disc", lambda image, top, t2i, disc, covered: by_disc[disc]
    )
    numbers, confidence, deduced = _read_chips(
        None, top, np.eye(3), reg, board.terrain, discs, None, [], CHIP_COUNTS["base"]
    )
    assert {h: v for h, v in numbers.items() if h != stray} == {
        h: v for h, v in board.values.items() if h != stray
    }
    if on_the_art:
        # Its sure-looking 4 is not read; the counts leave an 11 over for it.
        assert stray in deduced and numbers[stray] == 11 and confidence[stray] < 0.9
    else:
        # On the chips' paper it is a chip, read like any other.
        assert stray not in deduced and numbers[stray] == 11
