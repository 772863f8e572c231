"""A far side registered off: where the coast really lies, and the marks read off it.

Each test draws a base board's top view in CIELAB (the reader's own colour space) as the
current art prints it: every tile outlined in dark ink, a narrow beach beyond the coast, the
sea beyond it; some coast sides are drawn farther out than the registration (the top view's
own grid) puts them, with a brick icon 0.43 hex radii beyond the side as drawn.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.board import Terrain, Tile, base_frame, edge, edge_vertices, vertex_position
from vision.harbour_coast import coast_offsets
from vision.harbours import Site, coast_sites, read_icons, side_axes

PX = 60.0
SIZE = 660
PLANE_TO_TOP = np.array([[PX, 0.0, SIZE / 2], [0.0, PX, SIZE / 2], [0.0, 0.0, 1.0]])
SEA = (52.0, 1.0, -43.0)
LAND = (60.0, -20.0, 30.0)
INK = (20.0, 0.0, 0.0)
BEACH = (80.0, 3.0, 22.0)
BRICK = (50.0, 35.0, 25.0)
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
SITES = coast_sites(TILES)
MIDS, NORMALS = side_axes(SITES)


def _px(p: np.ndarray) -> tuple[int, int]:
    return (int(round(p[0] * PX + SIZE / 2)), int(round(p[1] * PX + SIZE / 2)))


def _band(lab: np.ndarray, site: Site, start: float, stop: float, colour: tuple) -> None:
    """Fill the strip off ``site`` from ``start`` to ``stop`` hex radii out."""
    i = SITES.index(site)
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(edge(*site[0], site[1])))
    n = NORMALS[i]
    corners = [a + start * n, b + start * n, b + stop * n, a + stop * n]
    cv2.fillConvexPoly(lab, np.array([_px(c) for c in corners], np.int32), colour)


def _view(off: dict[Site, float], icons: tuple[Site, ...] = ()) -> np.ndarray:
    """The top view with each side of ``off`` drawn that far out, and a brick icon off each
    side of ``icons``."""
    lab = np.empty((SIZE, SIZE, 3), np.float32)
    lab[:] = SEA
    for site in SITES:
        e = off.get(site, 0.0)
        _band(lab, site, -0.9, e, LAND)
    for site in SITES:
        e = off.get(site, 0.0)
        _band(lab, site, e, e + 0.15, BEACH)
        _band(lab, site, e - 0.03, e, INK)
    for site in icons:
        i = SITES.index(site)
        c = MIDS[i] + (off.get(site, 0.0) + 0.43) * NORMALS[i]
        cv2.circle(lab, _px(c), int(0.2 * PX), (88.0, 0.0, 5.0), -1)
        cv2.circle(lab, _px(c), int(0.12 * PX), BRICK, -1)
    return lab + np.random.default_rng(0).normal(0.0, 1.5, lab.shape).astype(np.float32)


def _far_side() -> list[Site]:
    """Three coast sides one after another round the top of the frame."""
    top = sorted(range(len(SITES)), key=lambda i: MIDS[i][1])[:1]
    near = [i for i in range(len(SITES)) if np.linalg.norm(MIDS[i] - MIDS[top[0]]) < 1.0]
    return [SITES[i] for i in sorted({top[0], *near})][:3]


def test_sides_drawn_farther_out_are_found_and_the_others_stand() -> None:
    far = _far_side()
    assert len(far) == 3
    offsets = coast_offsets(_view(dict.fromkeys(far, 0.35)), PLANE_TO_TOP, MIDS, NORMALS)
    got = dict(zip(SITES, offsets, strict=True))
    assert all(abs(got[s] - 0.35) < 0.05 for s in far)
    assert all(got[s] == 0.0 for s in SITES if s not in far)
    # Registered right, or one side alone off (a dip of something else): nothing moves.
    assert not coast_offsets(_view({}), PLANE_TO_TOP, MIDS, NORMALS).any()
    alone = coast_offsets(_view({far[0]: 0.35}), PLANE_TO_TOP, MIDS, NORMALS)
    assert not alone.any()


def test_an_icon_off_a_side_registered_off_is_read_there() -> None:
    far = _far_side()
    lab = _view(dict.fromkeys(far, 0.35), icons=(far[1],))
    offsets = coast_offsets(lab, PLANE_TO_TOP, MIDS, NORMALS)
    coast = {s: float(o) for s, o in zip(SITES, offsets, strict=True) if o}
    assert read_icons(lab, PLANE_TO_TOP, SITES) == {}
    assert read_icons(lab, PLANE_TO_TOP, SITES, coast=coast) == {far[1]: ("brick", 1.0)}
