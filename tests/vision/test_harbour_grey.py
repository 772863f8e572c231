"""Ore and wool, the last two harbours of a frame, told apart by the sheep's grass.

Each test draws a base board's top view in CIELAB (the reader's own colour space) with grey
icons off some sides on a light halo: rocks lying along the side (a wide ellipse), a sheep
standing (a round blob) on a strip of green grass, maybe a light grey pier beside one.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.harbours as harbours
from companion.board import Harbor, Terrain, Tile, base_frame, hex_corner_points
from companion.layouts import BASE_HARBOR_KINDS
from vision.bench import HARBOUR_LABELS
from vision.harbour_grey import GreyIcon, grey_icon, icon_patch
from vision.harbours import (
    Site,
    _grey_icons,
    _with_grey_pair,
    _with_last_logs,
    coast_sites,
    read_harbours,
    spot_geometry,
)

PX = 60.0
SIZE = 660
PLANE_TO_TOP = np.array([[PX, 0.0, SIZE / 2], [0.0, PX, SIZE / 2], [0.0, 0.0, 1.0]])
SEA = (52.0, 1.0, -43.0)
LAND = (60.0, -20.0, 30.0)
ROCK = (30.0, 0.0, -2.0)
PIER = (58.0, -1.0, -4.0)
GRASS = (45.0, -20.0, 10.0)
LOGS = (40.0, 8.0, 15.0)
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
SITES = coast_sites(TILES)


def _px(p: np.ndarray) -> tuple[int, int]:
    return (int(round(p[0] * PX + SIZE / 2)), int(round(p[1] * PX + SIZE / 2)))


def _view(icons: dict[Site, str], pier: bool = False, shift: float = 0.0) -> np.ndarray:
    """The top view with an icon off each side of ``icons``, ``shift`` hex radii along the
    side from its place: "rocks" (grey, lying along the side), "sheep" (grey, upright, on
    grass), "upright rocks" (no grass), "logs" (brown), "grey logs" (grey, a little wider
    than high), "dull logs" (grey, round, a brown stripe along) or "bush" (dark, small, round);
    with ``pier``, a light plank larger than the
    icon beside each."""
    lab = np.empty((SIZE, SIZE, 3), np.float32)
    lab[:] = SEA
    lab += np.random.default_rng(0).normal(0.0, 2.0, lab.shape).astype(np.float32)
    for h in base_frame():
        poly = np.array([_px(np.array(p)) for p in hex_corner_points(h)], np.int32)
        cv2.fillConvexPoly(lab, poly, LAND)
    for (site, what), c in zip(icons.items(), spot_geometry(list(icons), 0.43)[0], strict=True):
        mid = spot_geometry([site], 0.0)[0][0]
        normal = (c - mid) / 0.43
        along = np.array([-normal[1], normal[0]])
        angle = float(np.degrees(np.arctan2(along[1], along[0])))
        c = c + shift * along
        cv2.circle(lab, _px(c), int(0.17 * PX), (88.0, 0.0, 5.0), -1)
        if pier:
            # Not joined to the coast, as a pier cut off by the patch's near edge is not.
            p = c + 0.19 * along - 0.02 * normal
            cv2.ellipse(lab, _px(p), (int(0.04 * PX), int(0.2 * PX)), angle, 0, 360, PIER, -1)
        colour = LOGS if what == "logs" else ROCK
        if what in ("rocks", "upright rocks", "grey logs"):
            axes = {"grey logs": (0.075, 0.06), "upright rocks": (0.045, 0.09)}.get(
                what, (0.09, 0.045)
            )
            size = (int(axes[0] * PX), int(axes[1] * PX))
            cv2.ellipse(lab, _px(c), size, angle, 0, 360, colour, -1)
        elif what == "dull logs":
            # Grey under a glare, brown in part: a brown log along the side over grey ones.
            size = (int(0.09 * PX), int(0.09 * PX))
            cv2.ellipse(lab, _px(c), size, angle, 0, 360, colour, -1)
            cv2.line(lab, _px(c - 0.06 * along), _px(c + 0.06 * along), LOGS, 2)
        elif what == "bush":
            cv2.circle(lab, _px(c), int(0.07 * PX), colour, -1)
        else:
            cv2.circle(lab, _px(c), int(0.1 * PX), colour, -1)
        if what == "sheep":
            foot = c - 0.12 * normal
            cv2.line(lab, _px(foot - 0.1 * along), _px(foot + 0.1 * along), GRASS, 3)
    return lab


def _grass(lab: np.ndarray, site: Site) -> GreyIcon | None:
    mid = spot_geometry([site], 0.0)[0][0]
    normal = spot_geometry([site], 1.0)[0][0] - mid
    return grey_icon(icon_patch(lab, PLANE_TO_TOP, mid, normal))


def test_a_grey_icon_is_found_and_only_the_sheep_has_grass() -> None:
    lab = _view({SITES[2]: "sheep", SITES[11]: "rocks", SITES[20]: "logs"})
    sheep, rocks = _grass(lab, SITES[2]), _grass(lab, SITES[11])
    assert sheep is not None and rocks is not None
    assert sheep.grass >= 25 and rocks.grass == 0
    assert abs(sheep.along) < 0.1 and abs(rocks.out - 0.43) < 0.1
    # The rocks lie along the side, the sheep stands.
    assert rocks.elongation >= 1.5 and sheep.elongation <= 1.1
    # Brown logs and plain sea are no grey icon.
    assert _grass(lab, SITES[20]) is None
    assert _grass(lab, SITES[5]) is None


def _seven(exclude: tuple[int, ...]) -> list[Harbor]:
    """The frame's set but ore and wool, on sides away from ``exclude``."""
    kinds = [k for k in BASE_HARBOR_KINDS if k not in ("ore", "wool")]
    free = [i for i in range(0, len(SITES), 4) if all(abs(i - j) > 1 for j in exclude)]
    return [
        Harbor(SITES[i][0][0], SITES[i][0][1], SITES[i][1], k, 0.95)
        for i, k in zip(free, kinds, strict=False)
    ]


def test_ore_and_wool_are_named_when_they_are_all_that_is_left() -> None:
    read = _seven((2, 11))
    assert len(read) == 7
    lab = _view({SITES[2]: "sheep", SITES[11]: "rocks"})
    got = _with_grey_pair(read, lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS)
    added = {((h.q, h.r), h.side): h.kind for h in got[7:]}
    assert added == {SITES[2]: "wool", SITES[11]: "ore"}


def test_without_grass_or_with_two_kinds_more_left_nothing_is_named() -> None:
    read = _seven((2, 11))
    rocks = _view({SITES[2]: "rocks", SITES[11]: "rocks"})
    assert _with_grey_pair(read, rocks, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read
    pair = _view({SITES[2]: "sheep", SITES[11]: "rocks"})
    assert _with_grey_pair(read[2:], pair, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read[2:]
    # Two icons lying along their sides: which one is the rocks is not known.
    three = _view({SITES[2]: "sheep", SITES[11]: "rocks", SITES[14]: "rocks"})
    assert _with_grey_pair(read, three, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read


def test_with_one_more_kind_left_ore_and_wool_are_named_beside_short_logs_and_a_bush() -> None:
    # The logs washed grey by a glare lie along their side too, but shorter than the rocks;
    # a bush printed on the beach is dark, round and without grass.
    seven = _seven((2, 11))
    logs = next(((h.q, h.r), h.side) for h in seven if h.kind == "lumber")
    read = [h for h in seven if h.kind != "lumber"]
    icons = {SITES[2]: "sheep", SITES[11]: "rocks", logs: "grey logs", SITES[18]: "bush"}
    lab = _view(icons)
    got = _with_grey_pair(read, lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS)
    added = {((h.q, h.r), h.side): h.kind for h in got[len(read) :]}
    assert added == {SITES[2]: "wool", SITES[11]: "ore"}


def test_icons_printed_a_quarter_radius_along_are_found_with_their_grass() -> None:
    lab = _view({SITES[2]: "sheep", SITES[11]: "rocks"}, shift=0.23)
    sheep, rocks = _grass(lab, SITES[2]), _grass(lab, SITES[11])
    assert sheep is not None and rocks is not None
    assert sheep.grass >= 25 and rocks.grass == 0
    assert abs(sheep.along - 0.23) < 0.05


def test_a_pier_larger_than_the_icon_beside_it_is_not_taken_for_it() -> None:
    # A lighter print's rocks are not 25% near black (layout F): the icon is the shaded
    # blob, not the largest one near its place.
    lab = _view({SITES[11]: "rocks"}, pier=True)
    rocks = _grass(lab, SITES[11])
    assert rocks is not None
    assert rocks.elongation >= 1.5 and abs(rocks.along) < 0.1


def test_grass_without_the_rocks_shape_names_neither() -> None:
    # Rocks standing upright: the grass alone says which is the sheep, the shapes do not.
    read = _seven((2, 11))
    lab = _view({SITES[2]: "sheep", SITES[11]: "upright rocks"})
    assert _with_grey_pair(read, lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read


def _eight() -> tuple[list[Harbor], Site]:
    """The frame's set but lumber, and the side the lumber harbour was on."""
    seven = _seven((2, 11))
    logs = next(((h.q, h.r), h.side) for h in seven if h.kind == "lumber")
    pair = [
        Harbor(q, r, side, k, 0.9) for ((q, r), side), k in ((SITES[2], "wool"), (SITES[11], "ore"))
    ]
    return [h for h in seven if h.kind != "lumber"] + pair, logs


def test_the_last_logs_are_named_when_they_are_the_only_dull_brown_icon() -> None:
    read, logs = _eight()
    lab = _view({logs: "dull logs", SITES[18]: "bush"})
    got = _with_last_logs(read, lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS)
    assert {((h.q, h.r), h.side): h.kind for h in got[len(read) :]} == {logs: "lumber"}


def test_grey_icons_that_are_no_logs_or_two_logs_name_no_lumber() -> None:
    read, logs = _eight()
    for icons in (
        {logs: "grey logs"},
        {logs: "rocks"},
        {logs: "dull logs", SITES[18]: "dull logs"},
    ):
        lab = _view(icons)
        assert _with_last_logs(read, lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read
    # With another kind left too, the logs are not the last.
    lab = _view({logs: "dull logs"})
    assert _with_last_logs(read[1:], lab, PLANE_TO_TOP, SITES, BASE_HARBOR_KINDS) == read[1:]


def test_an_icon_printed_well_along_is_looked_at_whole() -> None:
    # vieja_E_1's rocks lie 0.21 hex radii along from their place: cut by the patch's end,
    # they looked as upright as a sheep (elongation 1.22) and the pair was not named.
    lab = _view({SITES[11]: "rocks"}, shift=0.27)
    cut = _grass(lab, SITES[11])
    assert cut is not None and cut.elongation < 1.5
    ((site, whole),) = _grey_icons(_seven((11,)), lab, PLANE_TO_TOP, [SITES[11]])
    assert site == SITES[11] and whole.elongation >= 1.9 and abs(whole.along - 0.27) < 0.03


def test_the_rocks_alone_tell_ore_from_wool_on_the_two_sides_the_parts_leave(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # vieja_E_5: every harbour but ore and wool read by its mark, the sheep washed out by a
    # glare, the rocks seen: the frame's parts leave two sides, and the rocks say which.
    labels = {((h.q, h.r), h.side): h.kind for h in HARBOUR_LABELS["vieja_E"]}
    ore, wool = (next(s for s, k in labels.items() if k == kind) for kind in ("ore", "wool"))
    marks = {s: (k, 0.99) for s, k in labels.items() if s not in (ore, wool)}
    monkeypatch.setattr(harbours, "_with_ratios", lambda *_args, **_kw: dict(marks))

    def small(icons: dict[Site, str]) -> np.ndarray:
        # The printed icon without its halo: too little art for a spot's colour to name it.
        lab = _view(icons)
        lab[(lab == np.float32(88.0)).all(axis=2) | (lab[..., 0] == np.float32(88.0))] = SEA
        return lab

    reading = read_harbours(small({ore: "rocks"}), PLANE_TO_TOP, "base", TILES)
    assert {((h.q, h.r), h.side): h.kind for h in reading.harbors} == labels
    assert not any(w.startswith("uncertain") for w in reading.warnings)
    # With no rocks seen, or the rocks' shape standing upright, neither is named.
    for icons in ({}, {ore: "upright rocks"}):
        reading = read_harbours(small(icons), PLANE_TO_TOP, "base", TILES)
        assert len(reading.harbors) == 7
