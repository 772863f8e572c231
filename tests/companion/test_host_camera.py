"""A table's real camera names corners and sides like the game's board."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.board import hex_center
from companion.host import TableHost
from companion.journal import JournaledGame
from companion.layouts import random_board
from vision.register import project
from vision.synth.render import Conditions, render_board


def test_a_board_from_json_is_followed_in_the_games_names(tmp_path: Path) -> None:
    # This board, seen this way, is named 120 degrees off by the reader on its own.
    board = random_board(4, seed=1)
    shot = render_board(board, width=960, height=540, rng=1, conditions=Conditions())
    video = tmp_path / "camera.avi"  # a video file stands in for the webcam
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (960, 540))
    for _ in range(3):
        writer.write(shot.image)
    writer.release()
    jg = JournaledGame.create(tmp_path / "j.sqlite", board, ["red", "blue", "white"], seed=1)
    host = TableHost(jg, camera=str(video))
    host.start()
    try:
        host.camera_link.join(30)  # the video runs out
        detector = host.camera_link.tracker.detector
        assert detector is not None
        centres = np.array([hex_center(h) for h in board.tiles])
        seen = project(detector.homography, centres)
        assert np.abs(seen - project(shot.homography, centres)).max() < 4.0
    finally:
        host.stop()
