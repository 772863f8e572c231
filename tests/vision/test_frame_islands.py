"""A known frame's islands checked against the image, and its homography fitted on the map's
chip hexes only (``vision.frame_islands``, ``vision.known_frame``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import vision.known_frame as known_frame
from companion.board import Terrain, hex_center
from companion.scenario import load_scenario
from vision.frame_islands import placement_gap, unconfirmed_islands
from vision.known_board import register_known
from vision.known_frame import (
    KnownFrame,
    _slide_group,
    fit_on_chip_hexes,
    register_frame,
)
from vision.register import (
    ChipCandidate,
    Registration,
    _robust_homography,
    hex_groups,
    project,
    sea_mask,
)
from vision.synth.render import Conditions, render_board

# The map of seed 5's certain-but-wrong registration: a main island with the chips, and four
# chip-less islands of 1-3 hexes beyond its ring of sea.
BOARD = load_scenario("forgotten-tribe", 4, seed=5).board
FRAME = KnownFrame.of_board(BOARD)
# A plane homography near the identity that leaves the middle of the map nearly in place
# and moves hexes 4-6 radii out by 0.5-1.9 hex radii: an extrapolation gone wrong.
BEND = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.04, 0.02, 1.0]])


@pytest.fixture(scope="module")
def shot():
    cond = Conditions(tilt_deg=20.0, tilt_dir_deg=60.0, rotation_deg=35.0)
    return render_board(BOARD, width=960, height=540, rng=5, conditions=cond)


def spacing_errors(h: np.ndarray, truth: np.ndarray, hexes: list) -> np.ndarray:
    """Distances (hex spacings) between each hex centre under ``h`` and under ``truth``."""
    centres = np.array([hex_center(x) for x in hexes])
    step = float(np.linalg.norm(np.diff(project(truth, np.array([[0, 0], [3**0.5, 0]])), axis=0)))
    return np.linalg.norm(project(h, centres) - project(truth, centres), axis=1) / step


def test_the_maps_islands_are_its_land_joined_by_sides():
    groups = hex_groups(FRAME.land)
    assert sum(map(len, groups)) == len(FRAME.land)
    assert len(groups) == 5 and len(groups[0]) == 21  # the main island, then the tribe's


def test_islands_in_place_are_confirmed_and_bent_ones_are_not(shot):
    sea = sea_mask(shot.image)
    assert unconfirmed_islands(sea, shot.homography, FRAME.land) == ([], [])
    bent = shot.homography @ BEND
    off, unjudged = unconfirmed_islands(sea, bent, FRAME.land)
    # Every island drawn half a hex spacing or more off its place is found out.
    far_off = [
        g for g in hex_groups(FRAME.land) if spacing_errors(bent, shot.homography, g).max() > 0.45
    ]
    assert len(far_off) >= 2 and all(g in off for g in far_off)
    assert all(placement_gap(sea, bent, g, FRAME.land)[0] > 0.15 for g in far_off)
    assert unjudged == []


def test_an_island_the_sea_mask_takes_for_sea_is_unjudged_not_refused():
    # Cloth for Catan's one-hex mountain island in mid-sea: the renderer's blue-grey
    # mountains pass as sea, so the island's land is seen nowhere; the map, placed right, is
    # not made uncertain by it, and the island is listed as not confirmed.
    board = load_scenario("cloth-for-catan", 4, seed=0).board
    assert board.tiles[(3, 0)].terrain == Terrain.MOUNTAINS
    cond = Conditions(tilt_deg=25.0, tilt_dir_deg=40.0, rotation_deg=0.0)
    shot = render_board(board, width=960, height=540, rng=0, conditions=cond)
    frame = KnownFrame.of_board(board)
    elsewhere, unjudged = unconfirmed_islands(sea_mask(shot.image), shot.homography, frame.land)
    assert elsewhere == [] and unjudged == [[(3, 0)]]
    reg = register_frame(shot.image, frame)
    assert not reg.ambiguous and reg.unconfirmed == ((3, 0),)
    assert spacing_errors(reg.homography, shot.homography, sorted(frame.land)).max() < 0.25


def test_a_misplaced_chipless_island_is_not_reported_certain(shot, monkeypatch):
    reg = register_frame(shot.image, FRAME)
    assert not reg.ambiguous and reg.unconfirmed == ()
    assert spacing_errors(reg.homography, shot.homography, sorted(FRAME.land)).max() < 0.25
    # The same placement with its homography bent at the far, chip-less islands (the chips of
    # the main island still fitting it): reported uncertain, the islands named, and refused
    # by the camera link's registrar.
    monkeypatch.setattr(known_frame, "fit_on_chip_hexes", lambda r, f: r.homography @ BEND)
    bent = register_frame(shot.image, FRAME)
    assert bent.ambiguous and set(bent.unconfirmed) - FRAME.chip_hexes
    assert set(bent.unconfirmed) <= FRAME.land
    with pytest.raises(ValueError, match="more than one placement"):
        register_known(shot.image, BOARD)


def test_the_homography_is_fitted_on_the_maps_chip_hexes_only():
    # Discs off-centre on chip-less hexes (harbour tokens, gifts on the coasts) taken for
    # chips bend a fit through every disc, most at the far hexes; the map says they are none.
    truth = np.array([[40.0, 6.0, 480.0], [-3.0, 36.0, 270.0], [0.00002, 0.012, 1.0]])
    chips = sorted(FRAME.chip_hexes)
    strays = [(-2, -2), (4, 0), (-1, 4)]  # hexes of the chip-less islands
    assert not set(strays) & FRAME.chip_hexes and set(strays) <= FRAME.land
    src = np.array([hex_center(h) for h in [*chips, *strays]])
    # The chips' centres as found (about a pixel off), the strays half a hex radius off.
    dst = project(truth, src) + np.random.default_rng(0).normal(0.0, 1.0, (len(src), 2))
    dst[-3:] += 20.0 * np.array([[1, 0], [0, 1], [-1, 0]])
    reg = Registration(
        kind=FRAME.kind,
        hexes=sorted(FRAME.hexes),
        homography=_robust_homography(src, dst),  # the lattice's: through every disc
        chip_hexes={*chips, *strays},
        candidates=[ChipCandidate(float(x), float(y), 14.0) for x, y in dst],
    )
    far = sorted(FRAME.land - FRAME.chip_hexes)
    assert spacing_errors(reg.homography, truth, far).max() > 0.2
    assert spacing_errors(fit_on_chip_hexes(reg, FRAME), truth, far).max() < 0.1


def test_the_maps_other_chips_are_found_where_the_map_puts_them():
    # Pirate Islands seen at 20 degrees: the lattice holds chips on 12 of the map's 24 chip
    # hexes (refused as "not seen whole" before); the map says where the others are.
    board = load_scenario("pirate-islands", 4, seed=5).board
    cond = Conditions(tilt_deg=20.0, tilt_dir_deg=40.0, rotation_deg=280.0)
    shot = render_board(board, width=960, height=540, rng=5, conditions=cond)
    frame = KnownFrame.of_board(board)
    reg = register_frame(shot.image, frame)
    assert not reg.ambiguous
    assert len(reg.chip_hexes & frame.chip_hexes) >= 0.6 * len(frame.chip_hexes)
    assert spacing_errors(reg.homography, shot.homography, sorted(board.tiles)).max() < 0.25


def test_a_map_placed_off_at_its_far_islands_is_not_certain():
    # Cloth for Catan at 20 degrees: placed with two islands 1.9 hex spacings off, and
    # reported certain, before the islands were checked against the image.
    board = load_scenario("cloth-for-catan", 4, seed=1).board
    cond = Conditions(tilt_deg=20.0, tilt_dir_deg=40.0, rotation_deg=100.0)
    shot = render_board(board, width=960, height=540, rng=1, conditions=cond)
    try:
        reg = register_frame(shot.image, KnownFrame.of_board(board))
    except ValueError:
        return  # refused: as good as uncertain
    errors = spacing_errors(reg.homography, shot.homography, sorted(board.tiles))
    assert reg.ambiguous or errors.max() < 0.5


def test_a_group_of_chips_across_the_sea_is_slid_onto_its_discs():
    # The fit, extrapolated across the sea, puts a group of chips a hex radius off: slid as
    # one, the group finds its own discs, not its neighbours' (a strip slid one cell along
    # itself would find most of them, and discs beyond its end where the map has none).
    board = load_scenario("cloth-for-catan", 4, seed=0).board
    frame = KnownFrame.of_board(board)
    truth = np.array([[40.0, 6.0, 480.0], [-3.0, 36.0, 270.0], [0.00002, 0.012, 1.0]])
    chips = sorted(frame.chip_hexes)
    cands = project(truth, np.array([hex_center(h) for h in chips]))
    rad = np.full(len(chips), 0.4 * 40.0)
    group = hex_groups(set(chips))[1]
    assert len(group) == 10
    off = truth @ np.array([[1.0, 0.0, 0.9], [0.0, 1.0, -0.6], [0.0, 0.0, 1.0]])
    found = _slide_group(off, group, cands, rad, 0.4, set(), frame.chip_hexes)
    assert found == {h: chips.index(h) for h in group}


def test_a_chipless_island_nothing_in_the_photo_places_makes_the_reading_uncertain(
    shot, monkeypatch
):
    # An island the sea mask cannot judge (its land looks like sea) and with no chip seen on
    # it may lie off the photo's; a reading of the map is then not certain. An island with a
    # chip seen is where the fit on the chips puts it.
    import vision.read_board as read_board_module
    from vision.read_board import is_certain, read_board, unanchored_islands

    reg = register_frame(shot.image, FRAME)
    main, tribe = hex_groups(FRAME.land)[0], hex_groups(FRAME.land)[1]
    assert not set(tribe) & FRAME.chip_hexes and set(main) & reg.chip_hexes
    assert unanchored_islands(replace(reg, unconfirmed=tuple(sorted(main))), BOARD) == []
    adrift = replace(reg, unconfirmed=tuple(sorted(tribe)))
    # (The lattice may take a token on the tribe's island for a chip: it anchors nothing.)
    assert unanchored_islands(adrift, BOARD) == [sorted(tribe)]
    monkeypatch.setattr(read_board_module, "register_frame", lambda image, frame: adrift)
    board = read_board(shot.image, pieces=False, known=BOARD)
    assert not is_certain(board)
    assert any("could not be checked" in w and str(tribe[0]) in w for w in board.warnings)
