"""The trade ratio printed beside a harbour: "3:1" tells a generic harbour where it lies.

Method
------
The current art prints no token: a generic harbour is the ratio "3:1" alone, in dark ink on
the sea about 0.2-0.55 hex radii off its side, its baseline along the side, upright as seen
from the sea or from the land (both occur on one frame). A harbour of one resource prints a
small icon with a much smaller "2:1" under it. Each coast side is looked at on a patch of its
own axes (along the side, out to sea), resampled from the top view at :data:`STEP` hex
radii, and the text is looked for as what it is, not as "some dark strokes" (waves, piers and
the frame's joints have those too):

* *ink* is what is darker than its surroundings by ``ink`` L* units: the patch's lightness
  closed by a disc wider than a stroke, minus the lightness (a black-hat);
* a *ratio* is two digit-sized blobs of one height (0.08-0.18 hex radii) side by side on one
  baseline, a wide one (the "3" or "2") and a narrow one (the "1"), with a colon's small blob
  between them; the side the "1" lies on says whether the text is upright or turned half a
  turn;
* the wide digit, turned upright, is a "3" or a "2" by where its lower half lies: a "3"
  closes its lower bowl on the right and is empty on the left there, a "2" runs its diagonal
  and its foot to the left. Only a clear "3" is reported.

A text seen from two sides (two land hexes facing one stretch of sea) is the side's whose
icon place (0.43 hex radii off its midpoint) is nearest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.board import Hex
from vision.numeric import median

Site = tuple[Hex, str]

#: Sampling step of the patches, hex radii (the top view has up to 90 pixels a hex radius).
STEP = 0.01


@dataclass(frozen=True)
class RatioText:
    """A trade ratio read beside a coast side.

    Attributes:
        digit: 3 or 2, the ratio's first digit, or None when it is neither clearly.
        height: the digits' height, hex radii.
        along: the text's centre along the side from its midpoint, hex radii.
        out: the text's centre out from the side, hex radii.
        upright: True when the text reads from the sea side (its top is away from the land).
        lean: 0..1, where the wide digit's lower half lies across its box (left to right).
    """

    digit: int | None
    height: float
    along: float
    out: float
    upright: bool
    lean: float


def side_patch(
    lightness: np.ndarray,
    plane_to_top: np.ndarray,
    mid: np.ndarray,
    along: np.ndarray,
    normal: np.ndarray,
    *,
    half_width: float = 0.5,
    near: float = 0.12,
    far: float = 0.75,
) -> np.ndarray:
    """The lightness off one side on the side's own axes.

    Args:
        lightness: float32 (H, W) top view's L*.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels (scale and
            translation).
        mid: (2,) the side's midpoint, board plane.
        along: (2,) unit vector along the side, to the right of ``normal`` on the top view;
            normal: (2,) unit vector out to sea.
        half_width: the patch spans this far either way along the side, hex radii.
        near, far: the patch spans from ``near`` to ``far`` out from the side, hex radii.

    Returns:
        float32 (R, C): row 0 is the farthest out (the sea side up), column 0 the most
        negative along the side, :data:`STEP` hex radii a pixel; NaN off the top view.
    """
    cols = np.arange(-half_width, half_width + STEP / 2, STEP)
    rows = np.arange(far, near - STEP / 2, -STEP)
    pts = mid + cols[None, :, None] * along + rows[:, None, None] * normal
    return plane_samples(lightness, plane_to_top, pts)


def plane_samples(top: np.ndarray, plane_to_top: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The top view sampled (bilinear) at board-plane points.

    Args:
        top: float (H, W) or (H, W, K) with K <= 4, an image of the top view.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels (scale and
            translation).
        points: float (R, C, 2) board-plane points, hex radii.

    Returns:
        float32 (R, C) or (R, C, K): the samples; NaN off the top view.

    >>> p2t = np.array([[10.0, 0.0, 5.0], [0.0, 10.0, 5.0], [0.0, 0.0, 1.0]])
    >>> ramp = np.tile(np.arange(10, dtype=np.float32), (10, 1))
    >>> plane_samples(ramp, p2t, np.array([[[0.0, 0.0], [0.25, 0.0], [2.0, 0.0]]]))
    array([[5. , 7.5, nan]], dtype=float32)
    """
    x = (points[..., 0] * plane_to_top[0, 0] + plane_to_top[0, 2]).astype(np.float32)
    y = (points[..., 1] * plane_to_top[1, 1] + plane_to_top[1, 2]).astype(np.float32)
    nan = float("nan")
    return cv2.remap(
        np.asarray(top, np.float32),
        x,
        y,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(nan, nan, nan, nan),
    )


def digit_lean(glyph: np.ndarray) -> float:
    """Where the lower half of an upright digit's ink lies across its box: 0 left, 1 right.

    A "3" closes its lower bowl on the right (about 0.6 and more), a "2" runs its diagonal
    and foot to the left (below 0.5).

    Args:
        glyph: bool (h, w) the digit's ink, upright, cut to its box.

    Returns:
        The mean column (0..1) of the ink in rows 55-85% down the box; NaN without ink there.

    >>> two = np.zeros((10, 6), bool); two[0, :] = two[:5, 5] = True
    >>> two[5, 3] = two[6, 2] = two[7, 1] = two[8:, 0] = two[9, :] = True
    >>> round(digit_lean(two), 2)
    0.42
    """
    h, w = glyph.shape
    _, xs = np.nonzero(glyph[int(0.55 * h) : max(int(0.85 * h), int(0.55 * h) + 1)])
    return float((xs.mean() + 0.5) / w) if len(xs) else float("nan")


def find_ratio(
    patch: np.ndarray,
    *,
    ink: float = 12.0,
    stroke_gap: float = 0.09,
    heights: tuple[float, float] = (0.08, 0.18),
    wide: tuple[float, float] = (0.45, 0.9),
    narrow: float = 0.56,
    spacing: tuple[float, float] = (0.7, 2.2),
    three: float = 0.55,
    two: float = 0.45,
) -> RatioText | None:
    """The ratio printed in a side's patch (:func:`side_patch`), or None.

    Args:
        patch: float32 (R, C) lightness, :data:`STEP` hex radii a pixel, the sea side up.
        ink: least darkening (L*) of an ink pixel below its surroundings.
        stroke_gap: width (hex radii) of the closing that fills strokes in: the surroundings.
        heights: least and most height of a digit, hex radii.
        wide: least and most width/height of the ratio's first digit ("3", "2").
        narrow: most width/height of its last digit ("1"), which is also the narrower.
        spacing: least and most distance between the two digits' centres, in digit heights.
        three: least :func:`digit_lean` of a "3".
        two: most :func:`digit_lean` of a "2".

    Returns:
        The ratio nearest the patch's centre line when several are found; its ``along`` and
        ``out`` are in the patch's pixel axes until :func:`read_ratios` converts them.
    """
    # Off the view is filled with the patch's own median: white there would make every
    # stroke beside the view's edge (a far side's text) part of one dark border.
    off = np.isnan(patch)
    fill = float(median(patch[~off])) if off.any() and not off.all() else 100.0
    light = np.where(off, fill, patch)
    k = max(3, 2 * int(round(stroke_gap / STEP / 2)) + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    dark = cv2.morphologyEx(light, cv2.MORPH_CLOSE, kernel) - light
    n, labels, stats, centres = cv2.connectedComponentsWithStats(
        (dark > ink).astype(np.uint8), connectivity=8
    )
    # Python numbers: the pairs' few tests cost less than indexing NumPy rows one by one.
    w_px = stats[:, cv2.CC_STAT_WIDTH].tolist()
    h_px = stats[:, cv2.CC_STAT_HEIGHT].astype(float).tolist()
    cx, cy = centres[:, 0].tolist(), centres[:, 1].tolist()
    digits = [j for j in range(1, n) if heights[0] <= h_px[j] * STEP <= heights[1]]
    found: list[RatioText] = []
    for i in digits:
        for j in digits:
            h = max(h_px[i], h_px[j])
            dx = cx[j] - cx[i]
            if (
                i == j
                or not 0.75 <= h_px[i] / h_px[j] <= 1.33
                or abs(cy[i] - cy[j]) > 0.3 * h
                or not spacing[0] * h <= abs(dx) <= spacing[1] * h
            ):
                continue
            wi, wj = w_px[i] / h_px[i], w_px[j] / h_px[j]
            if not (wide[0] <= wi <= wide[1] and wj <= narrow and w_px[j] < w_px[i]):
                continue
            mid = (centres[i] + centres[j]) / 2.0
            colon = [
                c
                for c in range(1, n)
                if c not in (i, j)
                and abs(cx[c] - mid[0]) < 0.3 * h
                and abs(cy[c] - mid[1]) < 0.6 * h
                and max(h_px[c], w_px[c]) < 0.5 * h
            ]
            if not colon:
                continue
            x, y, w, hh = stats[i, :4]
            glyph = labels[y : y + hh, x : x + w] == i
            # The "1" lies right of the digit in upright text, left of it turned half a turn.
            upright = bool(dx > 0)
            if not upright:
                glyph = glyph[::-1, ::-1]
            lean = digit_lean(glyph)
            digit = 3 if lean >= three else 2 if lean <= two else None
            found.append(RatioText(digit, h * STEP, float(mid[0]), float(mid[1]), upright, lean))
    if not found:
        return None
    centre = (patch.shape[1] - 1) / 2.0
    return min(found, key=lambda r: abs(r.along - centre))


def _glared(patch: np.ndarray, glare: float) -> bool:
    """Is the patch (float32 L*, NaN off the view) under a glare: its median above ``glare``?"""
    seen = patch[~np.isnan(patch)]
    return bool(len(seen)) and float(median(seen)) > glare


def read_ratios(
    lightness: np.ndarray,
    plane_to_top: np.ndarray,
    mids: np.ndarray,
    normals: np.ndarray,
    *,
    half_width: float = 0.5,
    near: float = 0.12,
    far: float = 0.75,
    reach: float = 0.25,
    outs: tuple[float, float] = (0.15, 0.6),
    place: float = 0.43,
    glare: float = 75.0,
    glare_ink: float = 6.0,
) -> list[RatioText | None]:
    """The ratio printed beside each side, where there is one.

    Args:
        lightness: float32 (H, W) the top view's L*.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        mids, normals: float (N, 2) each side's midpoint and unit vector out to sea, board
            plane (whose axes are the top view's: y down).
        half_width, near, far: the patch looked at (see :func:`side_patch`).
        reach: how far along the side (hex radii) the text's centre may lie from its midpoint.
        outs: how near and far out (hex radii) the text's centre may lie.
        place: distance out of the harbour's place (hex radii): a text near two sides is the
            side's whose place is nearest.
        glare: a patch whose median L* is above this lies under a glare (the sea is 40-60
            elsewhere on boards-dev's labelled photos, 76-94 under their glares).
        glare_ink: the ink asked of a glared patch's strokes (L* below their surroundings):
            the glare's white light halves the print's contrast and more (vieja_E_5's "3:1"
            under one is found at 3-8, not 10).

    Returns:
        Per side, its :class:`RatioText` (``along`` and ``out`` in hex radii) or None.
    """
    # Along the side to the right of the sea's "up" (the plane's y runs down, as the top
    # view's): every patch then shows the board unmirrored, and printed text reads either
    # upright or turned half a turn.
    alongs = np.column_stack([-normals[:, 1], normals[:, 0]])
    # One contiguous copy for every side's resampling (a channel of the CIELAB view is not).
    lightness = np.ascontiguousarray(lightness, np.float32)
    found: list[RatioText | None] = []
    for mid, along, normal in zip(mids, alongs, normals, strict=True):
        patch = side_patch(
            lightness, plane_to_top, mid, along, normal, half_width=half_width, near=near, far=far
        )
        r = find_ratio(patch, ink=glare_ink if _glared(patch, glare) else 12.0)
        if r is not None:
            a, o = -half_width + r.along * STEP, far - r.out * STEP
            r = RatioText(r.digit, r.height, a, o, r.upright, r.lean)
            if abs(a) > reach or not outs[0] <= o <= outs[1]:
                r = None
        found.append(r)
    places = mids + place * normals
    for i, r in enumerate(found):
        if r is None:
            continue
        centre = mids[i] + r.along * alongs[i] + r.out * normals[i]
        if int(np.argmin(np.linalg.norm(places - centre, axis=1))) != i:
            found[i] = None
    return found


def generic_harbours(
    texts: list[RatioText | None], middle: float = 0.5, width: float = 0.02
) -> dict[int, float]:
    """The sides (by index) whose text is a clear "3:1", with a confidence from its "3"'s
    :func:`digit_lean` (a logistic half-way between a "2" and a "3")."""
    out: dict[int, float] = {}
    for i, r in enumerate(texts):
        if r is not None and r.digit == 3:
            z = float(min(max((r.lean - middle) / width, -50.0), 50.0))
            out[i] = round(1.0 / (1.0 + math.exp(-z)), 4)
    return out
