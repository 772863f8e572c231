"""What lies over the board and hides its art: hands, arms, a rulebook.

Method
------
A hand or an arm reaching over the board is smooth: no printed texture, no tile borders, no
chips, only soft shading; it is also one object spanning much more than a tile. On the
rectified top view (shrunk to about :data:`_PX` pixels per hex radius and smoothed), the
pixels whose CIELAB colour hardly changes from one pixel to the next are joined into regions.
A region covers the board when it is not sea (sea is smooth too, and part of the board) and

- it reaches from the land out past the board's edge or to the edge of what the photo shows
  (an arm comes from outside, over the board's frame or over the photo's border) and over
  a tenth of a hex's ring (the fingers and the shaded rim of a hand are not smooth: its
  smooth middle can hold a small share of a ring the hand half covers), or
- it spans the interiors of several land hexes (no printed tile does).

A smooth tile (the desert, a worn pasture) stays inside its own borders, whose printed edge
breaks the region. Each hex's share of its ring (where :func:`vision.terrain.hex_features`
samples its colour) under such regions is what :func:`covered_fraction` reports.

Example: a view that is all print (noise here) is covered nowhere; a view with no print at all
is one smooth region reaching past the board, covered everywhere.
    >>> import numpy as np
    >>> plane_to_top = np.array([[20.0, 0, 50], [0, 20.0, 50], [0, 0, 1]])
    >>> printed = np.random.default_rng(0).integers(0, 256, (100, 100, 3), dtype=np.uint8)
    >>> mask = cover_mask(printed, plane_to_top, [(0, 0)], [True])
    >>> mask.shape, bool(mask.any())
    ((100, 100), False)
    >>> bool(cover_mask(np.zeros_like(printed), plane_to_top, [(0, 0)], [True]).all())
    True
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from companion.board import Hex, hex_center, hex_corner_points
from vision.register import circle_points, sea_mask

# Working resolution, pixels per hex radius: wide enough for a finger, cheap to label.
_PX = 16.0
# Smoothing (pixels at the working resolution) before the colour gradient: sensor noise and
# JPEG blocks are finer than anything printed.
_BLUR = 1.0
# A pixel is smooth when its CIELAB colour changes by less than this per pixel.
_SMOOTH = 2.0
# A region spans a hex when it covers this share of the hex's ring.
_SPAN = 0.25
# Hexes a region must span (without reaching out past the board) to cover them.
_SPAN_HEXES = 3
# Area outside the land (in hex areas) a region must reach to come from outside the board.
_OUTSIDE = 0.15
# A region that comes from outside the board covers a hex whose ring it reaches by this share
# (an arm's smooth middle: its fingers and shaded rim are not smooth, and the hand's palm
# over a hex can leave 19% of its ring smooth when 44% is under it).
_ARM_SPAN = 0.1
# Pixels (at the working resolution) next to what the photo does not show that count as its
# edge: the blur (1 px) and the gradient's kernel (1 px) spread the jump to black over them.
_EDGE = 3
# How far (hex radii) a covering region is grown over its own rim.
_GROW = 0.12
# Radii (hex radii) of the ring sampled per hex, as vision.terrain samples it.
_RING = (0.45, 0.8)


def _ring_points(scale: float) -> np.ndarray:
    """Offsets (pixels) of the ring's sample points from a hex centre."""
    return circle_points(np.linspace(*_RING, 6) * scale, 48)


def _sample(mask: np.ndarray, plane_to_px: np.ndarray, hx: Hex, ring: np.ndarray) -> np.ndarray:
    """The mask's values at a hex's ring points (points outside the mask are left out)."""
    cx, cy = hex_center(hx)
    scale = float(plane_to_px[0, 0])
    px = ring + [cx * scale + plane_to_px[0, 2], cy * scale + plane_to_px[1, 2]]
    xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
    h, w = mask.shape
    ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    return mask[yi[ok], xi[ok]]


def cover_mask(
    top: np.ndarray,
    plane_to_top: np.ndarray,
    hexes: Sequence[Hex],
    land: Sequence[bool],
    in_view: np.ndarray | None = None,
) -> np.ndarray:
    """Pixels of the top view covered by something lying over the board.

    Args:
        top: rectified top view, BGR uint8 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels, a scale and
            translation (as :func:`vision.register.rectify` returns).
        hexes: the board's hexes.
        land: for each hex, whether it is land (sea hexes are smooth and belong to the board).
        in_view: bool (H, W), where the photo shows the top view (None: all of it). A region
            touching the edge of what the photo shows comes from outside the board as one
            reaching past its edge does: an arm can come in over the photo's border where the
            board runs off it.

    Returns:
        bool (H, W), True where the board is covered.
    """
    h, w = top.shape[:2]
    f = min(1.0, _PX / float(plane_to_top[0, 0]))
    small = cv2.resize(
        top, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA
    )
    plane_to_small = np.diag([f, f, 1.0]) @ plane_to_top
    lab = cv2.GaussianBlur(
        cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab), (0, 0), _BLUR
    )
    grad = np.zeros(lab.shape[:2], np.float32)
    for c in range(3):
        gx = cv2.Sobel(lab[..., c], cv2.CV_32F, 1, 0, ksize=3) / 8.0
        gy = cv2.Sobel(lab[..., c], cv2.CV_32F, 0, 1, ksize=3) / 8.0
        grad += gx * gx + gy * gy
    smooth = (np.sqrt(grad) < _SMOOTH).astype(np.uint8)
    n, labels = cv2.connectedComponents(smooth, connectivity=4)
    if n <= 1:
        return np.zeros((h, w), bool)
    land_px = np.zeros(smooth.shape, np.uint8)
    for hx, is_land in zip(hexes, land, strict=True):
        if is_land:
            corners = np.array(hex_corner_points(hx)) @ plane_to_small[:2, :2].T
            corners += plane_to_small[:2, 2]
            cv2.fillPoly(land_px, [np.round(corners).astype(np.int32)], 1)
    scale = float(plane_to_small[0, 0])
    hex_area = 1.5 * np.sqrt(3.0) * scale * scale
    outside = np.bincount(labels[land_px == 0].ravel(), minlength=n) / hex_area
    ring = _ring_points(scale)
    spans = np.zeros(n, int)
    reaches = np.zeros(n, int)
    for hx, is_land in zip(hexes, land, strict=True):
        if not is_land:
            continue
        values = _sample(labels, plane_to_small, hx, ring)
        if len(values):
            share = np.bincount(values, minlength=n) / len(values)
            spans += share >= _SPAN
            reaches += share >= _ARM_SPAN
    spans[0] = reaches[0] = 0  # label 0: the textured pixels
    from_outside = outside >= _OUTSIDE
    if in_view is not None:
        view = cv2.resize(
            in_view.astype(np.uint8), smooth.shape[::-1], interpolation=cv2.INTER_NEAREST
        )
        # The jump to the black beyond the photo is not smooth for the blur's and the
        # gradient's reach: a band that wide is the edge.
        edge = (cv2.dilate(1 - view, np.ones((2 * _EDGE + 1,) * 2, np.uint8)) > 0) & (view > 0)
        from_outside |= np.bincount(labels[edge].ravel(), minlength=n) > 0
    cover = (spans >= _SPAN_HEXES) | ((reaches >= 1) & from_outside)
    cover[0] = False
    blue = sea_mask(small)
    for k in np.nonzero(cover)[0]:
        if blue[labels == k].mean() > 0.5:
            cover[k] = False
    out = cover[labels].astype(np.uint8)
    # The object's shaded rim is not smooth, yet covers the art as well.
    grow = max(1, round(_GROW * scale))
    out = cv2.dilate(out, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1,) * 2))
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)


def covered_fraction(
    mask: np.ndarray, plane_to_top: np.ndarray, hexes: Sequence[Hex]
) -> np.ndarray:
    """Share (0..1) of each hex's ring that ``mask`` (from :func:`cover_mask`) covers."""
    ring = _ring_points(float(plane_to_top[0, 0]))
    out = np.zeros(len(hexes))
    for i, hx in enumerate(hexes):
        values = _sample(mask, plane_to_top, hx, ring)
        out[i] = float(values.mean()) if len(values) else 0.0
    return out
