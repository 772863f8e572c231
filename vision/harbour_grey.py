"""The last two harbours of a frame: ore's rocks and wool's sheep, told apart by the grass.

The current art's rocks and sheep are both grey, dark and about as large: no colour of
:func:`vision.harbours.read_icons` tells them. When every other harbour of a frame's set is
read (the "3:1" texts, brick, grain and lumber), ore and wool are left, and they lie where
two grey icons are seen on sides not read yet. The sheep stands on a strip of green grass
and the rocks on nothing: of the two, the side with clearly more green is wool, the other ore.

An icon here is one blob of art (not sea blue, not the icon's light halo) near the icon's
place, detached from the coast line, as large as an icon, and grey and dark: a part of it
near black (the rocks' and the sheep's shadows), next to nothing brown or golden (not logs,
not a beach, not a sheaf).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.harbour_text import STEP

#: The patch around an icon's place: along the side either way, and from/to out (hex radii).
_HALF, _NEAR, _FAR = 0.3, 0.15, 0.75


def icon_patch(
    lab: np.ndarray, plane_to_top: np.ndarray, mid: np.ndarray, normal: np.ndarray
) -> np.ndarray:
    """CIELAB off one side on its own axes, :data:`vision.harbour_text.STEP` a pixel.

    Args:
        lab: float32 (H, W, 3) the top view in CIELAB, white-balanced on the chips.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        mid: (2,) the side's midpoint; normal: (2,) unit vector out to sea (board plane).

    Returns:
        float32 (R, C, 3): row 0 lies ``_FAR`` out, the last ``_NEAR``; NaN off the view.
    """
    along = np.array([-normal[1], normal[0]])
    cols = np.arange(-_HALF, _HALF + STEP / 2, STEP)
    rows = np.arange(_FAR, _NEAR - STEP / 2, -STEP)
    pts = mid + cols[None, :, None] * along + rows[:, None, None] * normal
    x = (pts[..., 0] * plane_to_top[0, 0] + plane_to_top[0, 2]).astype(np.float32)
    y = (pts[..., 1] * plane_to_top[1, 1] + plane_to_top[1, 2]).astype(np.float32)
    nan = float("nan")
    return cv2.remap(
        np.asarray(lab, np.float32),
        x,
        y,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(nan, nan, nan, nan),
    )


def grey_icon(
    patch: np.ndarray,
    *,
    place: float = 0.43,
    reach: float = 0.2,
    min_area: float = 0.006,
    min_dark: float = 0.25,
    max_warm: float = 0.05,
    grass_reach: float = 0.22,
) -> tuple[int, float, float] | None:
    """Is there a grey icon off this side, and how much grass beside it?

    Args:
        patch: float32 (R, C, 3) from :func:`icon_patch`.
        place: distance out of the icon's place, hex radii.
        reach: how far (hex radii, along and out) the blob's centre may lie from the place.
        min_area: least area of the blob, hex radii squared (an icon is 0.2-0.3 across).
        min_dark: least share of the blob near black (L* < 35).
        max_warm: most share of the blob that is brown or golden (a* > 0, b* > 8).
        grass_reach: radius (hex radii) round the place in which green is counted.

    Returns:
        None without such an icon, else the number of green pixels (a* < -6, b* > -8) round
        the place, and the icon's centre along the side and out from it (hex radii).
    """
    if np.isnan(patch[..., 0]).any():
        return None
    light, a, b = patch[..., 0], patch[..., 1], patch[..., 2]
    halo = (light > 72.0) & (np.hypot(a, b) < 15.0)
    art = (b > -12.0) & ~halo
    n, labels, stats, centres = cv2.connectedComponentsWithStats(
        art.astype(np.uint8), connectivity=8
    )
    rows, cols = art.shape
    py, px = (_FAR - place) / STEP, (cols - 1) / 2.0
    best, best_area = 0, 0
    for j in range(1, n):
        area = int(stats[j, cv2.CC_STAT_AREA])
        touches_coast = stats[j, cv2.CC_STAT_TOP] + stats[j, cv2.CC_STAT_HEIGHT] >= rows
        near = max(abs(centres[j, 0] - px), abs(centres[j, 1] - py)) * STEP <= reach
        if area * STEP * STEP >= min_area and near and not touches_coast and area > best_area:
            best, best_area = j, area
    if best == 0:
        return None
    px_blob = patch[labels == best]
    dark = float((px_blob[:, 0] < 35.0).mean())
    warm = float(((px_blob[:, 1] > 0.0) & (px_blob[:, 2] > 8.0)).mean())
    if dark < min_dark or warm > max_warm:
        return None
    yy, xx = np.mgrid[0:rows, 0:cols]
    disc = np.hypot(yy - py, xx - px) * STEP <= grass_reach
    grass = int(((a < -6.0) & (b > -8.0) & disc).sum())
    return grass, float(centres[best, 0] * STEP - _HALF), float(_FAR - centres[best, 1] * STEP)


def wool_of_pair(grass: tuple[int, int], least: int = 25, ratio: float = 3.0) -> int | None:
    """Which of two grey icons is the sheep (0 or 1), or None when the grass does not say.

    ``grass`` is each icon's green pixel count (:func:`grey_icon`, at
    :data:`vision.harbour_text.STEP` a pixel); the sheep's side has at least ``least`` and
    ``ratio`` times the other's.

    >>> wool_of_pair((41, 0)), wool_of_pair((5, 37)), wool_of_pair((9, 0)), wool_of_pair((50, 20))
    (0, 1, None, None)
    """
    hi = int(np.argmax(grass))
    lo = grass[1 - hi]
    return hi if grass[hi] >= least and grass[hi] >= ratio * max(lo, 1) else None
