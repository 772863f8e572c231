"""Generic harbours told by their printed "3:1" (the current art): generated top views.

The current art prints a generic harbour as the ratio "3:1" alone, in dark ink on the sea off
its side, upright from the sea or from the land. Each test prints ratios on a base board's top
view in CIELAB (the reader's own colour space) at the reader's resolution.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.board import Terrain, Tile, base_frame, hex_corner_points
from vision.harbour_text import STEP, find_ratio, read_ratios
from vision.harbours import Site, coast_sites, read_harbours, spot_geometry

PX = 90.0
SIZE = 960
PLANE_TO_TOP = np.array([[PX, 0.0, SIZE / 2], [0.0, PX, SIZE / 2], [0.0, 0.0, 1.0]])
SEA = (55.0, -5.0, -35.0)
LAND = (60.0, -20.0, 30.0)
BRICK = (53.0, 30.0, 14.0)
TILES = {h: Tile(Terrain.FOREST, 5) for h in base_frame()}
SITES = coast_sites(TILES)


def _text(first: str, turned: bool = False) -> np.ndarray:
    """A ratio "<first>:1" as printed, on a patch of the sides' axes (:data:`STEP` a pixel,
    the sea side up): float32 (64, 101) ink, 0..1, digits about 0.12 hex radii high."""
    ink = np.zeros((64, 101), np.uint8)
    cv2.putText(ink, first, (35, 37), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 255, 2, cv2.LINE_AA)
    rows = np.nonzero(ink.any(axis=1))[0]
    top, bottom = int(rows.min()) + 1, int(rows.max()) - 1
    middle = (top + bottom) // 2
    for y in (middle - 3, middle + 3):
        cv2.circle(ink, (49, y), 1, 255, -1)
    cv2.line(ink, (57, top), (57, bottom), 255, 2)
    cv2.line(ink, (57, top), (55, top + 2), 255, 1)
    out = ink.astype(np.float32) / 255.0
    return out[::-1, ::-1].copy() if turned else out


def _patch(ink: np.ndarray, seed: int = 0) -> np.ndarray:
    """Lightness of a textured sea with ``ink`` printed on it, slightly blurred."""
    rng = np.random.default_rng(seed)
    light = 55.0 + rng.normal(0.0, 2.0, ink.shape).astype(np.float32) - 30.0 * ink
    return cv2.GaussianBlur(light, (0, 0), 0.7)


def _view(
    printed: dict[Site, np.ndarray], icons: tuple[Site, ...] = (), seed: int = 0
) -> np.ndarray:
    """A base board's top view in CIELAB with a brick icon at the sides of ``icons`` and each
    side's patch of ink printed off it (over the icon, if any)."""
    rng = np.random.default_rng(seed)
    lab = np.empty((SIZE, SIZE, 3), np.float32)
    lab[:] = SEA
    lab += rng.normal(0.0, 2.0, lab.shape).astype(np.float32)
    for h in base_frame():
        poly = np.array(
            [
                [round(p[0] * PX + SIZE / 2), round(p[1] * PX + SIZE / 2)]
                for p in hex_corner_points(h)
            ],
            np.int32,
        )
        cv2.fillConvexPoly(lab, poly, LAND)
    if icons:
        for c in spot_geometry(list(icons), 0.43)[0]:
            centre = (int(round(c[0] * PX + SIZE / 2)), int(round(c[1] * PX + SIZE / 2)))
            cv2.circle(lab, centre, int(0.16 * PX), (88.0, 0.0, 5.0), -1)
            cv2.circle(lab, centre, int(0.13 * PX), BRICK, -1)
    for site, ink in printed.items():
        mid = spot_geometry([site], 0.0)[0][0]
        normal = spot_geometry([site], 1.0)[0][0] - mid
        along = np.array([-normal[1], normal[0]])
        # Patch pixel (column, row) -> top view: row 0 lies 0.75 hex radii out, column 0 0.5
        # along the side the other way (the reader's patch).
        origin = mid - 0.5 * along + 0.75 * normal
        m = np.column_stack([along * STEP * PX, -normal * STEP * PX, origin * PX + SIZE / 2])
        cover = cv2.warpAffine(ink, m.astype(np.float32), (SIZE, SIZE))
        lab[..., 0] -= 30.0 * cover
    return lab


def test_a_3_1_is_read_upright_and_turned_and_a_2_1_is_not_a_3() -> None:
    for turned in (False, True):
        three = find_ratio(_patch(_text("3", turned)))
        assert three is not None and three.digit == 3 and three.upright is not turned
        two = find_ratio(_patch(_text("2", turned)))
        assert two is not None and two.digit == 2


def test_plain_sea_and_a_lone_digit_are_no_ratio() -> None:
    assert find_ratio(_patch(np.zeros((64, 101), np.float32))) is None
    lone = _text("3")
    lone[:, 45:] = 0.0
    assert find_ratio(_patch(lone)) is None


def test_printed_3_1_names_generic_harbours_on_their_own_sides() -> None:
    printed = {SITES[2]: _text("3"), SITES[11]: _text("3", turned=True), SITES[20]: _text("2")}
    reading = read_harbours(_view(printed), PLANE_TO_TOP, "base", TILES)
    got = {((h.q, h.r), h.side): h.kind for h in reading.harbors}
    assert got == {SITES[2]: "3:1", SITES[11]: "3:1"}
    assert all((h.confidence or 0.0) >= 0.9 for h in reading.harbors)
    # The text is seen from the neighbouring sides' patches too: only its own side has it.
    mids = spot_geometry(SITES, 0.0)[0]
    texts = read_ratios(
        _view(printed)[..., 0], PLANE_TO_TOP, mids, spot_geometry(SITES, 1.0)[0] - mids
    )
    assert {SITES[i] for i, t in enumerate(texts) if t is not None} == set(printed)


def test_more_3_1_than_the_frame_holds_names_none() -> None:
    printed = {SITES[i]: _text("3") for i in (0, 6, 12, 18, 24)}
    reading = read_harbours(_view(printed), PLANE_TO_TOP, "base", TILES)
    assert reading.harbors == []


def test_a_side_with_an_icon_and_a_3_1_is_neither() -> None:
    printed = {SITES[2]: _text("3")}
    reading = read_harbours(_view(printed, icons=(SITES[2],)), PLANE_TO_TOP, "base", TILES)
    assert reading.harbors == []
    alone = read_harbours(_view({}, icons=(SITES[2],)), PLANE_TO_TOP, "base", TILES)
    assert [((h.q, h.r), h.side, h.kind) for h in alone.harbors] == [
        (SITES[2][0], SITES[2][1], "brick")
    ]


def test_a_narrow_3_and_a_serifed_1_of_the_same_proportions() -> None:
    """A condensed "3" (half as wide as high) and a "1" with a foot serif as wide for its
    height: the "1" is still the narrower digit."""
    ink = np.zeros((64, 101), np.uint8)
    x0, y0 = 40, 25
    for y in (y0, y0 + 6, y0 + 11):
        cv2.line(ink, (x0, y), (x0 + 5, y), 255, 1)
    cv2.line(ink, (x0 + 5, y0), (x0 + 5, y0 + 11), 255, 1)
    for y in (y0 + 3, y0 + 8):
        ink[y : y + 2, 50:52] = 255
    cv2.line(ink, (57, y0 + 2), (57, y0 + 10), 255, 1)
    cv2.line(ink, (55, y0 + 11), (59, y0 + 11), 255, 1)
    found = find_ratio(_patch(ink.astype(np.float32) / 255.0))
    assert found is not None and found.digit == 3


def test_a_3_1_beside_the_edge_of_the_view_is_read() -> None:
    # A far side's text runs up to where the top view ends (NaN in the patch), the photo's
    # edge a slanting dark rim just past the top of its "1" (as on vieja_E_6): filled white,
    # the rim would be ink joined to the "1".
    patch = _patch(_text("3"))
    rows, cols = np.mgrid[0 : patch.shape[0], 0 : patch.shape[1]]
    edge = (cols - 48) - (rows - 20)
    patch[(edge > -1.5) & (edge <= 0)] = 45.0
    patch[edge > 0] = np.nan
    found = find_ratio(patch)
    assert found is not None and found.digit == 3


def _glare(lab: np.ndarray, site: Site, white: float = 0.7) -> np.ndarray:
    """``lab`` with a glare over ``site``'s stretch of sea: ``white`` of the way to white
    (the print's contrast falls by as much)."""
    out = lab.copy()
    c = spot_geometry([site], 0.4)[0][0] * PX + SIZE / 2
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    over = np.hypot(xx - c[0], yy - c[1]) < 0.9 * PX
    out[over, 0] += white * (100.0 - out[over, 0])
    out[over, 1:] *= 1.0 - white
    return out


def test_a_3_1_under_a_glare_is_read_and_a_glare_alone_is_no_ratio() -> None:
    lab = _glare(_view({SITES[2]: _text("3")}), SITES[2])
    mids = spot_geometry(SITES, 0.0)[0]
    normals = spot_geometry(SITES, 1.0)[0] - mids
    texts = read_ratios(lab[..., 0], PLANE_TO_TOP, mids, normals)
    assert {SITES[i] for i, t in enumerate(texts) if t is not None and t.digit == 3} == {SITES[2]}
    # Out of a glare the same faint strokes are no ink.
    faint = _view({SITES[2]: 0.3 * _text("3")})
    assert not any(read_ratios(faint[..., 0], PLANE_TO_TOP, mids, normals))
    plain = _glare(_view({}), SITES[2])
    assert not any(read_ratios(plain[..., 0], PLANE_TO_TOP, mids, normals))
