"""The robber and the pirate ship, found on rendered photos and on hand-made masks."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.board import Terrain
from companion.layouts import random_board
from vision.read_board import read_board
from vision.robber import figure_blobs
from vision.scoring import best_alignment
from vision.synth.boards import seafarers_board
from vision.synth.render import Conditions, render_board

CLEAN = Conditions(chip_style="plain")


def _read(truth, conditions: Conditions, seed: int):  # noqa: ANN001, ANN202
    render = render_board(truth, rng=seed, conditions=conditions)
    board = read_board(render.image)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right == score.terrain_total, "the test needs a well-read board"
    return board, aligned


@pytest.mark.parametrize(
    ("seed", "conditions"),
    [
        (3, replace(CLEAN, tilt_deg=25)),
        (4, replace(CLEAN, tilt_deg=35, white_balance=(0.85, 1.0, 1.2), brightness=0.75)),
        (5, replace(CLEAN, tilt_deg=15, light_gradient=0.2, blur_sigma=0.8, noise_sigma=3.0)),
    ],
)
def test_the_robber_is_found_on_its_hex(seed: int, conditions: Conditions) -> None:
    truth = random_board(4, seed=seed)
    board, aligned = _read(truth, conditions, seed)
    assert board.robber == aligned(truth.robber)
    assert not any("robber" in w for w in board.warnings)


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_a_robber_beside_a_chip_is_found_or_not_claimed(seed: int) -> None:
    """Moved onto a numbered hex it half covers the chip: seen, or honestly not seen."""
    truth = random_board(4, seed=seed)
    land = sorted(h for h, t in truth.tiles.items() if t.number is not None)
    truth = replace(truth, robber=land[seed % len(land)])
    board, aligned = _read(truth, replace(CLEAN, tilt_deg=20), seed)
    assert board.robber in (None, aligned(truth.robber))


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_a_hand_over_the_board_never_makes_a_wrong_robber(seed: int) -> None:
    truth = random_board(4, seed=seed)
    render = render_board(truth, rng=seed, conditions=replace(CLEAN, tilt_deg=20, hands=2))
    board = read_board(render.image)
    score, aligned = best_alignment(truth.tiles, board.tiles)
    assert score.terrain_right >= score.terrain_total - 3, "the board itself must be found"
    assert board.robber in (None, aligned(truth.robber))


def test_no_robber_in_view_is_said_not_guessed() -> None:
    truth = replace(random_board(4, seed=6), robber=None)
    board, _ = _read(truth, replace(CLEAN, tilt_deg=20), 6)
    assert board.robber is None
    assert "the robber is not in view" in board.warnings


def test_the_pirate_is_found_and_harbour_tokens_are_not_taken_for_it() -> None:
    truth = next(
        b for b in (seafarers_board(np.random.default_rng(s)) for s in range(8, 40)) if b.harbors
    )
    assert truth.harbors, "the test needs harbour tokens lying on the sea"
    board, aligned = _read(truth, replace(CLEAN, tilt_deg=20), 0)
    assert board.pirate == aligned(truth.pirate)
    assert board.robber == aligned(truth.robber)


def test_a_base_board_has_no_pirate() -> None:
    truth = random_board(4, seed=9)
    board, _ = _read(truth, replace(CLEAN, tilt_deg=10), 9)
    assert board.pirate is None


def test_two_figures_make_an_ambiguous_reading_not_a_choice() -> None:
    truth = random_board(4, seed=10)
    render = render_board(truth, rng=10, conditions=replace(CLEAN, tilt_deg=0))
    # Paint a second grey figure, about the robber's size, below the chip of a pasture or field.
    other = next(
        h for h, t in truth.tiles.items() if t.terrain in (Terrain.PASTURE, Terrain.FIELDS)
    )
    from companion.board import hex_center
    from vision.register import project

    hom = render.homography
    c = project(hom, np.array([hex_center(other)]) + [0.0, 0.64])[0]
    unit = np.linalg.norm(
        project(hom, np.array([[1.0, 0.0]])) - project(hom, np.array([[0.0, 0.0]]))
    )
    image = render.image.copy()
    axes = (int(0.2 * unit), int(0.17 * unit))
    cv2.ellipse(image, (int(c[0]), int(c[1])), axes, 0, 0, 360, (90, 90, 90), -1, cv2.LINE_AA)
    board = read_board(image)
    assert board.robber is None
    assert any(w.startswith("uncertain: the robber") for w in board.warnings)


def _disc_mask(size: int, centre: tuple[int, int], radius: int) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, centre, radius, 1, -1)
    return mask.astype(bool)


def test_a_compact_blob_inside_the_hex_is_a_figure() -> None:
    mask = _disc_mask(101, (70, 50), 12)
    assert figure_blobs(mask, (50.0, 50.0), 50.0) == [int(mask.sum())]


def test_what_comes_in_over_the_edge_is_not_a_figure() -> None:
    mask = np.zeros((101, 101), bool)
    mask[:, 85:] = True  # an arm across the window's edge
    circle = _disc_mask(101, (50, 50), 50)
    assert figure_blobs(mask & circle, (50.0, 50.0), 50.0) == []


def test_a_ring_is_not_a_figure() -> None:
    ring = _disc_mask(101, (50, 50), 25) & ~_disc_mask(101, (50, 50), 21)
    assert figure_blobs(ring, (50.0, 50.0), 50.0) == []


def test_a_blob_leaning_in_from_a_corner_is_not_a_figure() -> None:
    mask = _disc_mask(101, (50, 8), 6)  # centred near the window's edge, not touching it much
    assert figure_blobs(mask, (50.0, 50.0), 50.0) == []
