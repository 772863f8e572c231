"""The seams between a real board's tiles, and the corners where a standing piece hides them.

A real board is cut cardboard: between two land tiles runs a thin dark gap (a *seam*, about
0.02 hex radii wide, light tile border on both sides), and at an empty inner corner three seams
meet. A piece stands on its corner and hides that junction from the camera whatever its
colour; a white piece in the shade, whose colour is the border's (docs/vision-tracking.md),
hides it too. So a corner whose seams all stop short of it holds something that stands there.

1. **Seam profiles** (:func:`seam_visibility`): per side between two land hexes, the photo's
   log lightness is sampled on a grid along the side (41 steps) and across it (+-0.12 hex
   radii). At each step a *valley* is a sample darker than the lightest sample 0.012..0.04
   hex radii to either hand (both hands: a seam, not an edge). The seam's line is fitted
   through the deepest valleys near the side's line (registration leaves a few hundredths of
   a hex), and a step *shows the seam* when a valley of :data:`SEAM_DEPTH` lies within 0.012
   of that line.
2. **Corners** (:func:`corner_gaps`): per corner, along each of its arms (its sides between
   two land hexes that hold no piece already read), the distance from the corner at which
   the seam first shows for :data:`SEAM_RUN` steps in a row; the corner's gap is the least of
   its arms' (one arm that shows its seam up to the corner says nothing covers it). Fewer than
   two such arms: no gap (one tight seam is not evidence).
3. **The board shows seams** (:func:`seams_seen`): the share of free inner sides whose middle
   half shows the seam on at least half its steps. A board without seams (the renderer's, a
   board printed in one piece) hides nothing and is not read this way.

Everything here works on the photo through the homography (the top view's 32 pixels per hex
radius would blur a seam of one or two photo pixels away).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from companion.board import Topology, edge_vertices, vertex_position

#: Log-lightness depth of a valley that shows a seam. Chosen on layout E of boards-dev with F
#: held out (docs/vision-tracking.md): 0.06..0.1 separate the same corners.
SEAM_DEPTH = 0.08
#: Steps in a row (of 1/40 of a side) that show a seam before it counts as seen: a tenth of a
#: hex radius of straight dark line, longer than a piece's own dark edges and contact shadow.
SEAM_RUN = 5
#: Steps along a side and across it; the across half-width and the window where the seam's
#: line is looked for (hex radii).
_STEPS = 41
_ACROSS = 97
_HALF = 0.12
_WINDOW = 0.07
# A valley's hands: the lightest sample this far to either side (hex radii).
_HAND_FROM, _HAND_TO = 0.012, 0.04
# How far from the fitted line a valley still shows the seam (hex radii).
_ON_LINE = 0.012
# Valleys needed to fit a side's seam line.
_FIT_MIN = 5


def inner_sides(topology: Topology, sea_hexes: Sequence[int] = ()) -> np.ndarray:
    """bool (E,): the sides between two land hexes (where tiles meet, so a seam runs)."""
    sea = set(sea_hexes)
    return np.array([len(hs) == 2 and not sea & set(hs) for hs in topology.edge_hexes], bool)


def _valleys(profiles: np.ndarray, step: float) -> np.ndarray:
    """Valley depth at every sample of ``profiles`` (float (..., N) across the side): how much
    darker it is than the lighter of its two hands' lightest samples; -1 where a hand falls
    off the grid."""
    a = int(round(_HAND_FROM / step))
    b = int(round(_HAND_TO / step))
    n = profiles.shape[-1]
    depth = np.full(profiles.shape, -1.0, np.float32)
    # lightest[..., i]: the lightest of samples i .. i + b - a; a hand of sample j starts at
    # j - b (left) or j + a (right).
    flat = profiles.reshape(-1, n).astype(np.float32)
    kernel = np.ones((1, b - a + 1), np.uint8)
    lightest = cv2.dilate(flat, kernel, anchor=(0, 0)).reshape(profiles.shape)
    j = np.arange(b, n - b)
    depth[..., j] = np.minimum(lightest[..., j - b], lightest[..., j + a]) - profiles[..., j]
    return depth


def _seam_lines(best: np.ndarray, where: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Each side's seam offset across it at every step (float (k, steps), hex radii): a line
    fitted through the steps' deepest valleys ``where`` (k, steps) that are deep enough
    (``best``), refitted three times without the outliers; the side's own line (0) where
    fewer than :data:`_FIT_MIN` valleys are."""
    use = best > SEAM_DEPTH
    enough = use.sum(axis=1) >= _FIT_MIN
    coef = np.zeros((len(best), 2))
    for _ in range(4):
        w = use.astype(np.float64)
        sw, sx, sy = w.sum(1), (w * s).sum(1), (w * where).sum(1)
        sxx, sxy = (w * s * s).sum(1), (w * s * where).sum(1)
        det = sw * sxx - sx * sx
        ok = enough & (sw >= 3) & (np.abs(det) > 1e-12)
        safe = np.where(ok, det, 1.0)
        fit = np.column_stack([(sxx * sy - sx * sxy) / safe, (sw * sxy - sx * sy) / safe])
        coef = np.where(ok[:, None], fit, coef)
        residual = np.abs(coef[:, :1] + coef[:, 1:] * s - where)
        deep = np.where(best > SEAM_DEPTH, residual, np.nan)
        deep[~enough] = 0.0  # no fit to refine (and no all-NaN row for nanmedian)
        typical = np.nanmedian(deep, axis=1)
        bound = np.maximum(_ON_LINE, 2.0 * np.nan_to_num(typical))
        use = (best > SEAM_DEPTH) & (residual < bound[:, None])
    return np.where(enough[:, None], coef[:, :1] + coef[:, 1:] * s, 0.0)


def seam_visibility(
    image: np.ndarray,
    homography: np.ndarray,
    topology: Topology,
    inner: np.ndarray,
) -> np.ndarray:
    """Where each inner side shows its seam.

    Args:
        image: BGR uint8 (H, W, 3), the photo.
        homography: float (3, 3) board plane (hex radii) -> photo pixels.
        topology: the board's corners and sides.
        inner: bool (E,) the sides to read (:func:`inner_sides`).

    Returns:
        bool (E, 41): per side, per step from its first corner (``edge_vertices``) to its
        second, whether the seam shows; all False on the other sides.
    """
    out = np.zeros((len(topology.edges), _STEPS), bool)
    sides = np.flatnonzero(inner)
    if not len(sides):
        return out
    grey = np.log(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) + 8.0)
    s = np.linspace(0.0, 1.0, _STEPS)
    n = np.linspace(-_HALF, _HALF, _ACROSS)
    ends = np.array(
        [[vertex_position(v) for v in edge_vertices(topology.edges[e])] for e in sides]
    )  # (k, 2, 2)
    a, b = ends[:, 0], ends[:, 1]
    along = b - a
    across = np.column_stack([-along[:, 1], along[:, 0]]) / np.linalg.norm(
        along, axis=1, keepdims=True
    )
    pts = (
        a[:, None, None]
        + s[None, :, None, None] * along[:, None, None]
        + n[None, None, :, None] * across[:, None, None]
    )  # (k, steps, across, 2)
    pix = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.asarray(homography, np.float64))
    pix = pix.reshape(len(sides) * _STEPS, _ACROSS, 2).astype(np.float32)
    sampled = cv2.remap(
        grey, pix[..., 0], pix[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).reshape(len(sides), _STEPS, _ACROSS)
    # A little smoothing along the side only (the seam is straight; across, it is thin).
    kernel = np.array([0.27, 0.46, 0.27], np.float32)
    padded = np.concatenate([sampled[:, :1], sampled, sampled[:, -1:]], axis=1)
    smooth = kernel[0] * padded[:, :-2] + kernel[1] * padded[:, 1:-1] + kernel[2] * padded[:, 2:]
    depth = _valleys(smooth, float(n[1] - n[0]))
    window = np.abs(n) <= _WINDOW
    near = np.where(window, depth, -1.0)
    best = near.max(axis=2)
    where = n[near.argmax(axis=2)]
    line = _seam_lines(best, where, s)
    on = np.abs(n[None, None, :] - line[:, :, None]) <= _ON_LINE
    out[sides] = np.where(on, depth, -1.0).max(axis=2) > SEAM_DEPTH
    return out


def seams_seen(visible: np.ndarray, inner: np.ndarray, occupied: np.ndarray) -> float:
    """The share (0..1) of free inner sides whose middle half shows the seam on at least
    half its steps; 0 when no side is free.

    Args:
        visible: bool (E, steps) from :func:`seam_visibility`.
        inner: bool (E,) the sides read.
        occupied: bool (E,) sides that hold a piece already read.
    """
    free = inner & ~occupied
    if not free.any():
        return 0.0
    steps = visible.shape[1]
    middle = visible[:, steps // 4 : steps - steps // 4]
    return float((middle[free].mean(axis=1) >= 0.5).mean())


def corner_gaps(
    visible: np.ndarray, topology: Topology, inner: np.ndarray, occupied: np.ndarray
) -> np.ndarray:
    """Per corner, how far from it (hex radii) its seams stay hidden.

    Args:
        visible: bool (E, steps) from :func:`seam_visibility`.
        topology: the board's corners and sides.
        inner: bool (E,) the sides read.
        occupied: bool (E,) sides that hold a piece already read (their seams are hidden by
            it, which says nothing about the corner).

    Returns:
        float64 (V,): the least, over the corner's free inner arms, of the distance from the
        corner at which the arm's seam first shows for :data:`SEAM_RUN` steps in a row (1.0
        when it never does); NaN for corners with fewer than two such arms.

    >>> t = Topology.of([(0, 0), (1, 0), (0, 1)])
    >>> inner = inner_sides(t)
    >>> visible = np.ones((len(t.edges), 41), bool)
    >>> float(np.nanmax(corner_gaps(visible, t, inner, np.zeros(len(t.edges), bool))))
    0.0
    """
    steps = visible.shape[1]
    # The first step of each side from each end that starts a run of SEAM_RUN shown steps.
    runs = np.ones((visible.shape[0], steps - SEAM_RUN + 1), bool)
    for k in range(SEAM_RUN):
        runs &= visible[:, k : steps - SEAM_RUN + 1 + k]
    step = 1.0 / (steps - 1)
    first = np.where(runs.any(axis=1), runs.argmax(axis=1) * step, 1.0)
    last = np.where(runs.any(axis=1), runs[:, ::-1].argmax(axis=1) * step, 1.0)
    free = inner & ~occupied
    out = np.full(len(topology.vertices), np.nan)
    for v, name in enumerate(topology.vertices):
        gaps = [
            first[e] if edge_vertices(topology.edges[e])[0] == name else last[e]
            for e in topology.vertex_edges[v]
            if free[e]
        ]
        if len(gaps) >= 2:
            out[v] = min(gaps)
    return out
