"""Registration: the hex lattice and the frame, found without markers."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.board import Board, Tile, hex_center, hex_corner_points
from companion.layouts import random_board
from vision.register import (
    FRAMES,
    ChipCandidate,
    Lattice,
    NoBoardError,
    _rotation_matrix,
    axial_to_plane,
    plane_to_axial,
    project,
    rectify,
    register,
    relay_islands,
    rotate_axial,
    round_axial,
)
from vision.synth.render import Conditions, Render, render_board

CLEAN = Conditions(chip_style="plain")


def _max_centre_error(r: Render, reg_h: np.ndarray, hexes: list) -> float:
    """Largest distance (in hex radii) from a true hex centre to the nearest registered one."""
    truth = project(r.homography, np.array([hex_center(h) for h in r.board.tiles]))
    found = project(reg_h, np.array([hex_center(h) for h in hexes]))
    spacing = np.linalg.norm(
        project(r.homography, np.array([hex_center((1, 0))]))
        - project(r.homography, np.array([hex_center((0, 0))]))
    ) / np.sqrt(3)
    d = np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1)
    return float(d.max() / spacing)


@pytest.mark.parametrize(
    ("players", "kind", "conditions"),
    [
        (4, "base", CLEAN),
        (6, "5-6", replace(CLEAN, rotation_deg=37.0)),
        (4, "base", replace(CLEAN, tilt_deg=42.0, tilt_dir_deg=200.0, rotation_deg=75.0)),
    ],
)
def test_finds_kind_and_lattice(players: int, kind: str, conditions: Conditions) -> None:
    board = random_board(players, seed=players + 10)
    r = render_board(board, rng=5, conditions=conditions)
    reg = register(r.image)
    assert reg.kind == kind
    assert len(reg.hexes) == len(board.tiles)
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2


def test_hand_and_missing_chips_do_not_move_the_lattice() -> None:
    board = random_board(4, seed=21)
    # Take three chips off the board (a valid board JSON: land without a number).
    land = [h for h, t in board.tiles.items() if t.number is not None][:3]
    tiles = {h: (Tile(t.terrain) if h in land else t) for h, t in board.tiles.items()}
    holey = Board(board.kind, tiles, board.harbors, board.robber)
    r = render_board(holey, rng=9, conditions=replace(CLEAN, hands=1, tilt_deg=20.0))
    reg = register(r.image, kind="base")
    assert len(reg.chip_hexes) <= 15
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2


def test_a_photo_without_a_board_is_refused() -> None:
    rng = np.random.default_rng(0)
    table = (rng.random((600, 800, 3)) * 60 + 90).astype(np.uint8)
    with pytest.raises(NoBoardError, match="no board found"):
        register(table)


def test_bad_arguments_are_refused() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(ValueError, match="unknown board kind"):
        register(img, kind="cities")
    with pytest.raises(ValueError, match="colour"):
        register(np.zeros((100, 100), np.uint8))


def test_rectified_top_view_is_upright_and_scaled() -> None:
    board = random_board(4, seed=4)
    r = render_board(board, rng=3, conditions=replace(CLEAN, tilt_deg=30.0, rotation_deg=50))
    reg = register(r.image)
    top, plane_to_top = rectify(r.image, reg, px_per_unit=30.0)
    assert top.dtype == np.uint8 and top.ndim == 3
    # One board-plane unit is 30 pixels of the top view.
    a = project(plane_to_top, np.array([[0.0, 0.0], [1.0, 0.0]]))
    assert np.linalg.norm(a[1] - a[0]) == pytest.approx(30.0)


@given(st.integers(-20, 20), st.integers(-20, 20), st.floats(-0.3, 0.3), st.floats(-0.3, 0.3))
def test_axial_rounding_inverts_the_plane_map(q: int, r: int, dx: float, dy: float) -> None:
    p = axial_to_plane(np.array([[q, r]])) + [dx, dy]
    assert tuple(round_axial(plane_to_axial(p))[0]) == (q, r)


@given(st.integers(-5, 5), st.integers(-5, 5), st.integers(0, 5))
def test_axial_rotation_is_the_plane_rotation(q: int, r: int, k: int) -> None:
    rotated = axial_to_plane(np.array([rotate_axial((q, r), k)]))
    by_matrix = project(_rotation_matrix(k), axial_to_plane(np.array([[q, r]])))
    assert np.allclose(rotated, by_matrix, atol=1e-9)
    assert rotate_axial(rotate_axial((q, r), k), 6 - k) == (q, r)


def _steep_camera(tilt_deg: float) -> np.ndarray:
    """Board plane -> image of a close pinhole camera tilted ``tilt_deg`` from straight down:
    the far rows' chips come out a fraction of the near rows' size."""
    t = np.radians(tilt_deg)
    rot = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    k = np.array([[250.0, 0, 400], [0, 250.0, 300], [0, 0, 1]])
    return k @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, 6.0]])


@pytest.mark.parametrize(("tilt", "seed"), [(50.0, 6), (58.0, 1), (58.0, 6)])
def test_lattice_reaches_the_far_rows_of_a_steep_view(tilt: float, seed: int) -> None:
    # Chip discs as the candidates would report them: centred within a tenth of their radius
    # (blobs cut by the numeral), sized by perspective. One fit of the near rows extrapolated
    # misses the far rows; growing ring by ring reaches them.
    from companion.board import base_frame, hex_distance
    from vision.register import ChipCandidate, _local_scale2, fit_lattice

    rng = np.random.default_rng(seed)
    cam = _steep_camera(tilt)
    chips = [h for h in base_frame() if h != (0, 0)]
    plane = np.array([hex_center(h) for h in chips])
    scale = np.sqrt(np.abs(_local_scale2(cam, plane)))
    cands = [
        ChipCandidate(
            float(p[0] + rng.normal(0, 0.1 * s)),
            float(p[1] + rng.normal(0, 0.1 * s)),
            float(0.4 * s),
            (0.64 * s, 0.4 * s, 0.0),
        )
        for p, s in zip(project(cam, plane), scale, strict=True)
    ]
    fit = fit_lattice(cands)
    assert fit is not None
    _, cells = fit
    assert len(cells) == len(chips)
    # The lattice is the board's: neighbouring chips sit on neighbouring cells.
    found = {idx: cell for cell, idx in cells.items()}
    for i, a in enumerate(chips):
        for j, b in enumerate(chips):
            if hex_distance(a, b) == 1:
                assert hex_distance(found[i], found[j]) == 1


@pytest.mark.parametrize("seed", [5, 6])
def test_a_view_58_degrees_off_vertical_is_registered_with_its_flat_far_chips(seed: int) -> None:
    # The far rows' chips are ellipses flatter than 1:2: too flat to propose a lattice, but
    # taken when the lattice grows to them with the shape a chip has from there.
    board = random_board(4, seed=seed)
    conditions = replace(CLEAN, tilt_deg=58.0, tilt_dir_deg=45.0 * seed, rotation_deg=20.0 * seed)
    r = render_board(board, rng=seed, conditions=conditions)
    reg = register(r.image)
    assert reg.kind == "base"
    assert len(reg.chip_hexes) >= 17
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2


def test_a_flat_blob_joins_only_with_the_shape_a_chip_has_there() -> None:
    from vision.register import ChipCandidate, _seen_as_disc

    # The board plane squashed to a third vertically (a steep view): a chip is a flat,
    # horizontal ellipse; the same ellipse standing upright (a border scrap) is not a chip.
    lin = np.array([[30.0, 0.0], [0.0, 10.0]])
    lying = ChipCandidate(0.0, 0.0, 5.0, (24.0, 8.0, 0.0))
    standing = ChipCandidate(0.0, 0.0, 5.0, (24.0, 8.0, 90.0))
    assert _seen_as_disc(lying, lin)
    assert not _seen_as_disc(standing, lin)


def test_a_lattices_discs_are_round_on_any_basis_of_it_and_hexes_on_another_are_not() -> None:
    # Chips under a 35 degree tilt: their ellipses are the images of circles. Proposed on a
    # sheared basis (the steps (1, 0) and (1, 1)), the lattice is the same and they are
    # round on it still; blobs 1.8 times longer than wide in the board plane (hexes seen
    # through a lattice that is not the board's) are not.
    from vision.register import _discs_round, _ellipse_covs

    lin = np.array([[30.0, 4.0], [-3.0, 30.0 * np.cos(np.radians(35.0))]])
    aff = np.eye(3)
    aff[:2, :2] = lin
    cells = np.array([(q, r) for q in range(-2, 3) for r in range(-2, 3) if abs(q + r) <= 2])
    pts = project(aff, axial_to_plane(cells))
    inl = np.ones(len(pts), bool)

    def seen(plane_axes: tuple[float, float]) -> np.ndarray:
        # Discs of these axes (hex radii) in the board plane, as the image shows them.
        lengths, vecs = np.linalg.eigh(lin @ np.diag(np.square(plane_axes)) @ lin.T)
        ellipse = (
            float(2 * np.sqrt(lengths[1])),
            float(2 * np.sqrt(lengths[0])),
            float(np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1]))),
        )
        return _ellipse_covs([ChipCandidate(float(x), float(y), 10.0, ellipse) for x, y in pts])

    to_plane = axial_to_plane(np.eye(2)).T
    sheared = np.eye(3)
    sheared[:2, :2] = lin @ to_plane @ np.array([[1.0, 1.0], [0.0, 1.0]]) @ np.linalg.inv(to_plane)
    assert _discs_round(aff, inl, pts, seen((0.4, 0.4)))
    assert _discs_round(sheared, inl, pts, seen((0.4, 0.4)))
    assert not _discs_round(aff, inl, pts, seen((0.72, 0.4)))


@pytest.mark.parametrize("seed", [24, 34])
def test_chips_scattered_as_real_ones_win_the_vote_over_a_cards_print(seed: int) -> None:
    # Seven chips placed by hand, 0.3 hex radii off their centres as on real boards: every
    # proposal made of three of them misses the rest, holds 4 and scores nothing, and the
    # lattice of a card's print (small flat marks in rows, not round on it) wins the vote
    # (bench vision --real-hands 4: catan_12 refused 9 times in 16 for a card's row of icons).
    # Fitted again on the discs near its points, the chips' proposal holds them all.
    from vision.register import fit_lattice

    rng = np.random.default_rng(seed)
    flower = [(0, 0), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
    cands = []
    for c in flower:
        x, y = (np.array(hex_center(c)) + rng.normal(0.0, 0.3 / np.sqrt(2), 2)) * 40.0 + 200
        cands.append(ChipCandidate(float(x), float(y), 16.0, (32.0, 32.0, 0.0)))
    for i in range(12):
        for j in range(3):
            cands.append(
                ChipCandidate(420.0 + 12 * i + 6 * j, 380.0 + 10.4 * j, 4.0, (11.0, 5.5, 0.0))
            )
    fit = fit_lattice(cands)
    assert fit is not None
    held = {i for i in fit[1].values() if i < len(flower)}
    assert len(held) >= 6
    assert len(fit[1]) - len(held) <= 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_chip_touching_light_art_is_found_by_the_second_look(seed: int) -> None:
    # A patch of snow overlapping a chip near the centre makes them one blob at every level
    # of whiteness; once the lattice knows the chips' size, an opening that size parts them.
    from companion.board import hex_distance

    board = random_board(4, seed=seed)
    r = render_board(board, rng=seed, conditions=CLEAN)
    chip = next(
        h for h, t in board.tiles.items() if t.number is not None and hex_distance(h, (0, 0)) == 1
    )
    a, b = project(r.homography, np.array([[1.0, 0.0], [0.0, 0.0]]))
    spacing = np.linalg.norm(a - b)
    snow = project(r.homography, np.array([hex_center(chip)]) + [0.55, 0.35])[0]
    image = r.image.copy()
    axes = (int(0.35 * spacing), int(0.2 * spacing))
    cv2.ellipse(image, (int(snow[0]), int(snow[1])), axes, 30, 0, 360, (235, 240, 240), -1)
    reg = register(image)
    assert len(reg.chip_hexes) == 18
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2


@pytest.mark.parametrize("k", [21, 31])
def test_a_wide_opening_by_distance_transforms_is_the_disc_opening(k: int) -> None:
    from vision.register import _open

    rng = np.random.default_rng(k)
    mask = np.zeros((160, 200), np.uint8)
    for _ in range(12):
        centre = (int(rng.integers(0, 200)), int(rng.integers(0, 160)))
        axes = (int(rng.integers(3, 30)), int(rng.integers(3, 30)))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1, -1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    reference = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    opened = _open(mask, k)
    assert opened.dtype == np.uint8 and set(np.unique(opened)) <= {0, 1}
    # The two discs differ only in how their rims fall on the pixel grid: a small part of
    # what the opening removes.
    assert np.mean(opened != reference) < 0.25 * np.mean(mask != reference)
    assert abs(int(opened.sum()) - int(reference.sum())) < 0.03 * max(1, int(reference.sum()))


def test_a_blue_grey_table_is_not_taken_for_the_sea() -> None:
    # One of bench vision's hard renders: a base board on a lavender table whose hue is the
    # sea's. By hue alone the table is sea all round, and a Seafarers frame fits as well.
    from vision.register import sea_mask
    from vision.synth.boards import standard_board

    rng = np.random.default_rng(100_003 + 51)
    board = standard_board("base", rng)
    r = render_board(board, rng=rng, conditions=Conditions.random(rng))
    assert sea_mask(r.image[:40]).mean() > 0.5  # the table passes the hue test
    reg = register(r.image)
    assert reg.kind == "base"
    assert not reg.ambiguous
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2


@pytest.mark.parametrize("seed", [0, 1])
def test_a_seafarers_map_keeps_its_inner_sea(seed: int) -> None:
    # The sea colour learned beside the chips must still take the sea between the islands.
    from companion.board import Terrain
    from vision.synth.boards import seafarers_board

    board = seafarers_board(np.random.default_rng(seed))
    r = render_board(board, rng=seed, conditions=replace(CLEAN, tilt_deg=25.0))
    reg = register(r.image)
    assert reg.kind == "seafarers"
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.2
    seas = sum(t.terrain == Terrain.SEA for t in board.tiles.values())
    assert sum(f > 0.7 for f in reg.sea_fraction.values()) >= seas - 2


def test_discs_on_a_hex_lattice_without_a_sea_frame_are_refused() -> None:
    # Light discs laid out like chips on a wooden table: a lattice, but no board around it.
    image = np.full((900, 1200, 3), (40, 70, 120), np.uint8)
    discs = []
    for q in range(-3, 4):
        for r in range(-3, 4):
            x, y = 600 + 60 * np.sqrt(3) * (q + r / 2), 450 + 90 * r
            if 0 < x < 1200 and 0 < y < 900:
                cv2.circle(image, (int(x), int(y)), 22, (220, 235, 240), -1)
                discs.append((x, y))
    with pytest.raises(NoBoardError, match="no sea frame") as refusal:
        register(image)
    # The refusal carries what the registration saw, in the photo's pixels: the lattice's
    # chips (as many as the message counts), each on a disc drawn.
    held = refusal.value.chips
    assert f"the {len(held)} disc(s)" in str(refusal.value)
    nearest = np.linalg.norm(held[:, None] - np.array(discs)[None], axis=2).min(axis=1)
    assert len(held) >= 6 and nearest.max() < 5
    assert len(refusal.value.candidates) >= len(held)


@pytest.mark.parametrize(("index", "kind"), [(52, "5-6"), (192, "base"), (197, "seafarers")])
def test_a_table_inside_the_seas_colour_box_is_told_from_the_sea(index: int, kind: str) -> None:
    # Hard renders of bench vision's seed 0 on blue-grey tables that pass the sea's colour box
    # (its spread of lightness is wide: waves, shadows): as sea all round, the table made a
    # Seafarers frame fit the 5-6 and base boards, and a Seafarers map one hex off.
    from vision.bench import hard_render
    from vision.register import sea_mask

    board, _, r = hard_render(0, index)
    assert sea_mask(r.image[:30]).mean() > 0.8  # the table passes the hue test
    reg = register(r.image)
    assert reg.kind == kind
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.3


def test_specks_of_a_blue_grey_table_on_the_lattice_do_not_make_the_table_sea() -> None:
    # bench vision's seed 33 render 92: a Seafarers map on a grey-blue table that passes the
    # hue test; the lattice took two specks of the table just off the map's sea as chips,
    # and the table sampled all round them widened the sea's learned colour until its box
    # held the table: every cell round every frame was open sea, and the map was laid one
    # cell off (1.79 hex radii, ambiguous).
    from vision.bench import hard_render
    from vision.register import board_sea_mask, find_lattice

    board, _, r = hard_render(33, 92)
    lat = find_lattice(r.image)
    sea = board_sea_mask(lat.small, lat.h_lat, lat.chip_cells)
    assert sea[:40].mean() < 0.1  # the table along the top
    reg = register(r.image)
    assert reg.kind == "seafarers"
    assert not reg.ambiguous
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.3


# Hard renders of bench vision that registration once laid wrong: (seed, index, kind, least
# chips found).
_LAID_WRONG_ONCE = [
    # A Seafarers map 39 degrees off vertical, where a hex side and a step across two hexes
    # are about as long and 60 degrees apart: the lattice they span, twice as fine as the
    # chips', explained every chip and, through a blob between two, outscored the chips'
    # own. Every chip but that blob lay on one coset of it; the map was laid 3.77 hex radii
    # off (band 0.64, not ambiguous).
    pytest.param(33, 68, "seafarers", 0, id="lattice-twice-as-fine"),
    # A 5-6 board 45 degrees off vertical whose two deserts and chips merged with light art
    # are big discs on a lattice twice as coarse: by area they outscored the chips' own
    # lattice, which left the board refused as "no board".
    pytest.param(0, 151, "5-6", 20, id="lattice-twice-as-coarse"),
    # A Seafarers map whose lilac, green and orange chips are cut by their bold numerals into
    # shapes no candidate passes at the 5 px closing: the lattice went through 14 specks of
    # the orange table, 12 with no chip beside them. The wider closing, tried only on such a
    # lattice, finds the chips.
    pytest.param(5, 65, "seafarers", 14, id="lattice-through-table-specks"),
    # Seafarers maps 41 and 30 degrees off vertical: the lattice grew out to 8 and 5 specks
    # of the table 5 to 25 cells from the board, whose chips' mean they dragged off; the
    # frame's translations, tried only around that mean, missed the true one (hex centres
    # 2.4 and 1.96 hex radii off, not ambiguous).
    pytest.param(21, 23, "seafarers", 0, id="far-specks-41-degrees"),
    pytest.param(21, 83, "seafarers", 0, id="far-specks-30-degrees"),
]


@pytest.mark.parametrize(("seed", "index", "kind", "chips"), _LAID_WRONG_ONCE)
def test_boards_once_laid_wrong_are_laid_on_their_own_cells(
    seed: int, index: int, kind: str, chips: int
) -> None:
    from vision.bench import hard_render

    _, _, r = hard_render(seed, index)
    reg = register(r.image)
    assert reg.kind == kind
    assert len(reg.chip_hexes) >= chips
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.3


def test_chips_on_one_coset_of_a_sheared_sublattice_are_laid_on_it() -> None:
    # The chips of a clean base board, given a lattice twice as fine (its basis the hex
    # side (1, 0) and the step (1, 2) across two hexes): every chip lies on one coset of a
    # sublattice of index 2, and on that sublattice, not on the fine one, they are round.
    from vision.register import _beside, _coarser, _inliers, find_lattice

    board = random_board(4, seed=1)
    r = render_board(board, rng=1, conditions=replace(CLEAN, tilt_deg=20.0))
    lat = find_lattice(r.image)
    fine = np.eye(3)
    to_plane = axial_to_plane(np.eye(2)).T
    fine[:2, :2] = to_plane @ np.array([[1.0, 1.0], [0.0, 2.0]]) @ np.linalg.inv(to_plane)
    h_fine = lat.h_lat @ np.linalg.inv(fine)
    pts = np.array([[c.x, c.y] for c in lat.candidates])
    rad = np.array([c.radius for c in lat.candidates])
    chips = np.zeros(len(pts), bool)
    chips[list(lat.chips.values())] = True
    assert _inliers(h_fine, pts, rad, float(np.median(rad[chips])))[chips].all()
    coarse = _coarser(h_fine, pts, chips, lat.candidates)
    assert coarse is not None
    cells = round_axial(plane_to_axial(project(np.linalg.inv(coarse), pts[chips])))
    assert _beside(map(tuple, cells)) == len(cells)
    # The chips' own lattice is left as it is.
    assert _coarser(lat.h_lat, pts, chips, lat.candidates) is None


def test_the_frame_is_placed_on_the_chips_whatever_lies_far_beyond_them() -> None:
    # The same lattice with a few far cells added (specks a lattice grown over the table
    # takes) must be placed as without them: those cells lie outside any placement near
    # the board and only cost it the same everywhere there.
    from vision.register import find_lattice, place_frame

    board = random_board(4, seed=3)
    r = render_board(board, rng=3, conditions=replace(CLEAN, rotation_deg=20.0))
    lat = find_lattice(r.image)
    kinds = tuple(FRAMES)
    plain = place_frame(lat.small, lat.h_lat, lat.chip_cells, kinds)
    centre = sorted(lat.chip_cells)[0]
    specks = {(centre[0] + dq, centre[1] + dr) for dq, dr in ((24, -5), (30, -15), (35, 4))}
    with_specks = place_frame(lat.small, lat.h_lat, lat.chip_cells | specks, kinds)
    assert plain[0] == "base"
    assert with_specks[:3] == plain[:3]


def test_the_board_core_leaves_out_cells_far_from_most_chips() -> None:
    from vision.register import board_core

    board = [(q, r) for q in range(-2, 3) for r in range(-2, 3) if abs(q + r) <= 2]
    specks = [(12, -6), (15, -20), (-9, 1)]
    assert set(board_core(board + specks)) == set(board)
    # An island across the sea, 5 steps from the medoid, stays.
    assert (3, 2) in board_core([*board, (3, 2)])


def test_chips_apart_are_those_with_no_chip_beside_them() -> None:
    from vision.register import _apart, _beside

    cells = [(0, 0), (1, 0), (0, 1), (5, 5), (-4, 2)]
    assert _beside(cells) == 3
    assert _apart(cells) == 2
    assert _apart([]) == 0


@pytest.mark.parametrize(("seed", "index"), [(0, 53), (0, 260), (1, 50), (0, 248)])
def test_an_island_reached_across_the_sea_is_laid_on_its_own_cells(seed: int, index: int) -> None:
    # Seafarers maps of bench vision's hard renders, 26-45 degrees off vertical: the lattice
    # reached a group of chips beyond the sea only by extrapolating, put it one cell off,
    # and the homography fitted through it was bent (hex centres 0.85-0.92 hex radii off at
    # the frame): the frame was placed wrong. Render 248 (seed 0) has a hand over its middle:
    # the lattice held five chips nearly in a line and, across the hand, a chip with a blob
    # of the hand's edge beside it; the pair cost least where it was, one cell off, and the
    # lattice bent through it never reached the other chips (placed 1.46 hex radii off,
    # ambiguous). Without the blob the chip is clearly best on its own cell.
    from vision.bench import hard_render

    board, _, r = hard_render(seed, index)
    reg = register(r.image)
    assert reg.kind == "seafarers"
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.3


def test_a_group_in_doubt_where_it_is_is_laid_after_the_clear_ones() -> None:
    # Seed 0 render 53 (above) as OpenCV 5.1 draws it (its numerals rasterised otherwise):
    # the disc of cell (-3, -2), a chip merged with light art, is 0.301 (log) larger than the
    # chips' median in the board plane, past the lattice's size test (0.3; 0.299 as 5.0 draws
    # it), and leaves two lone chips across the sea, both a cell off. (-4, 4) costs least
    # where it is, but not clearly (1.40 against 1.97 a cell over); laid there first (it
    # sorts first), it bent the judgement of (-3, -1), clearly best a cell over without it
    # (0.25 against 2.71) and best where it is with it (3.17 against 3.96): both stayed off,
    # and the frame was placed 1.75 hex radii off. The lattice here is that of either
    # version's render less that chip.
    from vision.bench import hard_render
    from vision.register import WORK_SIDE, find_chip_candidates, fit_lattice, whiteness_maps

    _, _, r = hard_render(0, 53)
    scale = WORK_SIDE / max(r.image.shape[:2])
    small = cv2.resize(r.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    cands = find_chip_candidates(small, maps=whiteness_maps(small))
    h, cells = fit_lattice(cands)
    cells.pop((-3, -2), None)
    _, laid = relay_islands(cands, h, cells)
    # Every chip on its own cell: one turn and shift take each lattice cell to its true hex.
    to_board = np.linalg.inv(r.homography)
    true_hex = {
        cell: tuple(round_axial(plane_to_axial(project(to_board, np.array([xy]) / scale)))[0])
        for cell, xy in ((c, (cands[i].x, cands[i].y)) for c, i in laid.items())
    }
    assert cells[(-4, 4)] in laid.values() and cells[(-3, -1)] in laid.values()
    assert any(
        len({tuple(np.subtract(true_hex[c], rotate_axial(c, k))) for c in laid}) == 1
        for k in range(6)
    )


@pytest.mark.parametrize("seed", [0, 2])
def test_sea_reaching_the_image_edge_is_not_taken_for_a_table(seed: int) -> None:
    # The photo cuts the map's outer sea at the top and bottom: the blue along the image's
    # edges is the sea itself, so no table colour may be learned from it.
    from companion.board import Terrain
    from vision.synth.boards import seafarers_board

    board = seafarers_board(np.random.default_rng(seed))
    r = render_board(board, rng=seed, conditions=replace(CLEAN, tilt_deg=20.0, fill=0.9))
    corners = np.vstack(list(r.hex_polygons.values()))
    top, bottom = int(corners[:, 1].min()) + 40, int(corners[:, 1].max()) - 40
    image = np.ascontiguousarray(r.image[top:bottom])
    reg = register(image)
    assert reg.kind == "seafarers"
    seas = sum(t.terrain == Terrain.SEA for t in board.tiles.values())
    assert sum(f > 0.7 for f in reg.sea_fraction.values()) >= seas - 1


def test_islands_too_small_for_a_homography_are_left_where_they_are() -> None:
    # Two neighbouring chips and one apart: every way of laying the lone one gives three
    # points, too few for a homography (OpenCV raised on it: seed 5, render 65 of the bench).
    h = np.array([[50.0, 0.0, 400.0], [0.0, 50.0, 300.0], [0.0, 0.0, 1.0]])
    cells = {(0, 0): 0, (1, 0): 1, (3, -1): 2}
    pts = project(h, axial_to_plane(np.array(list(cells), np.float64)))
    cands = [ChipCandidate(float(x), float(y), 15.0) for x, y in pts]
    refit, laid = relay_islands(cands, h, cells)
    assert laid == cells
    assert np.allclose(refit, h)


def test_blobs_the_placed_frame_leaves_outside_do_not_bend_its_homography() -> None:
    # A lattice fitted with table specks a dozen cells off the board (not quite on their
    # lattice points) bends over the board; laid on the frame, only its chips place it.
    truth = np.array([[40.0, 6.0, 400.0], [-4.0, 38.0, 270.0], [2e-4, 3e-4, 1.0]])
    chips = [h for h in FRAMES["base"] if hex_center(h) != (0.0, 0.0)]  # the desert: no chip
    specks = [(-8, 6), (-7, 8), (-9, 9), (6, -9), (7, -6)]
    at = project(truth, axial_to_plane(np.array(chips + specks)))
    at[len(chips) :] += 12.0  # a speck lies near, not on, its lattice point
    cands = [ChipCandidate(float(x), float(y), 14.0) for x, y in at]
    cells = {c: i for i, c in enumerate(chips + specks)}
    bent, _ = cv2.findHomography(axial_to_plane(np.array(list(cells))), at, 0)
    small = np.zeros((540, 800, 3), np.uint8)
    corners = np.array([p for h in FRAMES["base"] for p in hex_corner_points(h)])

    def worst(m: np.ndarray) -> float:
        return float(np.linalg.norm(project(m, corners) - project(truth, corners), axis=1).max())

    lat = Lattice(small, 1.0, bent, set(cells), cands, cells)
    assert worst(bent) > 3.0
    assert worst(lat.placed("base", FRAMES["base"], 0, (0, 0), 0.0, False, {}).homography) < 0.1
    # A lattice whose chips all lie on the frame is kept as it was fitted.
    on_board = {c: i for c, i in cells.items() if c in chips}
    kept = Lattice(small, 1.0, bent, set(on_board), cands, on_board)
    placed = kept.placed("base", FRAMES["base"], 0, (0, 0), 0.0, False, {}).homography
    assert np.allclose(placed, bent / bent[2, 2])


def test_the_demo_table_of_seed_4_is_registered_to_a_fraction_of_a_road() -> None:
    # The demo's view (960x540, tilted like a webcam on a stand) of seed 4's table: its lattice
    # grew out to specks of the table's texture and harbour tokens, and the homography fitted
    # through them put corners up to 0.8 hex radii off (every build near them was missed).
    board = random_board(4, seed=4)
    view = Conditions(
        tilt_deg=12.0,
        tilt_dir_deg=40.0,
        rotation_deg=5.0,
        light_gradient=0.0,
        glare=0.0,
        shadow=0.0,
        hands=0,
    )
    r = render_board(board, width=960, height=540, rng=4, conditions=view)
    reg = register(r.image, "base")
    assert _max_centre_error(r, reg.homography, reg.hexes) < 0.1


def test_a_seafarers_frame_whose_band_is_not_sea_is_in_doubt() -> None:
    from vision.register import SEAFARERS_MIN_BAND, Registration, band_doubt

    def placed(kind: str, band: float) -> Registration:
        return Registration(kind, list(FRAMES[kind]), np.eye(3), set(), band=band)

    assert band_doubt(placed("seafarers", 0.45)) is not None
    assert band_doubt(placed("seafarers", SEAFARERS_MIN_BAND)) is None
    # A base frame's band carries its harbours: only its cost judges it.
    assert band_doubt(placed("base", 0.3)) is None


def test_a_map_laid_off_its_cells_across_a_hand_is_reported_in_doubt() -> None:
    # bench vision's seed 21 render 236: a Seafarers map 40 degrees off vertical, a hand
    # across it; the lattice holds 9 of its 20 chips, one of them across the hand, and the
    # homography bent through it lays the map 1.3 hex radii off, not ambiguous. Its frame's
    # band is 45% sea (right Seafarers placements: 74% and more on seeds 0, 5, 9, 21).
    from vision.bench import hard_render
    from vision.read_board import read_board

    _, _, r = hard_render(21, 236)
    board = read_board(r.image, pieces=False)
    assert any("band round the Seafarers frame" in w for w in board.warnings)


def test_blobs_outside_the_frame_do_not_bend_it_when_the_chips_scatter() -> None:
    # Real chips lie up to 0.3 hex radii off their points (placed by hand): a hand that hides
    # some leaves a lattice that a harbour token just beyond the frame bends, and the chips'
    # median distance from their points, dominated by their own scatter, hardly changes when
    # it is left out. The frame is fitted on its own chips all the same.
    truth = np.array([[40.0, 6.0, 400.0], [-4.0, 38.0, 270.0], [2e-4, 3e-4, 1.0]])
    chips = [h for h in FRAMES["base"] if h[0] <= 0 and hex_center(h) != (0.0, 0.0)]
    token = (3, -1)  # beyond the frame, beside the hidden chips
    rng = np.random.default_rng(3)
    plane = axial_to_plane(np.array(chips)) + rng.uniform(-0.2, 0.2, (len(chips), 2))
    at = np.vstack([project(truth, plane), project(truth, axial_to_plane(np.array([token])) + 0.6)])
    cands = [ChipCandidate(float(x), float(y), 14.0) for x, y in at]
    cells = {c: i for i, c in enumerate([*chips, token])}
    bent, _ = cv2.findHomography(axial_to_plane(np.array(list(cells))), at, 0)
    small = np.zeros((540, 800, 3), np.uint8)
    centres = axial_to_plane(np.array(FRAMES["base"]))

    def worst(m: np.ndarray) -> float:
        return float(np.linalg.norm(project(m, centres) - project(truth, centres), axis=1).max())

    lat = Lattice(small, 1.0, bent, set(cells), cands, cells)
    placed = lat.placed("base", FRAMES["base"], 0, (0, 0), 0.0, False, {}).homography
    assert worst(placed) < 0.6 * worst(bent)
