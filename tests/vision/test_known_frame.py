"""Registering a scenario's map by its known frame (its hexes, sea and chips), and naming it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.board import Board, Terrain, Tile, base_frame, hex_center
from companion.layouts import random_board
from companion.scenario import load_scenario
from vision.known_board import register_known
from vision.known_frame import KnownFrame, register_frame
from vision.register import NoBoardError, project
from vision.synth.render import Conditions, render_board


def errors_in_hexes(reg_h: np.ndarray, truth_h: np.ndarray, board: Board) -> np.ndarray:
    """Distances from each true hex centre to the registered one, in hex spacings."""
    centres = np.array([hex_center(h) for h in board.tiles])
    step = np.array([hex_center((0, 0)), hex_center((1, 0))])
    spacing = float(np.linalg.norm(np.diff(project(truth_h, step), axis=0)))
    return np.linalg.norm(project(reg_h, centres) - project(truth_h, centres), axis=1) / spacing


def named_right(reg_h: np.ndarray, truth_h: np.ndarray, board: Board) -> bool:
    """Every hex lies nearer its own place than a neighbour's, most of them close to it (the
    lattice is extrapolated to the far chip-less hexes: fog, a desert, sea)."""
    e = errors_in_hexes(reg_h, truth_h, board)
    return bool(e.max() < 0.5 and np.median(e) < 0.1)


@pytest.mark.parametrize(
    ("scenario", "players", "seed", "tilt", "turn"),
    [
        ("new-shores", 4, 1, 12.0, 5.0),
        ("four-islands", 3, 2, 20.0, 130.0),
        ("fog-islands", 4, 1, 15.0, 250.0),
        ("through-the-desert", 3, 0, 25.0, 300.0),
        ("new-york", 4, 2, 10.0, 70.0),  # a Big Box country map (no ships)
    ],
)
def test_a_scenario_map_is_found_in_the_games_names(scenario, players, seed, tilt, turn):
    board = load_scenario(scenario, players, seed=seed).board
    cond = Conditions(tilt_deg=tilt, tilt_dir_deg=40.0, rotation_deg=turn)
    shot = render_board(board, width=960, height=540, rng=seed, conditions=cond)
    frame = KnownFrame.of_board(board)
    reg = register_frame(shot.image, frame)
    assert not reg.ambiguous and reg.kind == board.kind
    assert sorted(reg.hexes) == sorted(board.tiles)
    assert set(reg.sea_hexes) == frame.sea and frame.sea  # the tracker's sea is the map's
    assert named_right(reg.homography, shot.homography, board)
    # The camera link's registrar takes it as it is: the map lies no other way.
    named = register_known(shot.image, board)
    assert named_right(named.homography, shot.homography, board)


def test_a_map_seen_in_part_or_another_map_is_refused():
    board = load_scenario("new-shores", 4, seed=1).board
    shot = render_board(board, width=960, height=540, rng=1, conditions=Conditions(tilt_deg=10))
    # Half the chips of the map are not on the table: a lattice of the rest could lie anywhere.
    chips = sorted(h for h, t in board.tiles.items() if t.number is not None)
    half = {h: Tile(t.terrain) if h in chips[::2] else t for h, t in board.tiles.items()}
    partial = render_board(
        replace(board, tiles=half), width=960, height=540, rng=1, conditions=Conditions()
    )
    with pytest.raises(NoBoardError, match="not seen whole|do not lie"):
        register_frame(partial.image, KnownFrame.of_board(board))
    other = load_scenario("four-islands", 4, seed=1).board
    with pytest.raises(NoBoardError):
        register_frame(shot.image, KnownFrame.of_board(other))


def test_a_map_that_lies_the_same_turned_is_named_by_its_terrain():
    # A base layout in a ring of sea: chips, sea and hexes look the same turned six ways.
    land = random_board(4, seed=2)
    ring = {
        (q, r): Tile(Terrain.SEA)
        for q in range(-3, 4)
        for r in range(-3, 4)
        if max(abs(q), abs(r), abs(q + r)) == 3
    }
    board = replace(land, kind="seafarers", tiles={**land.tiles, **ring})
    centre = next(h for h, t in board.tiles.items() if t.terrain == Terrain.DESERT)
    board = replace(
        board, tiles={**board.tiles, centre: board.tiles[(0, 0)], (0, 0): board.tiles[centre]}
    )
    frame = KnownFrame.of_board(board)
    assert len(frame.symmetries()) == 6
    shot = render_board(
        board, width=960, height=540, rng=3, conditions=Conditions(rotation_deg=100)
    )
    reg = register_frame(shot.image, frame)
    assert not reg.ambiguous  # its placements are one board, turned
    named = register_known(shot.image, board)
    assert named_right(named.homography, shot.homography, board)
    assert set(base_frame()) <= set(named.hexes)
