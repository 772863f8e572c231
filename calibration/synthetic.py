"""Synthetic ground truth for calibration: pattern views through a known camera, set-up boards.

A view is rendered by following each pixel backwards: pixel -> normalised distorted
coordinates -> undistorted (by fixed-point iteration of the distortion model) -> ray -> the
pattern's plane -> the pattern image. Pixels are supersampled so that edges are anti-aliased
without bias, then the frame is lightly blurred and noised like a webcam's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.pattern import Pattern
from companion.board import Board, Piece

# The distortion is inverted exactly on a grid this coarse (pixels), then interpolated:
# the inverse is a smooth low-order function, so cubic interpolation loses nothing visible.
_COARSE_STEP = 4
_TEXTURE_PX_PER_MM = 8.0
_TEXTURE_MARGIN_MM = 15.0


@dataclass(frozen=True)
class Pose:
    """Where the pattern is relative to the camera.

    Attributes:
        rvec: float64 (3,) Rodrigues rotation, pattern frame -> camera frame.
        tvec: float64 (3,) pattern origin in the camera frame, millimetres.
    """

    rvec: np.ndarray
    tvec: np.ndarray


def _distort_normalised(x: np.ndarray, y: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, ...]:
    k1, k2, p1, p2, k3 = dist
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def _undistort_normalised(
    xd: np.ndarray, yd: np.ndarray, dist: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Invert the distortion by fixed-point iteration, to 1e-12."""
    x, y = xd.copy(), yd.copy()
    for _ in range(200):
        fx, fy = _distort_normalised(x, y, dist)
        ex, ey = fx - xd, fy - yd
        # Converges while the distortion's Jacobian stays near identity, as it does for
        # the barrel/pincushion strengths of real webcams within their picture.
        x, y = x - ex, y - ey
        if max(float(np.abs(ex).max()), float(np.abs(ey).max())) < 1e-12:
            break
    return x, y


def render_view(
    pattern: Pattern,
    model: CameraModel,
    pose: Pose,
    *,
    supersample: int = 2,
    blur_sigma: float = 0.5,
    noise_sigma: float = 1.5,
    background: int = 110,
    rng: np.random.Generator | int | None = None,
) -> np.ndarray:
    """The pattern as ``model``'s camera sees it from ``pose``.

    Args:
        pattern: the printed pattern (with its white margin of 15 mm).
        model: the true camera, distortion included.
        pose: the pattern's pose in the camera frame (millimetres).
        supersample: samples per pixel along each axis.
        blur_sigma: Gaussian blur of the lens, pixels (0 for none).
        noise_sigma: sensor noise, grey levels.
        background: grey level of the table around the paper.
        rng: noise source or seed.

    Returns:
        uint8 (H, W) grey frame of the model's image size.
    """
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    w, h = model.image_size
    kinv = np.linalg.inv(model.matrix)
    # Exact inverse distortion on a coarse grid of pixel positions.
    gx = np.arange(-_COARSE_STEP, w + 2 * _COARSE_STEP, _COARSE_STEP, dtype=np.float64)
    gy = np.arange(-_COARSE_STEP, h + 2 * _COARSE_STEP, _COARSE_STEP, dtype=np.float64)
    uu, vv = np.meshgrid(gx, gy)
    xd = kinv[0, 0] * uu + kinv[0, 1] * vv + kinv[0, 2]
    yd = kinv[1, 1] * vv + kinv[1, 2]
    xu, yu = _undistort_normalised(xd, yd, model.dist)
    # Supersample positions (pixel centres at integers), mapped into the coarse grid.
    s = supersample
    su = (np.arange(w * s, dtype=np.float64) + 0.5) / s - 0.5
    sv = (np.arange(h * s, dtype=np.float64) + 0.5) / s - 0.5
    mu, mv = np.meshgrid((su - gx[0]) / _COARSE_STEP, (sv - gy[0]) / _COARSE_STEP)
    mu, mv = mu.astype(np.float32), mv.astype(np.float32)
    # remap quantises positions to 1/32 of a coarse cell: good as a start, then a few
    # fixed-point steps at full resolution make the inverse exact again.
    x = cv2.remap(xu.astype(np.float32), mu, mv, cv2.INTER_CUBIC)
    y = cv2.remap(yu.astype(np.float32), mu, mv, cv2.INTER_CUBIC)
    xd = (kinv[0, 0] * su + kinv[0, 2]).astype(np.float32)[None, :] + (kinv[0, 1] * sv).astype(
        np.float32
    )[:, None]
    yd = np.broadcast_to((kinv[1, 1] * sv + kinv[1, 2]).astype(np.float32)[:, None], x.shape)
    for _ in range(2):
        fx, fy = _distort_normalised(x, y, model.dist)
        x, y = x - (fx - xd), y - (fy - yd)
    # Ray (x, y, 1) meets the pattern plane: plane point ~ inv([r1 r2 t]) @ (x, y, 1).
    rot, _ = cv2.Rodrigues(np.asarray(pose.rvec, np.float64))
    plane_to_norm = np.column_stack([rot[:, 0], rot[:, 1], np.asarray(pose.tvec, np.float64)])
    m = np.linalg.inv(plane_to_norm)
    den = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    px = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / den
    py = (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / den
    del x, y
    texture = pattern.render(_TEXTURE_PX_PER_MM, _TEXTURE_MARGIN_MM)
    tx = ((px + _TEXTURE_MARGIN_MM) * _TEXTURE_PX_PER_MM - 0.5).astype(np.float32)
    ty = ((py + _TEXTURE_MARGIN_MM) * _TEXTURE_PX_PER_MM - 0.5).astype(np.float32)
    behind = den <= 0
    tx[behind], ty[behind] = -1e6, -1e6
    fine = cv2.remap(
        texture.astype(np.float32) * 0.8 + 30.0,  # paper is not pure white, ink not pure black
        tx,
        ty,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=float(background),
    )
    frame = cv2.resize(fine, (w, h), interpolation=cv2.INTER_AREA)
    if blur_sigma > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), blur_sigma)
    if noise_sigma > 0:
        frame = frame + gen.normal(0.0, noise_sigma, frame.shape).astype(np.float32)
    return np.clip(np.round(frame), 0, 255).astype(np.uint8)


def random_poses(
    pattern: Pattern,
    model: CameraModel,
    count: int,
    rng: np.random.Generator | int | None = None,
    *,
    max_tilt_deg: float = 45.0,
    margin_px: float = 12.0,
) -> list[Pose]:
    """Poses a user would take: the whole pattern in the picture, spread over it, tilted.

    The pattern is placed at a distance where it spans 35-70 % of the image width, its centre
    spread over the picture, tilted up to ``max_tilt_deg`` about a random in-plane axis and
    turned a little; poses that push a corner out of the picture are drawn again.

    Returns:
        ``count`` poses.
    """
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    w, h = model.image_size
    pw, ph = pattern.size_mm()
    outline = np.array([[0, 0, 0], [pw, 0, 0], [pw, ph, 0], [0, ph, 0]], np.float64)
    centre = np.array([pw / 2, ph / 2, 0.0])
    poses: list[Pose] = []
    for _ in range(count * 200):
        if len(poses) == count:
            break
        span = gen.uniform(0.35, 0.7)
        distance = model.fx * pw / (span * w)
        tilt = math.radians(gen.uniform(0.0, max_tilt_deg))
        axis_angle = gen.uniform(0, 2 * math.pi)
        spin = math.radians(gen.uniform(-20, 20))
        r_tilt, _ = cv2.Rodrigues(np.array([math.cos(axis_angle), math.sin(axis_angle), 0]) * tilt)
        r_spin, _ = cv2.Rodrigues(np.array([0.0, 0.0, spin]))
        rot = r_tilt @ r_spin
        target = np.array([gen.uniform(0.1, 0.9) * w, gen.uniform(0.1, 0.9) * h, 1.0])
        ray = np.linalg.inv(model.matrix) @ target
        tvec = ray / ray[2] * distance - rot @ centre
        rvec, _ = cv2.Rodrigues(rot)
        pts, _ = cv2.projectPoints(outline, rvec, tvec, model.matrix, model.dist)
        pts = pts.reshape(-1, 2)
        inside = (
            (pts[:, 0] >= margin_px).all()
            and (pts[:, 0] <= w - 1 - margin_px).all()
            and (pts[:, 1] >= margin_px).all()
            and (pts[:, 1] <= h - 1 - margin_px).all()
        )
        if inside:
            poses.append(Pose(rvec.ravel(), tvec.ravel()))
    if len(poses) < count:
        raise ValueError("could not place the pattern in the picture: is the camera model sane?")
    return poses


def with_setup_pieces(board: Board, players: Sequence[str], seed: int) -> Board:
    """``board`` with every player's founding pieces on it: 2 settlements and 2 roads each.

    Sites are drawn at random (not by the distance rule: colours do not care), no site twice.
    The board is changed in place and returned.
    """
    from calibration.colors import board_sites

    rng = random.Random(seed)
    vs, es = board_sites(board.tiles)
    spots_v = rng.sample(vs, 2 * len(players))
    spots_e = rng.sample(es, 2 * len(players))
    board.pieces = []
    for i, colour in enumerate(players):
        for v in spots_v[2 * i : 2 * i + 2]:
            board.pieces.append(Piece("settlement", colour, vertex=v))
        for e in spots_e[2 * i : 2 * i + 2]:
            board.pieces.append(Piece("road", colour, edge=e))
    return board


#: The camera of the self-checks and tests: 800x600, strong barrel distortion, off-centre.
SELF_CHECK_CAMERA = CameraModel(
    (800, 600),
    np.array([[700.0, 0.0, 404.0], [0.0, 703.0, 296.0], [0.0, 0.0, 1.0]]),
    np.array([-0.28, 0.09, 0.0005, -0.0004, 0.0]),
)
