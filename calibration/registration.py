"""Find the board for calibration: ``vision.register``, refitted on the chips it found.

Calibration needs the board's registration (where each hex is) to sample colours and to lock
the board. Registration is vision's job; it is imported here lazily, in the one place that
needs it, so that ``calibration`` keeps to capture-level dependencies on ``vision`` elsewhere.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from companion.board import hex_center


def register_board(image: np.ndarray, kind: str | None) -> Any:
    """The board's registration, its homography refitted on the chips it found."""
    try:
        from vision.register import register
    except ImportError:
        raise ValueError("board registration (vision.register) is not installed") from None
    reg = register(image, kind)
    reg.homography = refit_on_chips(
        reg.homography, list(reg.hexes), np.array([[c.x, c.y] for c in reg.candidates])
    )
    return reg


def refit_on_chips(
    homography: np.ndarray, hexes: list[tuple[int, int]], chips_px: np.ndarray
) -> np.ndarray:
    """Refit a board homography on the chip discs seen near the hex centres it predicts.

    Colours are sampled at the borders, corners and sides, where a registration a fifth of a
    hex off lands on the wrong thing; every chip sits at its hex's centre, so the chips found
    within a third of a hex of a predicted centre pin the homography down again.

    Args:
        homography: float (3, 3) board plane -> image pixels.
        hexes: the board's hexes.
        chips_px: float (N, 2) chip centres found in the image, pixels.

    Returns:
        The refitted homography, or the given one when fewer than 8 chips match.
    """
    if len(chips_px) == 0:
        return homography
    plane = np.array([hex_center(h) for h in hexes], np.float64)
    pred = cv2.perspectiveTransform(plane.reshape(-1, 1, 2), homography).reshape(-1, 2)
    # A hex's size in pixels near each centre: distance to the point one radius away.
    step = cv2.perspectiveTransform((plane + [1.0, 0.0]).reshape(-1, 1, 2), homography)
    radius = np.linalg.norm(step.reshape(-1, 2) - pred, axis=1)
    src, dst = [], []
    for p, q, r in zip(plane, pred, radius, strict=True):
        d = np.linalg.norm(chips_px - q, axis=1)
        j = int(np.argmin(d))
        if d[j] < r / 3:
            src.append(p)
            dst.append(chips_px[j])
    if len(src) < 8:
        return homography
    refit, mask = cv2.findHomography(
        np.array(src), np.array(dst), cv2.RANSAC, float(np.median(radius)) * 0.1
    )
    if refit is None or int(mask.sum()) < 8:
        return homography
    return refit / refit[2, 2]
