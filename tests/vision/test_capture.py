"""Capture sources: one interface over folders, video files, cameras and the synthetic game."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.board import Piece, Vertex, vertex_position
from companion.layouts import random_board
from vision.capture import (
    CameraSource,
    ImageFolderSource,
    SceneStep,
    SyntheticGameSource,
    VideoFileSource,
)

BOARD = random_board(3, seed=4)


def test_image_folder_in_name_order_skipping_non_images(tmp_path: Path) -> None:
    for i, name in enumerate(["b.png", "a.png", "c.jpg"]):
        cv2.imwrite(str(tmp_path / name), np.full((8, 10, 3), i * 40, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    (tmp_path / "broken.png").write_bytes(b"not a png")
    with ImageFolderSource(tmp_path, fps=2.0) as src:
        frames = list(src)
    assert [t for t, _ in frames] == [0.0, 0.5, 1.0]
    # a.png (40), b.png (0), c.jpg (80): name order, broken.png skipped
    assert [int(f[0, 0, 0]) for _, f in frames] == [40, 0, 80]


def test_image_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such folder"):
        ImageFolderSource(tmp_path / "missing")
    with pytest.raises(ValueError, match="no images"):
        ImageFolderSource(tmp_path)
    with pytest.raises(ValueError, match="fps"):
        ImageFolderSource(tmp_path, fps=0)


def test_video_file_frames_and_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    for i in range(5):
        writer.write(np.full((24, 32, 3), 50 * i, np.uint8))
    writer.release()
    with VideoFileSource(path) as src:
        frames = list(src)
    assert len(frames) == 5
    assert [round(t, 3) for t, _ in frames] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert frames[0][1].shape == (24, 32, 3) and frames[0][1].dtype == np.uint8
    brightness = [float(f.mean()) for _, f in frames]
    assert brightness == sorted(brightness)


def test_video_file_and_camera_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such video"):
        VideoFileSource(tmp_path / "none.mp4")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises(ValueError, match="cannot be opened"):
        VideoFileSource(junk)
    with pytest.raises(ValueError, match=">= 0"):
        CameraSource(-1)
    with pytest.raises(ValueError, match="cannot be opened"):
        CameraSource(str(tmp_path / "no-such-stream.mjpg"))


def test_synthetic_game_timeline_and_truth() -> None:
    settlement = Piece("settlement", "red", vertex=Vertex(0, 0, "N"))
    after = replace(BOARD, pieces=[settlement])
    steps = [
        SceneStep(BOARD, duration_s=0.4),
        SceneStep(after, reach=vertex_position(settlement.vertex), duration_s=1.0),
        SceneStep(after, bump=True, glare=True, duration_s=0.4),
    ]
    src = SyntheticGameSource(steps, width=160, height=120, fps=10, seed=1, reach_s=0.6)
    truths = []
    times = []
    for t, frame in src:
        assert frame.shape == (120, 160, 3) and frame.dtype == np.uint8
        assert src.truth is not None
        times.append(t)
        truths.append(
            (
                src.truth.step,
                list(src.truth.board.pieces),
                src.truth.hand_mask is not None,
                src.truth.homography.copy(),
                src.truth.changed_at,
                src.truth.glare,
            )
        )
    assert len(times) == 18 and times == sorted(times)
    assert times[1] - times[0] == pytest.approx(0.1)
    step1 = [x for x in truths if x[0] == 1]
    # The hand is in view for the first 0.6 s of step 1; the settlement appears halfway.
    assert [x[2] for x in step1] == [True] * 6 + [False] * 4
    assert [bool(x[1]) for x in step1] == [False] * 3 + [True] * 7
    assert step1[3][4] == pytest.approx(0.4 + 0.3)
    # The bump moves the board for good; glare only on its step.
    before, bumped = truths[0][3], truths[-1][3]
    assert not np.allclose(before, bumped)
    assert truths[-1][5] and not truths[0][5]


def test_synthetic_game_is_reproducible_and_closes() -> None:
    steps = [SceneStep(BOARD, duration_s=0.2)]
    a = [f for _, f in SyntheticGameSource(steps, width=96, height=80, fps=10, seed=3)]
    b = [f for _, f in SyntheticGameSource(steps, width=96, height=80, fps=10, seed=3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    src = SyntheticGameSource([SceneStep(BOARD, duration_s=5.0)], width=96, height=80, fps=10)
    it = iter(src)
    next(it)
    src.close()
    assert list(it) == []


def test_synthetic_game_errors() -> None:
    with pytest.raises(ValueError, match="no steps"):
        SyntheticGameSource([])
    with pytest.raises(ValueError, match="fps"):
        SyntheticGameSource([SceneStep(BOARD)], fps=0)
    with pytest.raises(ValueError, match="duration"):
        SyntheticGameSource([SceneStep(BOARD, duration_s=0)])
    with pytest.raises(ValueError, match="drift"):
        SyntheticGameSource([SceneStep(BOARD)], drift=0.9)
