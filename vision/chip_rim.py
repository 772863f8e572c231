"""The rim of a chip seen through a homography that is a little off.

Registration fits one homography to the whole board; on a steep view (more than ~45 degrees)
its local scale is off at the far rows, so a chip cut through it comes out an ellipse, not a
circle (``catan_55_0``: 0.75-0.85 across against along), and its numeral and dots squashed
with it. :func:`rim_ellipse` finds the paper's rim in such a crop, so that the crop can be cut
again with the ellipse made round (``vision.read_board.photo_chip_crop``'s ``fix``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

#: rays cast from the crop's centre to find the rim
_RAYS = 72
#: the rim is looked for between these multiples of the expected radius
_NEAR, _FAR = 0.6, 1.45
#: a rim point agrees with the fitted ellipse within this share of the radius
_INLIER = 0.06
#: at least this share of the rays must find the rim on the ellipse
_MIN_INLIERS = 0.75
#: the paper must be this much lighter (grey levels) than what lies outside the rim
_MIN_STEP = 18.0
#: axes ratios (minor / major) accepted: rounder is left alone, flatter is no chip
_MAX_RATIO, _MIN_RATIO = 0.92, 0.6


def rim_ellipse(
    crop: np.ndarray, centre: tuple[float, float], radius: float
) -> tuple[tuple[float, float], tuple[float, float], float] | None:
    """The chip's rim as an ellipse, when the crop shows a clearly non-round one.

    Args:
        crop: BGR uint8 (H, W, 3), cut around the chip with room beyond its rim (at least
            ``_FAR`` radii from the centre to each side would be best; rays stop at the edge).
        centre: where the chip's centre is expected, ``(x, y)`` in crop pixels.
        radius: the expected radius in crop pixels.

    Returns:
        ``((cx, cy), (a, b), angle)``: centre, semi-axes (``a`` major) in crop pixels and the
        major axis's angle in radians from +x; None when the rim is not found on enough rays,
        is round (minor / major above ``_MAX_RATIO``), too flat, or far from what was expected.
    """
    grey = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), 1.5).astype(np.float32)
    h, w = grey.shape
    angles = np.linspace(0.0, 2 * math.pi, _RAYS, endpoint=False)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])  # (R, 2)
    steps = np.arange(_NEAR * radius, _FAR * radius, 0.5)  # (S,)
    # The step across the rim at each point of each ray: paper inside, darker outside.
    lag = max(2.0, 0.06 * radius)
    at = np.asarray(centre, np.float32)[None, None, :]

    def at_distance(dist: np.ndarray) -> np.ndarray:
        return (at + dist[None, :, None] * dirs[:, None, :]).astype(np.float32)  # (R, S, 2)

    inner, outer = at_distance(steps - lag), at_distance(steps + lag)
    step = cv2.remap(grey, inner[..., 0], inner[..., 1], cv2.INTER_LINEAR) - cv2.remap(
        grey, outer[..., 0], outer[..., 1], cv2.INTER_LINEAR
    )  # (R, S)
    # Rays stop at the crop's edge.
    off = (
        (outer[..., 0] < 0)
        | (outer[..., 0] > w - 1)
        | (outer[..., 1] < 0)
        | (outer[..., 1] > h - 1)
    )
    step[off] = -np.inf
    best = np.argmax(step, axis=1)
    found = step[np.arange(_RAYS), best] >= _MIN_STEP
    points = np.asarray(centre) + steps[best[found], None] * dirs[found]
    if len(points) < _MIN_INLIERS * _RAYS:
        return None
    pts = points.astype(np.float32)
    for _ in range(3):
        (cx, cy), (d1, d2), deg = cv2.fitEllipse(pts)
        resid = _residual(pts, (cx, cy), (d1 / 2, d2 / 2), math.radians(deg))
        keep = resid < _INLIER * radius
        if keep.sum() < _MIN_INLIERS * _RAYS:
            return None
        if keep.all():
            break
        pts = pts[keep]
    a, b, t = d1 / 2, d2 / 2, math.radians(deg)
    if b > a:
        a, b, t = b, a, t + math.pi / 2
    if not _MIN_RATIO <= b / a <= _MAX_RATIO:
        return None
    if math.hypot(cx - centre[0], cy - centre[1]) > 0.25 * radius:
        return None
    if not 0.75 * radius < math.sqrt(a * b) < 1.3 * radius:
        return None
    return (float(cx), float(cy)), (float(a), float(b)), float(t)


def _residual(
    pts: np.ndarray, centre: tuple[float, float], axes: tuple[float, float], angle: float
) -> np.ndarray:
    """Approximate distance (pixels) of each point (N, 2) from the ellipse: the radial gap
    between the point and the ellipse along the ray from its centre."""
    c, s = math.cos(angle), math.sin(angle)
    x, y = pts[:, 0] - centre[0], pts[:, 1] - centre[1]
    u, v = c * x + s * y, -s * x + c * y
    r = np.hypot(u, v)
    on = 1.0 / np.sqrt(
        (u / np.maximum(r, 1e-9) / axes[0]) ** 2 + (v / np.maximum(r, 1e-9) / axes[1]) ** 2
    )
    return np.abs(r - on)


def round_affine(
    ellipse: tuple[tuple[float, float], tuple[float, float], float],
    centre: tuple[float, float],
    radius: float,
) -> np.ndarray:
    """float (3, 3): the map from a crop in which the chip is the circle ``centre``/``radius``
    to the crop in which it is ``ellipse`` (see :func:`rim_ellipse`)."""
    (cx, cy), (a, b), t = ellipse
    c, s = math.cos(t), math.sin(t)
    rot = np.array([[c, -s], [s, c]])
    lin = rot @ np.diag([a / radius, b / radius]) @ rot.T
    out = np.eye(3)
    out[:2, :2] = lin
    out[:2, 2] = np.array([cx, cy]) - lin @ np.array(centre)
    return out
