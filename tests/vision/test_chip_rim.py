"""A chip that the board's homography leaves an ellipse is cut out round (vision.chip_rim)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.chip_rim import rim_ellipse
from vision.read_board import _rim_fix, photo_chip_crop
from vision.synth.chip_art import render_chip

R = 24.0  # the chip's radius in the top view, pixels


def _top_view(squash: float, angle_deg: float) -> np.ndarray:
    """A green tile (180 x 180) with a 9 at (90, 90) drawn as an ellipse: radius R along
    ``angle_deg`` and ``squash * R`` across it, as a steep view's far row leaves it."""
    tile = np.full((180, 180, 3), (60, 140, 70), np.uint8)
    d = int(2 * R)
    chip, mask = render_chip(9, style="plain", size_px=d, rotation_deg=0.0)
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    lin = rot @ np.diag([1.0, squash]) @ rot.T
    m = np.hstack([lin, (np.array([90.0, 90.0]) - lin @ np.array([R, R]))[:, None]])
    art = cv2.warpAffine(chip, m, (180, 180), flags=cv2.INTER_LINEAR)
    a = cv2.warpAffine(mask, m, (180, 180), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    return (tile * (1 - a[..., None]) + art * a[..., None]).astype(np.uint8)


def _roundness(crop: np.ndarray) -> float:
    """Axis ratio (short / long) of the light paper in a crop."""
    light = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) > 150).astype(np.uint8)
    light = cv2.morphologyEx(light, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    pts = np.column_stack(np.nonzero(light)[::-1]).astype(np.float32)
    eig = np.linalg.eigvalsh(np.cov(pts.T))
    return float(math.sqrt(eig[0] / eig[1]))


@pytest.mark.parametrize(("squash", "angle"), [(0.75, 0.0), (0.7, 35.0), (0.8, 100.0)])
def test_a_chip_left_an_ellipse_is_cut_round(squash: float, angle: float) -> None:
    top = _top_view(squash, angle)
    # The disc registration reports: the chip's mean radius, at its centre.
    disc = (90.0, 90.0, R * math.sqrt(squash))
    plain = photo_chip_crop(top, np.eye(3), disc)
    fix = _rim_fix(top, np.eye(3), disc)
    assert plain is not None and fix is not None
    fixed = photo_chip_crop(top, np.eye(3), disc, fix=fix)
    assert fixed is not None
    assert _roundness(plain) < squash + 0.1
    assert _roundness(fixed) > 0.95


def test_a_round_chip_and_no_chip_are_left_alone() -> None:
    top = _top_view(1.0, 0.0)
    assert _rim_fix(top, np.eye(3), (90.0, 90.0, R)) is None
    # Flat green (no rim at all): nothing to fit.
    bare = np.full((180, 180, 3), (60, 140, 70), np.uint8)
    assert rim_ellipse(bare, (90.0, 90.0), R) is None
