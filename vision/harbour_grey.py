"""The last two harbours of a frame: ore's rocks and wool's sheep, told apart by the grass.

The current art's rocks and sheep are both grey, dark and about as large: no colour of
:func:`vision.harbours.read_icons` tells them. When every other harbour of a frame's set is
read (the "3:1" texts, brick, grain and lumber), ore and wool are left, and they lie where
two grey icons are seen on sides not read yet. Two cues tell them, and both must agree: the
sheep stands on a strip of green grass and the rocks on nothing, and the rocks lie along the
side, wider than high, while the sheep stands upright.

An icon here is one blob of art (not sea blue, not the icon's light halo) near the icon's
place, detached from the coast line, as large as an icon, shaded (its darkest tenth dark:
the planks of a pier beside it are not), mostly not brown or golden (not a brick, a sheaf
or a beach), and not a streak.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.harbour_text import STEP, plane_samples

#: The patch around an icon's place: along the side either way, and from/to out (hex radii).
_HALF, _NEAR, _FAR = 0.3, 0.15, 0.75


@dataclass(frozen=True)
class GreyIcon:
    """A grey icon seen off a side.

    Attributes:
        grass: green pixels (a* < -6, b* > -8) round the icon's place.
        along, out: the icon's centre along the side and out from it, hex radii.
        elongation: the blob's spread along the side over its spread out (standard
            deviations): the rocks lie along the side (1.4-1.8), the sheep stands (0.9-1.4).
        warm: share of the blob brown or golden (a* > 0, b* > 8): the rocks have none, the
            logs 0.2-0.5.
    """

    grass: int
    along: float
    out: float
    elongation: float
    warm: float


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
    return plane_samples(lab, plane_to_top, pts)


def grey_icon(
    patch: np.ndarray,
    *,
    place: float = 0.43,
    reach: float = 0.25,
    min_area: float = 0.006,
    max_shade: float = 40.0,
    max_warm: float = 0.3,
    max_elongation: float = 2.2,
    grass_reach: float = 0.22,
) -> GreyIcon | None:
    """Is there a grey icon off this side, how much grass beside it, and what shape is it?

    Args:
        patch: float32 (R, C, 3) from :func:`icon_patch`.
        place: distance out of the icon's place, hex radii.
        reach: how far (hex radii, along and out) the blob's centre may lie from the place.
        min_area: least area of the blob, hex radii squared (an icon is 0.2-0.3 across).
        max_shade: most L* of the blob's darkest tenth: rocks and sheep are shaded (at most
            28 on layout E, 33-36 on F's lighter print), the piers' planks and the beach are
            not (at least 44).
        max_warm: most share of the blob that is brown or golden (a* > 0, b* > 8): not a
            brick or a sheaf (at least 0.69 on E). The logs (0.2-0.5) are read before this is
            asked (:func:`vision.harbours.read_icons`).
        max_elongation: most :attr:`GreyIcon.elongation` (a streak along the coast, a
            frame's edge, is no icon).
        grass_reach: radius (hex radii) round the icon's centre in which green is counted.

    Returns:
        None without such an icon, else the :class:`GreyIcon`.
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
        if area * STEP * STEP < min_area or not near or touches_coast or area <= best_area:
            continue
        # A pier beside the icon may be larger than it: the icon is the shaded blob.
        if float(np.percentile(light[labels == j], 10)) <= max_shade:
            best, best_area = j, area
    if best == 0:
        return None
    inside = labels == best
    px_blob = patch[inside]
    warm = float(((px_blob[:, 1] > 0.0) & (px_blob[:, 2] > 8.0)).mean())
    ys, xs = np.nonzero(inside)
    elongation = float(xs.std() / max(float(ys.std()), 1e-6))
    if warm > max_warm or elongation > max_elongation:
        return None
    yy, xx = np.mgrid[0:rows, 0:cols]
    # Round the icon, not its place: an icon printed a quarter of a hex radius along from
    # where the registration puts it has its grass beside it, not beside the place.
    disc = np.hypot(yy - centres[best, 1], xx - centres[best, 0]) * STEP <= grass_reach
    grass = int(((a < -6.0) & (b > -8.0) & disc).sum())
    return GreyIcon(
        grass,
        float(centres[best, 0] * STEP - _HALF),
        float(_FAR - centres[best, 1] * STEP),
        elongation,
        warm,
    )


# The cues that tell the three grey icons apart (layout E's figures in ore_and_wool): the
# least green pixels round the sheep, the elongation from which an icon lies along the side
# like the rocks, and the share of brown that parts the logs from the rocks.
_GRASS, _LYING, _BROWN = 8, 1.35, 0.1


def ore_and_wool(
    icons: Sequence[GreyIcon],
    least: int = _GRASS,
    ratio: float = 2.0,
    wider: float = 1.2,
    lying: float = _LYING,
    rock_warm: float = _BROWN,
) -> tuple[int, int] | None:
    """Which of the grey icons are the rocks and the sheep (indices), or None when the cues
    do not say it.

    The sheep is the icon standing on grass: at least ``least`` green pixels
    (:func:`grey_icon`, at :data:`vision.harbour_text.STEP` a pixel) and ``ratio`` times
    every other icon's. The rocks lie along the side, wider than high, while the sheep stands
    upright: exactly one other icon is at least ``wider`` times as elongated
    (:attr:`GreyIcon.elongation`) as the sheep and at least ``lying``, and has no brown (at
    most ``rock_warm``). The logs lie along the side too, but shorter and brown: on layout E
    their elongation is 1.2-1.26 and their brown share 0.2-0.4, the rocks' 1.43-1.62 and 0,
    the sheep's 0.9-1.0; the sheep's grass (round the icon) 9-59 pixels against the rocks'
    0. Other dark blobs near a place (the bushes printed on the beach) have no grass and do
    not lie along the side: they are neither.

    >>> sheep, rocks = GreyIcon(41, 0.0, 0.43, 0.95, 0.0), GreyIcon(0, 0.0, 0.43, 1.6, 0.0)
    >>> logs = GreyIcon(0, 0.0, 0.43, 1.3, 0.3)
    >>> ore_and_wool([sheep, rocks]), ore_and_wool([logs, rocks, sheep])
    ((1, 0), (1, 2))
    >>> ore_and_wool([GreyIcon(41, 0.0, 0.43, 1.6, 0.0), rocks]) is None  # no shape says it
    True
    >>> ore_and_wool([GreyIcon(5, 0.0, 0.43, 0.95, 0.0), rocks]) is None  # too little grass
    True
    >>> ore_and_wool([sheep, rocks, rocks]) is None  # which are the rocks?
    True
    """
    if len(icons) < 2:
        return None
    wool = max(range(len(icons)), key=lambda i: icons[i].grass)
    sheep = icons[wool]
    others = [i for i in range(len(icons)) if i != wool]
    if sheep.grass < least or any(sheep.grass < ratio * max(icons[i].grass, 1) for i in others):
        return None
    rocks = [
        i
        for i in others
        if icons[i].elongation >= max(lying, wider * sheep.elongation)
        and icons[i].warm <= rock_warm
    ]
    return (rocks[0], wool) if len(rocks) == 1 else None


def is_logs(
    icon: GreyIcon, brown: float = _BROWN, lying: float = _LYING, least: int = _GRASS
) -> bool:
    """Can a grey icon be the logs? Brown in part (at least ``brown``: the rocks and the
    bushes printed on the beach have next to none), not lying along the side like the rocks
    (elongation below ``lying``), not on grass like the sheep (fewer than ``least`` green
    pixels). On layout E the logs' brown share is 0.2-0.41, the rocks' 0, the bushes'
    0.01-0.05.

    >>> is_logs(GreyIcon(0, 0.1, 0.4, 1.26, 0.2)), is_logs(GreyIcon(0, 0.2, 0.43, 1.5, 0.0))
    (True, False)
    """
    return icon.warm >= brown and icon.elongation < lying and icon.grass < least


def is_rocks(
    icon: GreyIcon, lying: float = _LYING, rock_warm: float = _BROWN, least: int = _GRASS
) -> bool:
    """Is a grey icon the rocks, seen alone? It lies along the side (elongation at least
    ``lying``), has no brown (at most ``rock_warm``) and stands on no grass (fewer than
    ``least`` green pixels): the cues :func:`ore_and_wool` tells the rocks by, without a
    sheep to compare with. The logs are brown, the sheep on grass, the beach's bushes round.

    >>> is_rocks(GreyIcon(0, 0.2, 0.4, 1.56, 0.0)), is_rocks(GreyIcon(32, 0.0, 0.5, 1.4, 0.0))
    (True, False)
    """
    return icon.elongation >= lying and icon.warm <= rock_warm and icon.grass < least
