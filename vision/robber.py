"""The robber and the pirate ship on a rectified board: which hex each one stands on.

Method
------
Both figures are dark or grey, colourless plastic standing inside a hex, where the printed art
is colourful and textured. On the top view (see :func:`vision.register.rectify`) each hex is
looked at inside a disc around its centre that leaves out the chip and stops short of the
corners and sides (where the players' pieces stand), in CIELAB white-balanced on the chips.
A pixel is *figure-like* when it is nearly colourless (grey or black plastic), not as light
as a white piece, and far from the hex's own art (its median colour) by more than the art's
own texture. Blobs of such pixels are figures only if they have a figure's shape and place:
compact, solid, about the figure's size, standing on the art rather than coming in over the
edge of the window (a hand, an arm, a shadow, a piece leaning in from a corner). A figure
standing on the chip hides its numeral: the chips that could not be read, or were read with
doubt, are searched too, against the chip's own paper (see :func:`figure_mask`).

The robber is looked for on land hexes, the pirate on sea hexes. A hex is named only when its
blob is large enough and clearly larger than the next hex's (``margin``); when two hexes
compete, the reading is *ambiguous* and the caller must say so rather than pick one.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.board import Hex, hex_center
from vision.numeric import median, quantile

# Footprints, in square hex radii: a standing robber seen from above covers about a fifth of
# a hex radius squared; a pirate ship about a third.
_ROBBER_AREA = 0.18
_PIRATE_AREA = 0.2
# The ship's hull and sail, a thin seam apart (and parted further by the pixel test's
# opening), are joined by a closing of this diameter (hex radii): the hull alone is too
# long and thin for a figure, the sail too small.
_PIRATE_JOIN = 0.1
# The pirate ship is black: no lighter than this (L*).
_PIRATE_LIGHTNESS = 35.0
# The most colour (CIELAB chroma) a figure's pixel may have: the figures are grey or black.
_FIGURE_CHROMA = 22.0
# The chips' paper in CIELAB under a neutral lamp (the renderer's and the printed editions'
# cream, within a few units).
_CHIP_PAPER = (85.0, 1.0, 14.0)
# The examined disc (hex radii): inside the hex's inscribed circle (0.866), so the tile border
# and the pieces on its corners and sides stay out.
_WINDOW = 0.85
# Least ratio of a figure blob's area to its convex hull's.
_SOLIDITY = 0.45
# A figure is about as long as it is wide (a robber, a ship seen from above); the edge of an
# arm or a shadow is a long thin strip.
_MAX_ELONGATION = 3.5
# A figure stands on the art: at least this fraction of the ring around it looks like the art.
_ART_AROUND = 0.6
_ART, _OTHER = 1, 2
_RING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (13, 13))
# The ring starts this far out (its inner kernel): the blurred edge of a figure is neither it
# nor the art.
_HALO = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
# The longest arc of the window's edge a figure may touch (what comes in from outside the hex
# meets the edge along a longer one), measured in bins of _ARC_BIN_DEG degrees.
_MAX_ARC_DEG = 30.0
_ARC_BIN_DEG = 5.0
# The farthest a figure's centre lies from the hex centre, as a fraction of the window radius.
_MAX_OFFCENTRE = 0.75
# A chip's paper is the median of the lightest quarter of its disc (most of a chip is paper,
# even with a figure on it); a figure on it is darker than the paper by at least this (L*).
_PAPER_QUANTILE = 75.0
_DARKER_THAN_PAPER = 10.0
# On a chip, figure-like pixels are opened by a disc of this diameter (hex radii): a bold
# numeral's strokes (up to about 0.1 hex radii wide) go, a figure's body (0.4 wide) stays.
_INK_STROKE = 0.2
# On a chip a figure must cover this fraction of its footprint: the boldest numerals leave up
# to 0.127 square hex radii after the opening (blurred; 6138 chips of seed 0's renders), a
# robber on its chip mostly 0.16..0.25.
_ON_CHIP_FRACTION = 0.9
# A figure beside a chip reaches over it: a blob keeps what it has on the chip when this
# share of it at least lies beside the chip...
_BESIDE_SHARE = 0.1
# ... and what it has on the chip lies within this distance (hex radii) of what lies beside.
_REACH = 0.3
# For the robber, a pixel this much less colourful (CIELAB chroma) than the art, and more
# than the art's own chroma varies, is unlike the art whatever the art's lightness texture
# (see figure_mask). Not for the pirate: the black ship is darker than any sea.
_PALER = 12.0
# For the robber, smooth plastic on busy art: a pixel whose neighbourhood (a square of
# _GRAIN pixels) varies in lightness less than this share of the art's own median variation,
# and that differs from the art by min_delta, seeds a figure; the pixels within _GRAIN of it
# that differ as much join it (the square's edge band, which its own edge makes busy), and a
# blob of mostly such pixels is kept only when its median variation is below the same share.
# Grey plastic on grey rock differs by 8-12 CIELAB units under a colour cast, less than the
# rock's texture, but the rock varies 2-4 times as much from pixel to pixel (seed 0's
# renders, robber off the desert: the rock 1.6-2.5 L*, a dark forest's 2.5-3.8, the robber
# 0.35-0.8 in the blob's median; a hand's shadow over the rock 1.0, half the rock's).
_SMOOTHER = 0.4
_GRAIN = 5
# ... only where the art is busy at that scale (L*, median over the window): smooth art (a
# desert, a pasture: 0.7-1.1) is as smooth as plastic (a shadow's flat core on seed 0 render
# 24's desert made a blob of 0.12 square hex radii before the blob test below existed).
_BUSY_ART = 1.2
# A blob of mostly smooth pixels must have the figure's compact shape as well: the printed
# art has smooth faces too (the real mountain tiles' shaded rock, boards-dev's vieja_E and
# vieja_F: blobs of 0.13-0.27 square hex radii, 0.63-0.72 as solid as their hull, or of
# 0.07-0.08 whose thickest part is 0.08-0.09 hex radii from their edge), where a robber's
# body (0.4 x 0.54 hex radii with its head) is 0.89-1.02 solid and 0.11-0.17 thick on the
# renders.
_SMOOTH_SOLIDITY = 0.85
_SMOOTH_THICKNESS = 0.1
# The robber is named only on a blob of half its footprint at least: the smooth fall-off of
# a glare or of a hand's shadow leaves blobs of 0.065-0.075 square hex radii; 3 of the 307
# robbers found on the renders tuned on were smaller (0.35 of the footprint still makes a
# reading ambiguous).
_ROBBER_NAMED = 0.5


@dataclass(frozen=True)
class FigureReading:
    """Where a figure was seen.

    Attributes:
        hex: the hex it stands on, or None (not seen, or ambiguous).
        confidence: 0..1; how clearly the best hex beats the others.
        ambiguous: True when two hexes hold a figure-like blob of similar size.
        areas: per examined hex, the blob's area in square hex radii.
    """

    hex: Hex | None
    confidence: float
    ambiguous: bool
    areas: dict[Hex, float]


def board_balance(
    top: np.ndarray, chips: Mapping[Hex, tuple[float, float, float]] | Sequence = ()
) -> tuple[np.ndarray, tuple[float, float]]:
    """The top view in CIELAB, white-balanced and exposed on the board's number chips, and
    the cast taken off.

    The chips are one printed cream colour on every hex, so the lamp's colour cast is the
    chips' mean a*, b* minus their printed colour, and its brightness their L* over the
    printed one. A grey figure then has a* and b* near 0 whatever the lamp.

    Args:
        top: rectified top view, BGR uint8 (H, W, 3).
        chips: chip discs ``(x, y, radius)`` in top-view pixels (a mapping by hex, or a
            sequence); without any, the Lab image is returned as it is.

    Returns:
        ``(lab, cast)``: float32 (H, W, 3) L* (0..100), a*, b*; and the ``(a*, b*)`` added to
        every pixel ((0, 0) when nothing was corrected). The shift is right at the paper's
        lightness; a lamp's cast is a gain on each colour, so a black pixel shows almost none
        of it and is pushed by the shift to the opposite colour (see
        :func:`find_pirate`).
    """
    lab = cv2.cvtColor(top.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    discs = list(chips.values()) if isinstance(chips, Mapping) else list(chips)
    mask = np.zeros(top.shape[:2], np.uint8)
    for x, y, r in discs:
        cv2.circle(mask, (int(round(x)), int(round(y))), max(1, int(0.75 * r)), 1, -1)
    samples = lab[mask.astype(bool)]
    if len(samples) < 50:
        return lab, (0.0, 0.0)
    # The chip's paper, not its ink: the lighter half of the disc pixels.
    paper = samples[samples[:, 0] >= median(samples[:, 0])]
    seen = np.median(paper, axis=0)
    cast = (_CHIP_PAPER[1] - float(seen[1]), _CHIP_PAPER[2] - float(seen[2]))
    lab[..., 0] *= _CHIP_PAPER[0] / max(float(seen[0]), 1.0)
    lab[..., 1] += cast[0]
    lab[..., 2] += cast[1]
    return lab, cast


def figure_mask(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    hx: Hex,
    chip: tuple[float, float, float] | None = None,
    *,
    radius: float = _WINDOW,
    min_delta: float = 18.0,
    texture: float = 3.0,
    max_chroma: float = _FIGURE_CHROMA,
    max_lightness: float = 76.0,
    on_chip: bool = False,
    hidden: Sequence[tuple[float, float, float]] = (),
    paler: float | None = None,
    smooth: float | None = None,
) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """Figure-like pixels of one hex: grey or black, and unlike the hex's art.

    Args:
        lab: the top view in CIELAB, light divided out (see :func:`board_balance`),
            float32 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels (scale and
            translation, as :func:`vision.register.rectify` returns).
        hx: the hex.
        chip: the hex's chip disc ``(x, y, radius)`` in top-view pixels, left out (its print
            is no figure), or None.
        radius: the examined disc's radius, in hex radii.
        min_delta: the least colour difference (CIELAB delta E) from the hex's art (its
            median colour) that a figure's pixel must show.
        texture: a figure's pixel must also differ from the art by this many times the art's
            median difference from itself (busy art needs a clearer figure), or (given
            ``paler``) be less colourful than it by this many times the art's median chroma
            difference from its own.
        paler: the least chroma a pixel unlike the art in colour, not in lightness, is below
            the art's; None: lightness and colour are one test.
        smooth: on busy art (``_BUSY_ART``), a pixel that differs from the art by
            ``min_delta`` only is figure-like too when its neighbourhood is smooth: its
            lightness varies less than this share of the art's variation (see
            ``_SMOOTHER``); None: not looked for.
        max_chroma: the most colour (CIELAB chroma) a figure's pixel may have: robbers and
            pirate ships are grey or black plastic, hands and harbour tokens are not.
        max_lightness: the lightest (L*) a figure's pixel may be: a white settlement leaning
            into the hex is lighter.
        on_chip: search the chip's disc too (for a chip that could not be read, or was read
            with doubt: a figure may stand on it). There a figure's pixel must be unlike the
            chip's own paper and darker than it, and part of a blob wider than a numeral's
            stroke.
        hidden: discs ``(x, y, radius)`` in top-view pixels that are not examined at all,
            neither as figure nor as what a figure stands on (the harbour tokens on a
            Seafarers sea hex: a dark token is as colourless as the pirate).

    Returns:
        ``(mask, surroundings, (x0, y0))``: bool (h, w) figure-like pixels of the hex's
        window; uint8 (h, w) 0 where the window is not examined (outside the disc, on the
        chip), 1 where it looks like the hex's own art, 2 elsewhere; and the window's top-left
        corner in the top view.
    """
    px = float(plane_to_top[0, 0])
    cx, cy = np.array(hex_center(hx)) * px + plane_to_top[:2, 2]
    half = int(math.ceil(radius * px))
    x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
    x1, y1 = min(lab.shape[1], int(cx) + half + 1), min(lab.shape[0], int(cy) + half + 1)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return np.zeros((0, 0), bool), np.zeros((0, 0), np.uint8), (x0, y0)
    # Channel planes, each contiguous: per-plane arithmetic is several times faster than
    # reductions over the window's short last axis.
    chans = [np.ascontiguousarray(lab[y0:y1, x0:x1, c]) for c in range(3)]
    yy, xx = np.ogrid[y0:y1, x0:x1]
    window = (xx - cx) ** 2 + (yy - cy) ** 2 <= (radius * px) ** 2
    inside, disc, rim = window, np.zeros_like(window), np.zeros_like(window)
    if chip is not None:
        ccx, ccy, cr = chip
        rr = (xx - ccx) ** 2 + (yy - ccy) ** 2
        # The chip's rim (its edge and the shadow it casts) is left out with its print.
        inside = window & (rr > (1.12 * cr) ** 2)
        if on_chip:
            # A figure on the chip may reach over its rim: the rim is searched, but it is
            # neither art nor paper around a figure.
            disc = window & (rr <= cr**2)
            rim = window & ~disc & ~inside
            inside = window & ~disc
    for tx, ty, tr in hidden:
        away = (xx - tx) ** 2 + (yy - ty) ** 2 > tr**2
        inside, disc, rim = inside & away, disc & away, rim & away
    if inside.sum() < 16:
        return np.zeros(inside.shape, bool), np.zeros(inside.shape, np.uint8), (x0, y0)
    art = [median(ch[inside]) for ch in chans]
    diff = [ch - a for ch, a in zip(chans, art, strict=True)]
    delta = np.sqrt(diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2])
    # The art's own spread (texture) sets how far a figure must stand out from it.
    spread = float(median(delta[inside]))
    chroma = np.hypot(chans[1], chans[2])
    # Or, on colourful art, the pixel is paler than it by more than the art's colour varies:
    # art busy in lightness only (a dark forest's leaves) hides no grey figure.
    art_chroma = float(median(chroma[inside]))
    chroma_spread = float(median(np.abs(chroma[inside] - art_chroma)))
    unlike = delta > max(min_delta, texture * spread)
    if paler is not None:
        unlike |= (art_chroma - chroma > max(paler, texture * chroma_spread)) & (delta > min_delta)
    smoothed = None
    if smooth is not None:
        grain = _grain(chans[0])
        # On every other row and column: the median of a quarter of the window is as good,
        # at a quarter of the cost (a median of the whole window is a tenth of the search).
        art_grain = float(median(grain[::2, ::2][inside[::2, ::2]]))
        if art_grain >= _BUSY_ART:
            seeds = (grain < smooth * art_grain) & (delta > min_delta)
            near = cv2.dilate(seeds.astype(np.uint8), np.ones((_GRAIN, _GRAIN), np.uint8)) > 0
            smoothed = near & (delta > min_delta) & ~unlike
            unlike |= smoothed
    mask = inside & unlike & (chroma < max_chroma)
    mask &= chans[0] < max_lightness
    # Tiny specks are texture (rock, shadows of the art), not a figure.
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    if smoothed is not None:
        mask = _smooth_blobs(mask > 0, smoothed, grain, smooth * art_grain, px)
    surroundings = np.where(inside & ~rim, np.where(delta < min_delta, _ART, _OTHER), 0)
    if disc.sum() >= 16:
        on, around = _on_chip(chans, disc, px, min_delta, max_chroma, max_lightness)
        mask = (mask > 0) | on
        surroundings = np.where(disc, around, surroundings)
    elif chip is not None:
        # A figure beside the chip stands half over it (the renderer's robber, 0.5 hex radii
        # out, covers the chip's edge): what the chip's disc and rim hold of a figure that
        # shows beside the chip belongs to it.
        disc = window & (rr <= cr**2)
        rim = window & ~disc & ~inside
        if disc.sum() >= 16:
            over, around = _on_chip(
                chans, disc, px, min_delta, max_chroma, max_lightness, stroke=0.0
            )
            like_art = (delta > max(min_delta, texture * spread)) & (chroma < max_chroma)
            over |= rim & like_art & (chans[0] < max_lightness)
            mask = _joined(mask > 0, over, px)
            surroundings = np.where(disc, around, surroundings)
    return mask.astype(bool), surroundings.astype(np.uint8), (x0, y0)


def _grain(lightness: np.ndarray) -> np.ndarray:
    """The standard deviation of ``lightness`` (float32 (h, w)) over the square of
    ``_GRAIN`` pixels around each pixel: the art's fine texture, or the smoothness of plastic."""
    size = (_GRAIN, _GRAIN)
    mean = cv2.blur(lightness, size)
    return np.sqrt(np.maximum(cv2.blur(lightness * lightness, size) - mean * mean, 0.0))


def _smooth_blobs(
    mask: np.ndarray, smoothed: np.ndarray, grain: np.ndarray, smoothest: float, px: float
) -> np.ndarray:
    """``mask`` (bool (h, w)) with its ``smoothed`` pixels (figure-like only by their smooth
    neighbourhood) kept only in blobs that are mostly such pixels, whose median ``grain``
    is below ``smoothest`` and that are as solid and thick as a figure (``_SMOOTH_SOLIDITY``,
    ``_SMOOTH_THICKNESS`` in hex radii, ``px`` pixels each): the smooth test adds blobs of
    plastic, it never grows a blob that the texture test found (the chip's shadow around a
    crescent of its rim) nor lets a shadow's fall-off or a smooth face of the art in."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask
    total = stats[:, cv2.CC_STAT_AREA]
    added = np.bincount(labels[smoothed & mask], minlength=n)
    plastic = np.zeros(n, bool)
    for i in np.nonzero(2 * added > total)[0]:
        if not i:
            continue
        x, y, w, h = stats[i, :4]
        # One pixel of background around the blob, for its distance to the edge.
        box = (slice(max(0, y - 1), y + h + 1), slice(max(0, x - 1), x + w + 1))
        blob = labels[box] == i
        if float(median(grain[box][blob])) >= smoothest:
            continue
        b8 = blob.astype(np.uint8)
        hull = cv2.contourArea(cv2.convexHull(cv2.findNonZero(b8)))
        thickness = float(cv2.distanceTransform(b8, cv2.DIST_L2, 5).max()) / px
        plastic[i] = total[i] >= _SMOOTH_SOLIDITY * hull and thickness >= _SMOOTH_THICKNESS
    return mask & (~smoothed | plastic[labels])


def _joined(beside: np.ndarray, over: np.ndarray, px: float) -> np.ndarray:
    """``beside`` with the pixels of ``over`` that join its blobs (bool (h, w) each).

    ``beside``: figure-like pixels beside a chip; ``over``: those on its disc and rim; ``px``:
    pixels per hex radius. What lies over the chip joins a blob beside it where it is within
    ``_REACH`` of it (a figure beside a chip covers its edge, not its middle, where the
    numeral is) or wider than a numeral's stroke (``_INK_STROKE``, a figure's body). A blob
    of the two keeps its pixels over the chip only when ``beside`` holds at least
    ``_BESIDE_SHARE`` of it.
    """
    k = max(3, int(round(_INK_STROKE * px)) | 1)
    # Nothing beside: every blob of the two lies over the chip and is dropped; nothing over:
    # ``beside`` is all there is. Otherwise the openings work on the box of ``over`` only
    # (they leave nothing outside it, see :func:`bounding_box`).
    box = bounding_box(over, k // 2 + 1) if beside.any() else None
    if box is None:
        return beside
    over8 = over[box].astype(np.uint8)
    thick = cv2.morphologyEx(
        over8, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    near = cv2.distanceTransform((~beside).astype(np.uint8), cv2.DIST_L2, 3) <= _REACH * px
    opened = cv2.morphologyEx(over8, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    both = beside.copy()
    both[box] |= opened & (near[box] | (thick > 0))
    n, labels = cv2.connectedComponents(both.astype(np.uint8), connectivity=8)
    if n <= 1:
        return beside
    total = np.bincount(labels.ravel(), minlength=n)
    outside = np.bincount(labels[beside], minlength=n)
    keep = outside >= _BESIDE_SHARE * total
    keep[0] = False
    return beside | (both & keep[labels])


def _on_chip(
    chans: list[np.ndarray],
    disc: np.ndarray,
    px: float,
    min_delta: float,
    max_chroma: float,
    max_lightness: float,
    stroke: float = _INK_STROKE,
) -> tuple[np.ndarray, np.ndarray]:
    """Figure-like pixels on a chip's disc, and what they stand on.

    The paper is the chip's own (print runs and editions differ), taken from the lightest
    part of the disc; the numeral's ink is as dark and colourless as a figure, but thin.

    Args:
        chans: L*, a*, b* planes of the window, float32 (h, w) each.
        disc: bool (h, w), the chip's disc within the window.
        px: top-view pixels per hex radius.
        stroke: the opening's diameter, in hex radii (at least 3 pixels): what is thinner
            is taken for ink.

    Returns:
        ``(figure, around)``: bool (h, w) figure-like pixels; uint8 (h, w) what they stand
        on, as :func:`figure_mask`'s surroundings: art where the paper shows, 0 (not
        examined) where it is dark and colourless (the figure's own soft edge, the ink).
    """
    k = max(3, int(round(stroke * px)) | 1)
    figure = np.zeros(disc.shape, bool)
    around = np.zeros(disc.shape, np.uint8)
    # Nothing outside the disc counts, nor does the opening leave anything there: the work is
    # done on the disc's box (the same pixels in the same order, so the same medians).
    box = bounding_box(disc, k // 2 + 1)
    if box is None:
        return figure, around
    disc = disc[box]
    chans = [ch[box] for ch in chans]
    values = [ch[disc] for ch in chans]
    light = values[0] >= quantile(values[0], _PAPER_QUANTILE / 100.0)
    paper = [float(median(v[light])) for v in values]
    diff = [ch - p for ch, p in zip(chans, paper, strict=True)]
    delta = np.sqrt(diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2])
    chroma = np.hypot(chans[1], chans[2])
    darkest = min(max_lightness, paper[0] - _DARKER_THAN_PAPER)
    dark = disc & (delta > min_delta) & (chroma < max_chroma) & (chans[0] < darkest)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    figure[box] = cv2.morphologyEx(dark.astype(np.uint8), cv2.MORPH_OPEN, kernel) > 0
    around[box] = np.where(disc & ~dark, np.where(delta < min_delta, _ART, _OTHER), 0)
    return figure, around


def figure_blobs(
    mask: np.ndarray,
    centre: tuple[float, float],
    edge_px: float,
    surroundings: np.ndarray | None = None,
) -> list[int]:
    """Pixel counts of the blobs of ``mask`` that may be a figure.

    A blob that meets the circle of radius ``edge_px`` about ``centre`` (window pixels) along
    more than a short arc came in from outside the hex (a hand, an arm, a shadow); a figure
    standing near the edge only grazes it. A blob much less solid than its convex hull is the
    rim of something else (a chip's edge, a shadow's fringe), and a long thin one the edge of
    an arm or a shadow. None of these is a figure, nor is a
    blob whose centre lies near the window's edge (a piece on a corner or side leaning in).
    Given ``surroundings`` (as :func:`figure_mask` returns them), a figure must also stand on
    the art: most of the examined ring around it looks like the art, where the ring around the
    shadow along a hand is half hand.
    """
    if mask.size == 0 or not mask.any():
        return []
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(
        mask.astype(np.uint8), connectivity=8
    )
    # Offsets as a column and a row (broadcast, the same values as whole grids).
    yy, xx = np.ogrid[0 : mask.shape[0], 0 : mask.shape[1]]
    dx, dy = xx - centre[0], yy - centre[1]
    # The rim's pixels, each with its blob and its bin of the arc.
    ry, rx = np.nonzero((dx**2 + dy**2 >= (edge_px - 2) ** 2) & mask)
    rim_blob = labels[ry, rx]
    rim_bins = np.floor(
        (np.degrees(np.arctan2(dy[ry, 0], dx[0, rx])) + 180.0) / _ARC_BIN_DEG
    ).astype(int)
    # Room around a blob's box for its ring (the dilations leave nothing beyond it).
    margin = _RING.shape[0] // 2 + 1
    out = []
    for i in range(1, n):
        arc = len(np.unique(rim_bins[rim_blob == i])) * _ARC_BIN_DEG
        if arc > _MAX_ARC_DEG:
            continue
        cx, cy = centroids[i]
        if math.hypot(cx - centre[0], cy - centre[1]) > _MAX_OFFCENTRE * edge_px:
            continue  # a piece on a corner or side, leaning in: a figure stands inside
        x, y, w, h, area = (int(v) for v in stats[i])
        # The blob's points in the window's coordinates, in the order of the whole window's.
        points = cv2.findNonZero((labels[y : y + h, x : x + w] == i).astype(np.uint8)) + (x, y)
        hull = cv2.contourArea(cv2.convexHull(points))
        (_, _), sides, _ = cv2.minAreaRect(points)
        elongation = max(sides) / max(min(sides), 1.0)
        if hull <= 0 or area / hull < _SOLIDITY or elongation > _MAX_ELONGATION:
            continue
        if surroundings is not None:
            box = (
                slice(max(0, y - margin), y + h + margin),
                slice(max(0, x - margin), x + w + margin),
            )
            b8 = (labels[box] == i).astype(np.uint8)
            ring = (cv2.dilate(b8, _RING) > 0) & ~(cv2.dilate(b8, _HALO) > 0)
            ring &= surroundings[box] > 0
            if ring.any() and (surroundings[box][ring] == _ART).mean() < _ART_AROUND:
                continue
        out.append(area)
    return out


def bounding_box(mask: np.ndarray, margin: int) -> tuple[slice, slice] | None:
    """The rows and columns of ``mask``'s (bool (h, w)) True pixels, widened by ``margin``
    pixels each way within ``mask``; None when it has none.

    An opening or a dilation by a kernel at most ``2 * margin - 1`` wide, done on this box of
    a mask that is empty outside it, gives what it gives on the whole mask: the box keeps
    ``margin`` empty pixels between what it holds and its edge (or ends at the mask's), and
    OpenCV's default border leaves a morphology alone where it ends.

    >>> m = np.zeros((10, 10), bool); m[4:6, 3] = True
    >>> bounding_box(m, 2)
    (slice(2, 8, None), slice(1, 6, None))
    """
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return None
    h, w = mask.shape
    return (
        slice(max(0, int(rows[0]) - margin), min(h, int(rows[-1]) + margin + 1)),
        slice(max(0, int(cols[0]) - margin), min(w, int(cols[-1]) + margin + 1)),
    )


def find_figure(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    hexes: Sequence[Hex],
    chips: Mapping[Hex, tuple[float, float, float]] | None = None,
    *,
    footprint: float = _ROBBER_AREA,
    min_fraction: float = 0.35,
    named_fraction: float | None = None,
    max_fraction: float = 2.5,
    margin: float = 2.0,
    max_lightness: float = 76.0,
    unsure: Collection[Hex] = (),
    hidden: Sequence[tuple[float, float, float]] = (),
    paler: float | None = None,
    join: float = 0.0,
    smooth: float | None = None,
) -> FigureReading:
    """The hex among ``hexes`` that a dark, colourless figure stands on.

    Args:
        lab, plane_to_top: the top view in CIELAB and its map (see :func:`figure_mask`).
        hexes: the hexes to examine (land for the robber, sea for the pirate).
        chips: chip discs, by hex (top-view pixels).
        footprint: the figure's expected area, in square hex radii.
        min_fraction: the least fraction of ``footprint`` a blob must cover to count.
        named_fraction: the least fraction the best blob must cover to be named (None:
            ``min_fraction``); a blob of ``min_fraction`` still makes a reading ambiguous.
        max_fraction: the most, in multiples of ``footprint``: larger blobs are not figures.
        margin: how many times larger than the runner-up the best blob must be.
        max_lightness: see :func:`figure_mask`.
        unsure: hexes whose chip could not be read or was read with doubt: a figure
            standing on the chip hides its numeral, so their chip is searched too (at its
            disc in ``chips``, else where the board's chips would put it: the hex centre,
            their median radius), for a figure covering ``_ON_CHIP_FRACTION`` of
            ``footprint`` (a bold numeral's thickest strokes must not pass for one).
        hidden: discs left out of every hex's window (see :func:`figure_mask`).
        paler, smooth: see :func:`figure_mask`.
        join: figure-like pixels are closed by a disc of this diameter (hex radii) before
            their blobs are measured, so that the parts of one figure a thin gap or seam
            parts (the ship's hull and sail) are one blob; 0: not closed.

    Returns:
        The reading; ``hex`` is None when no blob is large enough or two compete.
    """
    chips = chips or {}
    px = float(plane_to_top[0, 0])
    radius = float(np.median([r for _, _, r in chips.values()])) if chips else None

    def largest(hx: Hex, chip: tuple[float, float, float] | None, on_chip: bool) -> float:
        mask, surroundings, (x0, y0) = figure_mask(
            lab,
            plane_to_top,
            hx,
            chip,
            max_lightness=max_lightness,
            on_chip=on_chip,
            hidden=hidden,
            paler=paler,
            smooth=smooth,
        )
        if join > 0 and mask.size:
            k = max(3, int(round(join * px)) | 1)
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, kernel) > 0
            mask &= surroundings > 0
        cx, cy = np.array(hex_center(hx)) * px + plane_to_top[:2, 2] - (x0, y0)
        blobs = figure_blobs(mask, (cx, cy), _WINDOW * px, surroundings)
        # A blob far larger than the figure is a hand, a shadow or a glare, not a figure.
        sizes = [a / px**2 for a in blobs if a / px**2 <= max_fraction * footprint]
        return max(sizes, default=0.0)

    areas: dict[Hex, float] = {}
    for hx in hexes:
        chip = chips.get(hx)
        areas[hx] = largest(hx, chip, False)
        if hx not in unsure:
            continue
        if chip is None and radius is not None:
            x, y = np.array(hex_center(hx)) * px + plane_to_top[:2, 2]
            chip = (float(x), float(y), radius)
        if chip is not None:
            on_chip = largest(hx, chip, True)
            if on_chip >= _ON_CHIP_FRACTION * footprint:
                areas[hx] = max(areas[hx], on_chip)
    ranked = sorted(areas.items(), key=lambda kv: -kv[1])
    named = min_fraction if named_fraction is None else max(min_fraction, named_fraction)
    if not ranked or ranked[0][1] < named * footprint:
        return FigureReading(None, 0.0, False, areas)
    best, area = ranked[0]
    runner = ranked[1][1] if len(ranked) > 1 else 0.0
    floor = min_fraction * footprint
    if runner >= floor and area < margin * runner:
        return FigureReading(None, 0.0, True, areas)
    confidence = 1.0 - max(runner, 0.0) / area if area > 0 else 0.0
    return FigureReading(best, round(min(1.0, confidence), 4), False, areas)


def find_robber(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    land: Sequence[Hex],
    chips: Mapping[Hex, tuple[float, float, float]] | None = None,
    unsure: Collection[Hex] = (),
) -> FigureReading:
    """The robber among the ``land`` hexes (see :func:`find_figure`); ``unsure``: hexes whose
    chip could not be read or was read with doubt (the robber may stand on it)."""
    return find_figure(
        lab,
        plane_to_top,
        land,
        chips,
        footprint=_ROBBER_AREA,
        named_fraction=_ROBBER_NAMED,
        unsure=unsure,
        paler=_PALER,
        smooth=_SMOOTHER,
    )


def find_pirate(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sea: Sequence[Hex],
    tokens: Sequence[tuple[float, float, float]] = (),
    *,
    cast: tuple[float, float] = (0.0, 0.0),
    dark_share: float = 0.2,
) -> FigureReading:
    """The (black) pirate ship among the ``sea`` hexes (see :func:`find_figure`).

    ``tokens``: the harbour tokens' discs on the sea (top-view pixels). A token with at
    least ``dark_share`` of its pixels as dark and colourless as the ship (a dark green
    "2:1" in dim light) is not searched: its pixels could be taken for the ship, and a ship
    standing on such a token is then not claimed. Lighter tokens stay in the search, so a
    ship beside one is still found.

    ``cast``: the ``(a*, b*)`` that :func:`board_balance` added to ``lab``. A lamp's cast is
    a gain on each colour: the chips' paper shows all of it, the black ship almost none, so
    the shift that greys the paper colours the ship its opposite (a warm lamp makes it navy,
    beyond the figures' chroma: 15 of the 22 ships bench vision seed 0 did not see on boards
    read right). The ship is looked for with the shift scaled by each pixel's lightness over
    the paper's.
    """
    if cast != (0.0, 0.0):
        lab = lab.copy()
        undo = 1.0 - np.clip(lab[..., 0] / _CHIP_PAPER[0], 0.0, 1.0)
        lab[..., 1] -= cast[0] * undo
        lab[..., 2] -= cast[1] * undo
    dark = [t for t in tokens if _dark_share(lab, t) >= dark_share]
    return find_figure(
        lab,
        plane_to_top,
        sea,
        footprint=_PIRATE_AREA,
        max_lightness=_PIRATE_LIGHTNESS,
        hidden=dark,
        join=_PIRATE_JOIN,
    )


def _dark_share(lab: np.ndarray, disc: tuple[float, float, float]) -> float:
    """The share of ``disc``'s pixels (top-view ``(x, y, radius)``) as dark and colourless as
    the pirate ship (:func:`figure_mask`'s pixel test at the ship's lightness)."""
    x, y, r = disc
    x0, y0 = max(0, int(x - r)), max(0, int(y - r))
    x1, y1 = min(lab.shape[1], int(x + r) + 1), min(lab.shape[0], int(y + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    yy, xx = np.ogrid[y0:y1, x0:x1]
    inside = (xx - x) ** 2 + (yy - y) ** 2 <= r**2
    window = lab[y0:y1, x0:x1][inside]
    if not len(window):
        return 0.0
    ship_like = (window[:, 0] < _PIRATE_LIGHTNESS) & (
        np.hypot(window[:, 1], window[:, 2]) < _FIGURE_CHROMA
    )
    return float(ship_like.mean())
