"""Where read_board looks for each chip, and how it cuts the chip out of the photo."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import cv2
import numpy as np
import pytest
from chip_boards import base_chip_board

from companion.board import Hex
from vision.chips import read_chip
from vision.read_board import CERTAIN, CHIP_COUNTS, chip_disc, photo_chip_crop
from vision.synth.chip_art import render_chip

# Top-view pixels per hex radius in these tests, and the chip radius there.
PX = 60.0
CHIP_R = 0.4 * PX


def _tile_with_chip(offset: tuple[float, float], value: int = 9) -> np.ndarray:
    """A green top-view tile (hex centre at (90, 90)) with a chip ``offset`` px off centre."""
    tile = np.full((180, 180, 3), (60, 140, 70), np.uint8)
    d = int(2 * CHIP_R)
    chip, mask = render_chip(value, style="plain", size_px=d, rotation_deg=30.0)
    x0 = int(round(90 + offset[0] - d / 2))
    y0 = int(round(90 + offset[1] - d / 2))
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi = tile[y0 : y0 + d, x0 : x0 + d].astype(np.float32)
    tile[y0 : y0 + d, x0 : x0 + d] = (roi * (1 - a) + chip * a).astype(np.uint8)
    return tile


@pytest.mark.parametrize("offset", [(0.0, 0.0), (0.4 * PX, 0.0), (-0.25 * PX, 0.3 * PX)])
def test_a_chip_placed_off_centre_is_found_without_registration(
    offset: tuple[float, float],
) -> None:
    # Players put chips down by hand: 0.4 hex radii off centre is common on real tables.
    tile = _tile_with_chip(offset)
    x, y, r = chip_disc(tile, np.array([90.0, 90.0]), PX, None, CHIP_R)
    assert math.hypot(x - 90 - offset[0], y - 90 - offset[1]) < 0.15 * CHIP_R
    assert abs(r - CHIP_R) < 0.2 * CHIP_R


def test_a_registered_disc_off_centre_is_kept() -> None:
    tile = _tile_with_chip((0.42 * PX, 0.0))
    known = (90.0 + 0.42 * PX, 90.0, CHIP_R * 1.05)
    assert chip_disc(tile, np.array([90.0, 90.0]), PX, known, CHIP_R) == known


def test_a_disc_of_the_wrong_size_or_too_far_is_not_trusted() -> None:
    tile = _tile_with_chip((0.0, 0.0))
    centre = np.array([90.0, 90.0])
    # A white piece on a corner (one hex radius away) is no chip, nor a blob twice its size.
    for known in ((90.0 + PX, 90.0, CHIP_R), (90.0, 90.0, 2.0 * CHIP_R)):
        x, y, _ = chip_disc(tile, centre, PX, known, CHIP_R)
        assert math.hypot(x - 90, y - 90) < 0.15 * CHIP_R


def _tilted_photo(tilt: float) -> tuple[np.ndarray, np.ndarray]:
    """A photo of the tile seen at ``tilt`` degrees (squashed along y, perspective), and the
    homography from the tile (top view) to the photo."""
    tile = _tile_with_chip((0.0, 0.0), value=6)
    c = math.cos(math.radians(tilt))
    top_to_image = np.array([[2.0, 0.3, 40.0], [0.0, 2.0 * c, 30.0], [0.0, 0.0015, 1.0]])
    photo = cv2.warpPerspective(tile, top_to_image, (480, 420), flags=cv2.INTER_LINEAR)
    return photo, top_to_image


def _paper_shape(crop: np.ndarray) -> tuple[float, np.ndarray]:
    """Axis ratio (short/long) and centroid of the light paper disc in a crop."""
    light = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) > 150).astype(np.uint8)
    light = cv2.morphologyEx(light, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    pts = np.column_stack(np.nonzero(light)[::-1]).astype(np.float32)
    cov = np.cov(pts.T)
    eig = np.linalg.eigvalsh(cov)
    return float(math.sqrt(eig[0] / eig[1])), pts.mean(axis=0)


@pytest.mark.parametrize("tilt", [0.0, 45.0, 60.0])
def test_the_chip_crop_undoes_the_perspective(tilt: float) -> None:
    photo, top_to_image = _tilted_photo(tilt)
    crop = photo_chip_crop(photo, top_to_image, (90.0, 90.0, CHIP_R))
    assert crop is not None and crop.shape == (128, 128, 3)
    ratio, centroid = _paper_shape(crop)
    # A round, centred disc, however steeply the camera saw it.
    assert ratio > 0.93
    assert np.hypot(*(centroid - 63.5)) < 4.0
    reading = read_chip(crop)
    assert reading.value == 6


def test_a_chip_crop_leaving_the_photo_is_none() -> None:
    photo, top_to_image = _tilted_photo(30.0)
    assert photo_chip_crop(photo, top_to_image, (-50.0, 90.0, CHIP_R)) is None


def test_chips_are_read_at_the_size_of_the_chips_on_the_lattice() -> None:
    # Small light blobs (glare, white pieces, sea foam) outnumber the chips here: the chip
    # reader's nominal disc, used where no disc is seen, must still have the chips' size; the
    # board's own discs (light, robber search) keep the median of every blob.
    from companion.board import base_frame, hex_center
    from vision.read_board import _chip_discs
    from vision.register import ChipCandidate, Registration, project

    px = 50.0
    plane_to_top = np.array([[px, 0.0, 300.0], [0.0, px, 300.0], [0.0, 0.0, 1.0]])
    hexes = list(base_frame())
    chips, others = hexes[:5], hexes[5:17]
    centres = {h: project(plane_to_top, np.array([hex_center(h)]))[0] for h in hexes}
    candidates = [ChipCandidate(*centres[h], radius=18.0) for h in chips]
    candidates += [ChipCandidate(*centres[h], radius=11.0) for h in others]
    reg = Registration("base", hexes, plane_to_top, set(chips), candidates)
    top = np.full((600, 600, 3), 120, np.uint8)
    board, read = _chip_discs(top, plane_to_top, reg)
    unseen = hexes[-1]
    assert read[unseen][2] == pytest.approx(18.0, rel=0.05)
    assert board[unseen][2] == pytest.approx(11.0, rel=0.05)
    # A chip registration found is read at its own disc.
    assert read[chips[0]] == (*centres[chips[0]], 18.0)


def _board_top_view(values: dict, hidden: object) -> tuple:
    """A top view of a base board's chips on green tiles, the desert at the centre, and a
    hand (skin colour) over the left half of the chip on hex ``hidden``: (top, plane_to_top,
    discs, cover mask)."""
    from companion.board import base_frame, hex_center

    side = int(11 * PX)
    top = np.full((side, side, 3), (60, 140, 70), np.uint8)
    plane_to_top = np.array([[PX, 0.0, side / 2], [0.0, PX, side / 2], [0.0, 0.0, 1.0]])
    d = int(0.8 * PX)
    discs = {}
    for h in base_frame():
        x, y = (plane_to_top @ [*hex_center(h), 1.0])[:2]
        discs[h] = (float(x), float(y), 0.47 * d)
        if h not in values:
            continue
        chip, mask = render_chip(values[h], style="dots", size_px=d, rotation_deg=0.0)
        x0, y0 = int(round(x - d / 2)), int(round(y - d / 2))
        a = (mask.astype(np.float32) / 255.0)[..., None]
        roi = top[y0 : y0 + d, x0 : x0 + d].astype(np.float32)
        top[y0 : y0 + d, x0 : x0 + d] = (roi * (1 - a) + chip * a).astype(np.uint8)
    covered = np.zeros(top.shape[:2], bool)
    x, y, r = discs[hidden]
    # The hand hides the 12's 1 and more: what shows of the chip is its 2.
    covered[int(y - 1.5 * r) : int(y + 1.5 * r), int(x - 1.5 * r) : int(round(x + 0.15 * r))] = True
    top[covered] = (150, 170, 220)
    return top, plane_to_top, discs, covered


def _deduced(conf: dict, deduced: set) -> float:
    """The confidence a deduced chip should get: the product of the confidences of the chips
    read (the deduction holds if they are all right), never CERTAIN."""
    read = [c for h, c in conf.items() if h not in deduced and c > 0.0]
    expected = round(min(math.prod(read), 0.85), 4)
    assert 0.0 < expected < CERTAIN
    return expected


def test_a_chip_half_under_a_hand_is_not_read_and_only_deduced_from_the_counts() -> None:
    from vision.read_board import _read_chips

    board = base_chip_board()
    land, values, reg, terrain = board.land, board.values, board.reg, board.terrain
    hidden = board.where(12)
    top, plane_to_top, discs, covered = _board_top_view(values, hidden)
    warnings: list[str] = []
    numbers, conf, deduced = _read_chips(
        None, top, plane_to_top, reg, terrain, discs, covered, warnings, CHIP_COUNTS["base"]
    )
    # Every chip a hand leaves clear is read; the hidden one is not, and its number is only
    # what the counts leave over, never with a certain board's confidence.
    assert {h: numbers[h] for h in land if h != hidden} == {
        h: v for h, v in values.items() if h != hidden
    }
    assert numbers[hidden] == 12 and deduced == {hidden}
    assert conf[hidden] == _deduced(conf, deduced)
    assert any("deduced from the chip counts" in w for w in warnings)
    # Without the counts' proof (another chip unread too) the hidden chip stays unread.
    covered2 = covered.copy()
    other = next(h for h in land if values[h] == 3)
    x, y, r = discs[other]
    covered2[int(y - r) : int(y + r), int(x - r) : int(x + r)] = True
    numbers, _, deduced = _read_chips(
        None, top, plane_to_top, reg, terrain, discs, covered2, [], CHIP_COUNTS["base"]
    )
    assert numbers[hidden] is None and numbers[other] is None and not deduced


def _paint_hand(top: np.ndarray, disc: tuple[float, float, float], right: float) -> np.ndarray:
    """Paint a hand's skin over ``disc`` (top-view ``(x, y, radius)``) from 1.5 radii left of
    its centre to ``right`` radii right of it; the hand's mask, bool like ``top[..., 0]``."""
    x, y, r = disc
    hand = np.zeros(top.shape[:2], bool)
    hand[int(y - 1.5 * r) : int(y + 1.5 * r), int(x - 1.5 * r) : int(round(x + right * r))] = True
    top[hand] = (150, 170, 220)
    return hand


class _TwoHands(NamedTuple):
    """A base board's top view with two chips under hands, and what _read_chips made of it."""

    board: Any
    top: np.ndarray
    plane_to_top: np.ndarray
    discs: dict
    covered: np.ndarray
    numbers: dict
    conf: dict
    deduced: set
    warnings: list[str]


def _under_two_hands(half: int, other: int, right: float) -> _TwoHands:
    """The chip of value ``half`` half hidden (the test view's hand) and the chip ``other``
    under a hand painted up to ``right`` radii right of its centre (see :func:`_paint_hand`)."""
    from vision.read_board import _read_chips

    board = base_chip_board()
    top, plane_to_top, discs, covered = _board_top_view(board.values, board.where(half))
    covered = covered | _paint_hand(top, discs[board.where(other)], right)
    warnings: list[str] = []
    numbers, conf, deduced = _read_chips(
        None,
        top,
        plane_to_top,
        board.reg,
        board.terrain,
        discs,
        covered,
        warnings,
        CHIP_COUNTS["base"],
    )
    return _TwoHands(board, top, plane_to_top, discs, covered, numbers, conf, deduced, warnings)


def test_hidden_chips_are_told_apart_by_red_ink_in_the_deduction() -> None:
    # Two chips under hands: a 12 whose 1 is hidden and a 6 of which only the right edge of
    # its red numeral shows. The counts leave a 12 and a 6 for them: alone they do not say
    # which is which, the red ink does; with no red showing nothing is deduced.
    from vision.read_board import _read_chips

    hands = _under_two_hands(12, 6, 0.25)
    board, top, discs, covered = hands.board, hands.top, hands.discs, hands.covered
    land, values, reg, terrain = board.land, board.values, board.reg, board.terrain
    hidden, six = board.where(12), board.where(6)
    numbers, conf, deduced = hands.numbers, hands.conf, hands.deduced
    assert {h: numbers[h] for h in land if h not in (hidden, six)} == {
        h: v for h, v in values.items() if h not in (hidden, six)
    }
    assert (numbers[hidden], numbers[six]) == (12, 6)
    assert deduced == {hidden, six} and conf[six] == conf[hidden] == _deduced(conf, deduced)
    # A hand over a black 3 as well: the counts leave a 12, a 6 and a 3, and only the red
    # chip is decided; the two black ones stay unread, not deduced, at confidence 0.
    three = next(h for h, v in values.items() if v == 3)
    hand3 = _paint_hand(top, discs[three], 0.25)
    numbers, conf, deduced = _read_chips(
        None, top, hands.plane_to_top, reg, terrain, discs, covered | hand3, [], CHIP_COUNTS["base"]
    )
    assert (numbers[hidden], numbers[six], numbers[three]) == (None, 6, None)
    assert deduced == {six} and conf[hidden] == conf[three] == 0.0


def test_only_the_chips_the_counts_decide_are_deduced() -> None:
    # Three chips unread; the counts leave a 6, a 3 and a 4: only the red chip's value is
    # decided (the two black ones could be either way round).
    from collections import Counter

    from vision.read_board import _fill_from_counts

    counts = Counter({6: 1, 3: 1, 4: 1, 5: 1})
    assert _fill_from_counts([None, 5, None, None], counts, [None, None, True, None]) == [
        None,
        5,
        6,
        None,
    ]
    # Red ink where the counts leave no 6 or 8: the evidence contradicts them, nothing deduced.
    assert _fill_from_counts([None, 5], Counter({3: 1, 5: 1}), [True, None]) == [None, 5]


def test_hidden_chips_are_told_apart_by_black_ink_in_the_deduction() -> None:
    # A 9 of which a hand leaves the right half showing, and a 6 wholly under a hand. The
    # counts leave a 9 and a 6 for them: the 9's ink, clearly black, says it is no 6 or 8,
    # which decides both (each at the deduction's confidence, the board uncertain).
    hands = _under_two_hands(9, 6, 1.5)
    board, numbers, conf, deduced = hands.board, hands.numbers, hands.conf, hands.deduced
    land, values, warnings = board.land, board.values, hands.warnings
    nine, six = board.where(9), board.where(6)
    assert (numbers[nine], numbers[six]) == (9, 6)
    assert deduced == {nine, six} and conf[nine] == conf[six] == _deduced(conf, deduced)
    assert any("deduced from the chip counts" in w for w in warnings)
    assert {h: numbers[h] for h in land} == values


def test_red_ink_narrows_a_clear_chip_left_unread_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # No hand anywhere; the reader leaves a 6 and a 3 unread (no value above its floor), the
    # 6's ink red. The counts leave a 6 and a 3: the red ink decides both.
    import vision.read_board as rb
    from vision.chips import CHIP_VALUES, ChipReading

    board = base_chip_board()
    six, three = board.where(6), board.where(3)

    def reading_of(h: Hex) -> ChipReading:
        if h in (six, three):
            return ChipReading(None, 0.0, dict.fromkeys(CHIP_VALUES, 0.0), h == six, None)
        v = board.values[h]
        scores = {w: 0.99 if w == v else 0.001 for w in CHIP_VALUES}
        return ChipReading(v, 0.99, scores, v in (6, 8), None)

    # The stand-in reader is asked for the chips in the board's order (the desert has none).
    order = iter(h for h in board.hexes if h in board.values)
    monkeypatch.setattr(rb, "_read_disc", lambda *args: reading_of(next(order)))
    discs = {h: (0.0, 0.0, 10.0) for h in board.hexes}
    numbers, conf, deduced = rb._read_chips(
        None,
        np.zeros((8, 8, 3), np.uint8),
        np.eye(3),
        board.reg,
        board.terrain,
        discs,
        None,
        [],
        CHIP_COUNTS["base"],
    )
    assert numbers == board.values
    assert deduced == {six, three} and conf[six] == conf[three] == _deduced(conf, deduced)


def test_black_ink_narrows_a_chip_left_unread_in_view(monkeypatch: pytest.MonkeyPatch) -> None:
    # No hand the cover mask sees; fingers it misses lie wholly over the 6 and the reader
    # leaves the 3 unread too (no value above its floor). The counts leave a 3 and a 6: the
    # 3's ink, a whole numeral clearly black, says it is no 6, which decides both.
    import vision.read_board as rb
    from vision.chips import CHIP_VALUES, ChipReading

    board = base_chip_board()
    six, three = board.where(6), board.where(3)
    top, plane_to_top, discs, _ = _board_top_view(board.values, six)
    # The renderer's black is a shade red of neutral (measured 0.001): here the 3's is neutral.
    x, y, r = discs[three]
    window = top[int(y - r) : int(y + r), int(x - r) : int(x + r)]
    ink = window.max(axis=2) < 100
    window[ink] = window[ink].min(axis=1, keepdims=True)
    x, y, r = discs[six]
    top[int(y - 1.2 * r) : int(y + 1.2 * r), int(x - 1.2 * r) : int(x + 1.2 * r)] = (150, 170, 220)

    def reading_of(h: Hex) -> ChipReading:
        if h in (six, three):
            return ChipReading.unread()
        v = board.values[h]
        scores = {w: 0.99 if w == v else 0.001 for w in CHIP_VALUES}
        return ChipReading(v, 0.99, scores, v in (6, 8), None)

    order = iter(h for h in board.hexes if h in board.values)
    monkeypatch.setattr(rb, "_read_disc", lambda *args: reading_of(next(order)))
    numbers, conf, deduced = rb._read_chips(
        None, top, plane_to_top, board.reg, board.terrain, discs, None, [], CHIP_COUNTS["base"]
    )
    assert numbers == board.values
    assert deduced == {six, three} and conf[six] == conf[three] == _deduced(conf, deduced)
