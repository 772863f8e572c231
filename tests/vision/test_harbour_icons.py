"""Harbours told by their printed icon (the current art): generated top views in CIELAB.

The current art prints a small icon between a harbour's piers, far smaller than a token:
each test draws such a board in CIELAB (the reader's own colour space) with one cue changed.
"""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from companion.board import Harbor, Terrain, Tile, base_frame, hex_corner_points
from companion.layouts import BASE_HARBOR_KINDS
from vision.harbours import Site, _with_icons, coast_sites, read_harbours, read_icons, spot_geometry

PX = 40.0
PLANE_TO_TOP = np.array([[PX, 0.0, 300.0], [0.0, PX, 300.0], [0.0, 0.0, 1.0]])
SEA = (52.0, 1.0, -43.0)
LAND = (60.0, -20.0, 30.0)
#: The icons' colours as the current art prints them (CIELAB, white-balanced).
BRICK = (53.0, 30.0, 14.0)
GRAIN = (72.0, 5.0, 33.0)
ORE = (48.0, 0.0, -3.0)
#: Lumber's logs: brown wood, with dark gaps between the logs.
WOOD = (45.0, 7.0, 13.0)
GAP = (30.0, 1.0, 2.0)
SKIN = (66.0, 18.0, 24.0)
#: A light green (wool) token under a warm lamp: yellow, but still a little green.
WARM_WOOL = (70.0, -8.0, 40.0)
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
SITES = coast_sites(TILES)


def _to_px(p: np.ndarray) -> tuple[int, int]:
    return (int(round(p[0] * PX + 300.0)), int(round(p[1] * PX + 300.0)))


def _view(
    icons: dict[Site, tuple[float, float, float]],
    *,
    out: float = 0.43,
    shift: float = 0.0,
    seed: int = 0,
) -> np.ndarray:
    """A base board's top view: land, a textured sea, grey piers at every icon and the icon
    (a disc 0.13 hex radii across, white-haloed) ``out`` hex radii off its side and ``shift``
    along it."""
    rng = np.random.default_rng(seed)
    lab = np.empty((600, 600, 3), np.float32)
    lab[:] = SEA
    lab += rng.normal(0.0, 3.0, lab.shape).astype(np.float32)
    for h in base_frame():
        poly = np.array([_to_px(np.array(p)) for p in hex_corner_points(h)], np.int32)
        cv2.fillConvexPoly(lab, poly, LAND)
    sites = list(icons)
    if sites:
        centres, along = spot_geometry(sites, out)
        mids, _ = spot_geometry(sites, 0.0)
        for colour, c, t, m in zip(icons.values(), centres, along, mids, strict=True):
            for sign in (-1.0, 1.0):
                cv2.line(
                    lab,
                    _to_px(m + 0.45 * sign * t),
                    _to_px(c + 0.25 * sign * t),
                    (65.0, 0.0, 3.0),
                    3,
                )
            cv2.circle(lab, _to_px(c + shift * t), int(0.16 * PX), (88.0, 0.0, 5.0), -1)
            cv2.circle(lab, _to_px(c + shift * t), int(0.13 * PX), colour, -1)
    return lab


def _site(n: int) -> Site:
    return SITES[n]


def test_a_brick_and_a_grain_icon_are_read_where_they_are_printed() -> None:
    icons = {_site(2): BRICK, _site(11): GRAIN}
    found = read_icons(_view(icons), PLANE_TO_TOP, SITES)
    assert {s: k for s, (k, _) in found.items()} == {_site(2): "brick", _site(11): "grain"}
    assert all(c >= 0.9 for _, c in found.values())


def test_an_icon_printed_off_its_place_is_still_its_sides() -> None:
    """The registration puts an icon a tenth or two of a hex radius from where it is."""
    for shift in (-0.18, 0.18):
        found = read_icons(_view({_site(2): BRICK}, shift=shift), PLANE_TO_TOP, SITES)
        assert {s: k for s, (k, _) in found.items()} == {_site(2): "brick"}


def test_an_icon_in_a_bay_belongs_to_the_nearest_side() -> None:
    """Two land hexes facing one stretch of sea: their icons' places lie half a hex radius
    apart, and an icon a little off its own place is near both."""
    centres, _ = spot_geometry(SITES, 0.43)
    gaps = np.linalg.norm(centres[:, None] - centres[None], axis=2) + 9.0 * np.eye(len(SITES))
    i, j = np.unravel_index(np.argmin(gaps), gaps.shape)
    assert gaps[i, j] < 0.6
    lab = _view({})
    centre = centres[i] + 0.2 * (centres[j] - centres[i]) / gaps[i, j]
    cv2.circle(lab, _to_px(centre), int(0.16 * PX), (88.0, 0.0, 5.0), -1)
    cv2.circle(lab, _to_px(centre), int(0.13 * PX), GRAIN, -1)
    found = read_icons(lab, PLANE_TO_TOP, SITES)
    assert {s: k for s, (k, _) in found.items()} == {SITES[i]: "grain"}


def test_icon_colour_inside_other_art_is_no_icon() -> None:
    """A book or a card lying on the frame: a patch of brick red within its brown art, no
    sea or light halo round it."""
    lab = _view({})
    centres, _ = spot_geometry([_site(2)], 0.43)
    cv2.circle(lab, _to_px(centres[0]), int(0.21 * PX), (45.0, 8.0, 15.0), -1)
    cv2.circle(lab, _to_px(centres[0]), int(0.12 * PX), BRICK, -1)
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}


def _logs(lab: np.ndarray, site: Site) -> None:
    """Lumber's icon at ``site``'s place: a stack of logs seen as brown pieces a little apart,
    dark between them, on a light halo (each piece alone is far smaller than an icon)."""
    centres, along = spot_geometry([site], 0.43)
    c, t = centres[0], along[0]
    n = np.array([-t[1], t[0]])
    cv2.circle(lab, _to_px(c), int(0.17 * PX), (88.0, 0.0, 5.0), -1)
    cv2.circle(lab, _to_px(c), int(0.13 * PX), GAP, -1)
    for i in (-1.0, 0.0, 1.0):
        for j in (-1.0, 0.0, 1.0):
            cv2.circle(lab, _to_px(c + 0.1 * (i * n + j * t)), 1, WOOD, -1)


def test_logs_are_read_as_lumber() -> None:
    lab = _view({})
    _logs(lab, _site(4))
    found = read_icons(lab, PLANE_TO_TOP, SITES)
    assert {s: k for s, (k, _) in found.items()} == {_site(4): "lumber"}


def test_a_sheaf_with_brown_shadows_is_grain_and_not_lumber() -> None:
    """A sheaf's shadowed straw has the logs' brown: grain is still read, lumber not."""
    lab = _view({_site(4): GRAIN})
    centres, along = spot_geometry([_site(4)], 0.43)
    cv2.circle(lab, _to_px(centres[0] + 0.05 * along[0]), int(0.05 * PX), WOOD, -1)
    found = read_icons(lab, PLANE_TO_TOP, SITES)
    assert {s: k for s, (k, _) in found.items()} == {_site(4): "grain"}


def test_grey_icons_and_plain_sea_are_left_unread() -> None:
    """Ore's rocks and wool's sheep are grey: no colour tells them."""
    found = read_icons(_view({_site(4): ORE}), PLANE_TO_TOP, SITES)
    assert found == {}


def test_a_green_token_under_a_warm_lamp_is_not_grain() -> None:
    assert read_icons(_view({_site(4): WARM_WOOL}), PLANE_TO_TOP, SITES) == {}


def test_skin_is_not_brick() -> None:
    """A fingertip is red-brown but more yellow than red: not the bricks' colour."""
    found = read_icons(_view({_site(4): SKIN}), PLANE_TO_TOP, SITES)
    assert found == {}


def test_a_golden_beach_along_the_coast_is_no_grain_icon() -> None:
    """Some editions print a golden sand beach on the frame: a band along every coast side,
    wider than any icon, under where the icons lie."""
    lab = _view({})
    centres, along = spot_geometry(SITES, 0.36)
    for c, t in zip(centres, along, strict=True):
        cv2.line(lab, _to_px(c - 0.55 * t), _to_px(c + 0.55 * t), GRAIN, int(0.14 * PX))
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}


def test_golden_sand_running_out_from_the_coast_is_no_grain_icon() -> None:
    """A spit of the beach reaching out from the coast into the icon's place."""
    lab = _view({})
    mids, _ = spot_geometry([_site(2)], 0.0)
    centres, _ = spot_geometry([_site(2)], 0.45)
    cv2.line(lab, _to_px(mids[0]), _to_px(centres[0]), GRAIN, int(0.2 * PX))
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}
    # The same golden colour standing alone on the sea is an icon.
    assert _site(2) in read_icons(_view({_site(2): GRAIN}), PLANE_TO_TOP, SITES)


def test_an_arm_of_an_icon_colour_reaching_over_the_sea_is_no_icon() -> None:
    """The renderer's hands are pink, redder than yellow like bricks: an arm crossing a
    side's disc on its way in from beyond the frame is larger than any icon."""
    lab = _view({})
    centres, along = spot_geometry([_site(2)], 0.43)
    far = centres[0] + 2.0 * (centres[0] - spot_geometry([_site(2)], 0.0)[0][0])
    cv2.line(lab, _to_px(centres[0] + 0.1 * along[0]), _to_px(far), BRICK, int(0.25 * PX))
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}


def test_an_icon_off_the_sea_is_not_read() -> None:
    """A frame registered a hex off puts land where the sea should be: no icon is read on it."""
    lab = _view({_site(2): BRICK})
    centres, _ = spot_geometry([_site(2)], 0.43)
    cv2.circle(lab, _to_px(centres[0]), int(0.34 * PX), LAND, int(0.14 * PX))
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}


def test_an_icon_in_the_disc_of_two_colours_is_not_read() -> None:
    lab = _view({_site(2): BRICK})
    centres, along = spot_geometry([_site(2)], 0.43)
    cv2.circle(lab, _to_px(centres[0] + 0.09 * along[0]), int(0.06 * PX), GRAIN, -1)
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}


def test_icons_join_the_harbours_of_a_frame_read_side_by_side() -> None:
    """A base frame whose harbours fit no layout: the two icons are named, the rest unread,
    and the board is uncertain."""
    icons = {_site(2): BRICK, _site(11): GRAIN}
    reading = read_harbours(_view(icons), PLANE_TO_TOP, "base", TILES)
    named = {((h.q, h.r), h.side): h.kind for h in reading.harbors}
    assert named == {_site(2): "brick", _site(11): "grain"}
    assert reading.unread == 7
    assert reading.warnings and reading.warnings[0].startswith("uncertain")


def test_two_icons_of_a_kind_the_set_holds_once_are_both_left_unread() -> None:
    icons = {_site(2): BRICK, _site(11): BRICK, _site(20): GRAIN}
    reading = read_harbours(_view(icons), PLANE_TO_TOP, "base", TILES)
    named = {((h.q, h.r), h.side): h.kind for h in reading.harbors}
    assert named == {_site(20): "grain"}


def test_an_icon_never_overrules_a_harbour_read_by_colour() -> None:
    """Agreeing: kept once. Disagreeing: the side is dropped (one of the two is wrong). A kind
    the colour reading already used is not given again."""
    kinds = Counter(BASE_HARBOR_KINDS)
    (q, r), side = _site(2)
    read = [Harbor(q, r, side, "brick", 0.95)]
    out, added, dropped = _with_icons(read, {_site(2): ("brick", 0.99)}, kinds)
    assert out == read and added == [] and dropped == 0
    out, added, dropped = _with_icons(read, {_site(2): ("grain", 0.99)}, kinds)
    assert out == [] and dropped == 1
    out, added, dropped = _with_icons(read, {_site(5): ("brick", 0.99)}, kinds)
    assert out == read and added == []
    # Within a layout taken, only its sides are given an icon's kind.
    out, added, _ = _with_icons([], {_site(5): ("grain", 0.99)}, kinds, frozenset([_site(2)]))
    assert out == [] and added == []
