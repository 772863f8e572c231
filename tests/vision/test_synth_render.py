"""The synthetic renderer: ground truth consistent with the picture, every kind, conditions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.board import Board, Terrain, Tile, hex_center
from companion.layouts import random_board
from vision.register import circle_points, find_chip_candidates, project
from vision.synth.boards import SEAFARERS_LAND, seafarers_board
from vision.synth.render import (
    CHIP_SCATTER,
    Conditions,
    Render,
    distort_points,
    render_board,
)

CLEAN = Conditions(chip_style="plain")


def _pixel(img: np.ndarray, p: np.ndarray) -> np.ndarray:
    return img[int(round(p[1])), int(round(p[0]))].astype(int)


def test_same_seed_same_image_and_other_seed_differs() -> None:
    board = random_board(4, seed=3)
    a = render_board(board, rng=7, conditions=CLEAN)
    b = render_board(board, rng=7, conditions=CLEAN)
    c = render_board(board, rng=8, conditions=CLEAN)
    assert a.image.shape == (1200, 1600, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    assert not np.array_equal(a.image, c.image)


def test_homography_puts_each_terrain_where_the_truth_says() -> None:
    # A board of forest and sea only: beside each chip the art must be green, on sea blue.
    base = random_board(4, seed=1)
    tiles = {h: Tile(Terrain.FOREST if h[0] <= 0 else Terrain.SEA) for h in base.tiles}
    board = Board("seafarers", tiles)
    r = render_board(board, rng=1, conditions=CLEAN)
    for h, t in tiles.items():
        # 0.55 hex radii east of the centre: on the art, off any chip, inside the border.
        b, g, red = _pixel(r.image, project(r.homography, np.array([hex_center(h)]) + [0.55, 0])[0])
        if t.terrain == Terrain.FOREST:
            assert g > b and g > red, (h, (b, g, red))
        else:
            assert b > g > red, (h, (b, g, red))


@pytest.mark.parametrize("players", [4, 6])
def test_hex_polygons_cover_every_hex_inside_the_image(players: int) -> None:
    board = random_board(players, seed=players)
    r = render_board(board, rng=2, conditions=replace(CLEAN, tilt_deg=40, tilt_dir_deg=30))
    assert set(r.hex_polygons) == set(board.tiles)
    for poly in r.hex_polygons.values():
        assert poly.shape == (6, 2)
        assert (poly[:, 0] >= 0).all() and (poly[:, 0] < 1600).all()
        assert (poly[:, 1] >= 0).all() and (poly[:, 1] < 1200).all()


def test_tilt_foreshortens_the_board() -> None:
    board = random_board(4, seed=5)
    flat = render_board(board, rng=1, conditions=CLEAN)
    tilted = render_board(board, rng=1, conditions=replace(CLEAN, tilt_deg=45))

    def height_over_width(poly: np.ndarray) -> float:
        ext = poly.max(axis=0) - poly.min(axis=0)
        return float(ext[1] / ext[0])

    # Tilting about the east-west axis shortens north-south lengths by about cos(45 deg).
    ratio = height_over_width(tilted.hex_polygons[(0, 0)]) / height_over_width(
        flat.hex_polygons[(0, 0)]
    )
    assert ratio == pytest.approx(np.cos(np.radians(45)), rel=0.1)


def test_hands_are_drawn_and_masked() -> None:
    board = random_board(4, seed=2)
    r = render_board(board, rng=4, conditions=replace(CLEAN, hands=2))
    plain = render_board(board, rng=4, conditions=CLEAN)
    assert r.hand_mask is not None and r.hand_mask.any()
    diff = np.abs(r.image.astype(int) - plain.image.astype(int)).sum(axis=2)
    assert diff[r.hand_mask].mean() > 20


def test_lens_distortion_points_match_the_remap_model() -> None:
    k, w, h = -0.05, 1600, 1200
    pts = np.array([[100.0, 80.0], [800.0, 600.0], [1500.0, 1100.0]])
    d = distort_points(pts, k, w, h)
    c = np.array([w / 2, h / 2])
    norm2 = (w / 2) ** 2 + (h / 2) ** 2
    back = c + (d - c) * (1 + k * ((d - c) ** 2).sum(axis=1, keepdims=True) / norm2)
    assert np.allclose(back, pts, atol=1e-3)
    assert np.allclose(d[1], pts[1])  # the centre does not move


def test_hard_conditions_render_every_kind_with_pieces() -> None:
    rng = np.random.default_rng(11)
    sea = seafarers_board(rng)
    base = random_board(4, seed=9)
    with_pieces = Board.from_json(
        {
            **base.to_json(),
            "pieces": [
                {"kind": "settlement", "color": "red", "vertex": [0, 0, "N"]},
                {"kind": "city", "color": "blue", "vertex": [1, 0, "S"]},
                {"kind": "road", "color": "orange", "edge": [0, 0, "E"]},
                {"kind": "ship", "color": "green", "edge": [2, 0, "E"]},
            ],
        }
    )
    for board in (with_pieces, random_board(6, seed=9), sea):
        conditions = Conditions.random(np.random.default_rng(3))
        r = render_board(board, rng=rng, conditions=conditions)
        assert r.image.shape == (1200, 1600, 3)
        assert r.board is board


def test_seafarers_board_material() -> None:
    board = seafarers_board(np.random.default_rng(4))
    land = [t for t in board.tiles.values() if t.terrain.is_land]
    assert sorted(t.terrain for t in land) == sorted(SEAFARERS_LAND)
    assert all((t.number is None) == (t.terrain == Terrain.DESERT) for t in land)
    assert board.pirate is not None and board.tiles[board.pirate].terrain == Terrain.SEA
    assert Board.from_json(board.to_json()).tiles == board.tiles


@pytest.mark.parametrize(
    "kwargs",
    [{"tilt_deg": 70.0}, {"fill": 0.0}, {"hands": -1}, {"jpeg_quality": 300}],
)
def test_bad_conditions_are_refused(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        Conditions(**kwargs)


def test_bad_image_size_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 64"):
        render_board(random_board(4, seed=1), width=32, height=900, rng=1)


@pytest.mark.parametrize(("kind", "hexes", "harbors"), [("base", 19, 9), ("5-6", 30, 11)])
def test_standard_board_material(kind: str, hexes: int, harbors: int) -> None:
    from collections import Counter

    from companion.layouts import (
        BASE_CHIPS,
        BASE_HARBOR_KINDS,
        BASE_TERRAINS,
        EXTENSION_CHIPS,
        EXTENSION_HARBOR_KINDS,
        EXTENSION_TERRAINS,
    )
    from vision.synth.boards import standard_board

    board = standard_board(kind, np.random.default_rng(3))
    terrains, chips, kinds = (
        (BASE_TERRAINS, BASE_CHIPS, BASE_HARBOR_KINDS)
        if kind == "base"
        else (EXTENSION_TERRAINS, EXTENSION_CHIPS, EXTENSION_HARBOR_KINDS)
    )
    assert len(board.tiles) == hexes
    assert board.terrain_counts() == terrains
    assert board.chip_counts() == chips
    assert len(board.harbors) == harbors
    assert Counter(h.kind for h in board.harbors) == Counter(kinds)
    assert len({h.edge for h in board.harbors}) == harbors
    assert Board.from_json(board.to_json()).tiles == board.tiles
    with pytest.raises(ValueError, match="kind"):
        standard_board("seafarers", np.random.default_rng(0))


@pytest.mark.parametrize("where", ["robber_on_chip", "robber_off_desert"])
def test_the_robber_moved_is_drawn_from_its_own_stream(where: str) -> None:
    plain, moved = np.random.default_rng(3), np.random.default_rng(3)
    beside = Conditions.random(plain)
    elsewhere = Conditions.random(moved, **{where: 1.0})
    assert getattr(beside, where) is None and getattr(elsewhere, where) is not None
    # Every other condition, and every later draw of the seed, is the same.
    assert replace(elsewhere, **{where: None}) == beside
    assert plain.random() == moved.random()


def test_the_robber_off_the_desert_leaves_the_on_chip_draws_as_they_were() -> None:
    # A seed's robber on a chip stands where it stood before the off-desert draw existed.
    chip, both = np.random.default_rng(3), np.random.default_rng(3)
    on_chip = Conditions.random(chip, robber_on_chip=1.0)
    assert Conditions.random(both, robber_on_chip=1.0, robber_off_desert=1.0) == on_chip
    with pytest.raises(ValueError, match="one of"):
        Conditions(robber_on_chip=0.5, robber_off_desert=0.5)


def test_a_robber_off_the_desert_stands_beside_the_chip_of_a_numbered_hex() -> None:
    board = random_board(4, seed=3)
    home = render_board(board, rng=5, conditions=CLEAN)
    off = render_board(board, rng=5, conditions=replace(CLEAN, robber_off_desert=0.5))
    hx = off.board.robber
    assert hx != board.robber and board.tiles[hx].number is not None
    # The chip's centre is bare (the figure stands beside it), and the figure stands in its
    # hex: half a hex radius from the centre, somewhere around the chip.
    centre = project(off.homography, np.array([hex_center(hx)]))[0]
    assert np.abs(_pixel(off.image, centre) - _pixel(home.image, centre)).max() < 8
    ring = project(off.homography, circle_points([0.5], 64) + hex_center(hx))
    changed = [np.abs(_pixel(off.image, p) - _pixel(home.image, p)).max() > 30 for p in ring]
    assert 3 <= sum(changed) <= 20


def test_a_robber_on_a_chip_stands_on_a_numbered_hex_drawn_over_its_chip() -> None:
    board = random_board(4, seed=3)
    beside = render_board(board, rng=5, conditions=CLEAN)
    on = render_board(board, rng=5, conditions=replace(CLEAN, robber_on_chip=0.5))
    assert beside.board.robber == board.robber and board.tiles[board.robber].number is None
    hx = on.board.robber
    assert hx != board.robber and board.tiles[hx].number is not None
    # The chip's centre is now under the grey figure (the robber stands near the centre).
    centre = project(on.homography, np.array([hex_center(hx)]))[0]
    seen, bare = _pixel(on.image, centre), _pixel(beside.image, centre)
    assert np.ptp(seen) < 12 and seen.mean() < bare.mean() - 20


def _chip_offsets(r: Render, board: Board) -> np.ndarray:
    """Each chip's distance from its hex's centre, in hex radii, by the render's own geometry."""
    found = np.array([(c.x, c.y) for c in find_chip_candidates(r.image)])
    offsets = []
    for hx, tile in board.tiles.items():
        if tile.number is None:
            continue
        centre = np.array(hex_center(hx))
        px = project(r.homography, centre[None])[0]
        nearest = found[np.argmin(np.hypot(*(found - px).T))]
        offsets.append(np.hypot(*(project(np.linalg.inv(r.homography), nearest[None])[0] - centre)))
    return np.array(offsets)


def test_chips_lie_as_far_from_their_hexes_centres_as_the_scatter_asks() -> None:
    board = random_board(4, seed=2)
    tidy = render_board(board, rng=4, conditions=replace(CLEAN, chip_scatter=0.0))
    # Real boards' chips: about 0.09 hex radii a coordinate (boards-dev).
    scattered = render_board(board, rng=4, conditions=replace(CLEAN, chip_scatter=0.15))
    assert np.median(_chip_offsets(tidy, board)) < 0.03
    # The median distance of a 2-D normal offset is 1.18 sigma: 0.18 hex radii here.
    assert 0.1 < np.median(_chip_offsets(scattered, board)) < 0.3
    with pytest.raises(ValueError, match="chip_scatter"):
        Conditions(chip_scatter=0.5)


def test_the_chip_scatter_draws_nothing_of_the_seed() -> None:
    # A scattered render of a seed is that seed's render with its chips elsewhere.
    plain, scattered = np.random.default_rng(3), np.random.default_rng(3)
    tidy = Conditions.random(plain)
    scattered_conditions = Conditions.random(scattered, chip_scatter=0.1)
    assert replace(scattered_conditions, chip_scatter=CHIP_SCATTER) == tidy
    assert plain.random() == scattered.random()
