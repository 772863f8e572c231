"""Registering a frame of a board the game knows, in the game's names."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.board import Terrain, Tile, base_frame, extension_frame, hex_center
from companion.layouts import random_board
from vision.known_board import register_known, symmetries
from vision.register import project, register
from vision.synth.render import Conditions, render_board


def error_px(reg_h: np.ndarray, truth_h: np.ndarray, board) -> float:
    centres = np.array([hex_center(h) for h in board.tiles])
    return float(np.abs(project(reg_h, centres) - project(truth_h, centres)).max())


@pytest.mark.parametrize(
    ("players", "seed", "turn"), [(4, 1, 0.0), (4, 2, 65.0), (3, 3, 200.0), (5, 4, 130.0)]
)
def test_the_camera_names_hexes_like_the_game_however_the_board_lies(players, seed, turn):
    board = random_board(players, seed=seed)
    cond = Conditions(tilt_deg=12.0, tilt_dir_deg=40.0, rotation_deg=turn)
    shot = render_board(board, width=960, height=540, rng=seed, conditions=cond)
    reg = register_known(shot.image, board)
    assert sorted(reg.hexes) == sorted(board.tiles)
    # Every hex centre lands where the render drew that hex (a hex is ~50 px across here).
    assert error_px(reg.homography, shot.homography, board) < 4.0
    assert reg.chip_hexes <= set(board.tiles)


def test_the_reader_alone_may_name_them_another_way():
    # Why the module exists: a turned board's canonical names differ from the game's.
    board = random_board(4, seed=1)
    shot = render_board(board, width=960, height=540, rng=1, conditions=Conditions())
    assert error_px(register(shot.image, "base").homography, shot.homography, board) > 20
    assert error_px(register_known(shot.image, board).homography, shot.homography, board) < 4


def test_symmetries_of_the_frames():
    assert len(symmetries(list(base_frame()), set(base_frame()))) == 6
    assert len(symmetries(list(extension_frame()), set(extension_frame()))) == 2
    assert symmetries(list(base_frame()), set(extension_frame())) == []


def test_a_board_of_another_shape_or_with_symmetric_terrain_is_refused():
    board = random_board(4, seed=1)
    shot = render_board(board, width=960, height=540, rng=1, conditions=Conditions())
    bigger = random_board(5, seed=1)
    with pytest.raises(ValueError, match="frame"):
        register_known(shot.image, replace(bigger, kind="base"))
    plain = {h: Tile(Terrain.FIELDS, t.number) for h, t in board.tiles.items()}
    with pytest.raises(ValueError, match="cannot tell"):
        register_known(shot.image, replace(board, tiles=plain))
