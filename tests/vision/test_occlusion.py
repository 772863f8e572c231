"""Hands and objects over the board: found as smooth regions that no printed tile makes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.board import Hex, base_frame, hex_center, hex_corner_points
from vision.occlusion import cover_mask, covered_fraction

_PX = 30.0


def _top_view(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[Hex]]:
    """A drawn top view of a base board: textured tiles with light borders in a sea frame,
    one smooth (desert-like) tile at the centre."""
    hexes = list(base_frame())
    plane_to_top = np.array([[_PX, 0, 6 * _PX], [0, _PX, 6 * _PX], [0, 0, 1]])
    size = int(12 * _PX)
    top = np.zeros((size, size, 3), np.float32)
    top[:] = (170, 110, 40)  # sea
    top += rng.normal(0, 3, top.shape)
    for i, h in enumerate(hexes):
        corners = np.array(hex_corner_points(h)) * _PX + plane_to_top[:2, 2]
        mask = np.zeros((size, size), np.uint8)
        cv2.fillPoly(mask, [np.round(corners).astype(np.int32)], 1)
        if h == (0, 0):
            colour = np.array([135, 195, 215], np.float32)
            top[mask > 0] = colour  # smooth, like sand
        else:
            colour = np.array([40 + 10 * (i % 5), 110 + 12 * (i % 4), 60 + 15 * (i % 6)])
            texture = rng.normal(0, 18, (int(mask.sum()), 3))
            top[mask > 0] = colour + texture
        cv2.polylines(top, [np.round(corners).astype(np.int32)], True, (150, 200, 220), 2)
    return top, plane_to_top, hexes


def _arm(size: int, start: tuple[float, float], end: tuple[float, float]) -> np.ndarray:
    """An arm's footprint: a thick band from ``start`` to ``end`` (pixels)."""
    mask = np.zeros((size, size), np.uint8)
    a = tuple(int(v) for v in start)
    b = tuple(int(v) for v in end)
    cv2.line(mask, a, b, 1, int(1.1 * _PX))
    cv2.circle(mask, b, int(0.8 * _PX), 1, -1)
    return mask > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_an_arm_reaching_in_covers_the_hexes_under_it(seed: int) -> None:
    rng = np.random.default_rng(seed)
    top, plane_to_top, hexes = _top_view(rng)
    size = top.shape[0]
    centre = np.array(hex_center((1, -1))) * _PX + plane_to_top[:2, 2]
    arm = _arm(size, (size, 0.1 * size), tuple(centre))
    # Skin, smoothly shaded across the arm.
    shade = cv2.GaussianBlur(arm.astype(np.float32), (0, 0), 6)
    top[arm] = np.array([120, 150, 205]) * (0.8 + 0.2 * shade[arm])[:, None]
    image = np.clip(top, 0, 255).astype(np.uint8)

    found = covered_fraction(
        cover_mask(image, plane_to_top, hexes, [True] * len(hexes)), plane_to_top, hexes
    )
    truth = covered_fraction(arm, plane_to_top, hexes)
    assert truth.max() > 0.9  # the arm does hide some hex wholly
    for f, t, h in zip(found, truth, hexes, strict=True):
        if t > 0.9:
            assert f > 0.75, h
        if t == 0.0:
            assert f == 0.0, h


def test_a_smooth_tile_is_not_taken_for_a_hand() -> None:
    top, plane_to_top, hexes = _top_view(np.random.default_rng(2))
    image = np.clip(top, 0, 255).astype(np.uint8)
    mask = cover_mask(image, plane_to_top, hexes, [True] * len(hexes))
    assert not mask.any()


def test_the_sea_is_not_taken_for_a_hand() -> None:
    # A Seafarers map: sea hexes inside the frame are as smooth as the frame around them.
    top, plane_to_top, hexes = _top_view(np.random.default_rng(3))
    for h in hexes[:5]:
        corners = np.array(hex_corner_points(h)) * _PX + plane_to_top[:2, 2]
        cv2.fillPoly(top, [np.round(corners).astype(np.int32)], (170, 110, 40))
    image = np.clip(top, 0, 255).astype(np.uint8)
    land = [h not in hexes[:5] for h in hexes]
    assert not cover_mask(image, plane_to_top, hexes, land).any()
