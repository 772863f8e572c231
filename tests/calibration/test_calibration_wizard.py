"""The web wizard's state machine, driven with synthetic frames."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.pattern import Pattern
from calibration.profiles import ProfileStore
from calibration.synthetic import (
    SELF_CHECK_CAMERA,
    random_poses,
    render_view,
    with_setup_pieces,
)
from calibration.wizard import CalibrationWizard, WizardError
from companion.layouts import random_board
from vision.synth.render import Conditions, render_board

PLAYERS = ["red", "blue", "orange", "white"]


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path)


def board_frame(width: int = 1200, height: int = 900) -> np.ndarray:
    board = with_setup_pieces(random_board(4, seed=11), PLAYERS, 11)
    cond = Conditions(tilt_deg=10.0, rotation_deg=20.0, noise_sigma=1.5)
    return render_board(board, width=width, height=height, rng=11, conditions=cond).image


def decode(jpeg: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def test_full_run_camera_colours_board(store: ProfileStore) -> None:
    wizard = CalibrationWizard(store, "kitchen", players=PLAYERS)
    assert wizard.state()["step"] == "camera"
    assert decode(wizard.preview()).shape == (360, 640, 3)  # before any frame
    with pytest.raises(WizardError, match="at least 3 views"):
        wizard.finish()
    pattern = Pattern()
    for i, pose in enumerate(random_poses(pattern, SELF_CHECK_CAMERA, 5, rng=2)):
        gray = render_view(pattern, SELF_CHECK_CAMERA, pose, rng=i)
        state = wizard.feed(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR))
    assert state["feedback"]["views"] == 5 and state["can_finish"]
    preview = decode(wizard.preview())
    assert preview.shape == (600, 800, 3)
    # Kept corners are drawn in red on the preview.
    assert ((preview[..., 2] > 200) & (preview[..., 1] < 80)).sum() > 50
    state = wizard.finish()
    assert state["step"] == "colors" and state["done"] == ["camera"]
    assert store.load("kitchen").camera is not None

    frame = board_frame(800, 600)  # the camera was calibrated at 800x600
    with pytest.raises(WizardError, match="not been found"):
        wizard.finish()
    state = wizard.feed(np.zeros((600, 800, 3), np.uint8))
    assert state["board_found"] is False and "no board found" in state["message"]
    state = wizard.feed(frame)
    assert state["board_found"] and state["kind"] == "base"
    assert decode(wizard.preview()).shape == (600, 800, 3)
    state = wizard.finish()
    assert state["step"] == "board"
    assert state["saved"]["players"] == sorted(PLAYERS)
    wizard.feed(frame)
    state = wizard.finish()
    assert state["step"] == "done"
    assert store.load("kitchen").sections() == ["camera", "colors", "board_lock"]
    with pytest.raises(WizardError, match="complete"):
        wizard.finish()


def test_camera_step_can_be_skipped_and_only_it(store: ProfileStore) -> None:
    wizard = CalibrationWizard(store, "attic")
    assert wizard.skip()["step"] == "colors"
    with pytest.raises(WizardError, match="cannot be skipped"):
        wizard.skip()
    with pytest.raises(WizardError, match="BGR uint8"):
        wizard.feed(np.zeros((10, 10), np.uint8))


def test_a_failed_colour_step_saves_nothing_and_stays(store: ProfileStore) -> None:
    wizard = CalibrationWizard(store, "attic", players=["red", "green"])
    wizard.skip()
    wizard.feed(board_frame())
    with pytest.raises(WizardError, match="green"):
        wizard.finish()
    assert wizard.state()["step"] == "colors"
    assert not store.exists("attic")
