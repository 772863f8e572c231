"""Where the coast really lies off each side: the registration's far side, set right locally.

The board is registered by one homography fitted on the chips, inside the frame; lens
distortion or a warped board bends the frame's far side away from it (on vieja_E_6 of
boards-dev the coast lies up to 0.3-0.4 hex radii beyond the registered sides there, and the
harbour icons and ratios lie beyond the places they are looked for). The current art outlines
every tile in dark ink and prints a narrow beach beyond it, so each coast side's real edge is
found on the side's own axes, in the lightness profile out from the side (the median across
its middle): the deepest dip below the lighter of the stretches either side of it (a 1-D
black-hat) that has the sea's blue beginning a beach's width beyond it.

Offsets are taken from the photo's median side (the outline lies a little inside the
registered edge everywhere) and kept only when at least ``dead`` hex radii, and only where a
side next to it along the coast is off the same way (a bend spans several sides). On the
labelled photos (vieja_E_0..E_6, F_0..F_2) single sides reach 0.23-0.25 (a wave's or an
icon's dip), pairs of neighbours at most 0.18 but on vieja_E_6's far side (0.22-0.4): the
settings were chosen on these photos, vieja_E_6 the only one they change.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.harbour_text import plane_samples

#: Profile step (hex radii): the outline is 0.02-0.04 hex radii wide in a top view.
_STEP = 0.01


def coast_offsets(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    mids: np.ndarray,
    normals: np.ndarray,
    *,
    near: float = -0.25,
    far: float = 0.6,
    half: float = 0.3,
    beside: float = 0.05,
    least_depth: float = 8.0,
    beach: tuple[float, float] = (0.05, 0.35),
    sea_blue: float = -20.0,
    dead: float = 0.2,
) -> np.ndarray:
    """How far out (hex radii, along each side's normal) each coast side's edge lies from
    where the registration puts it; 0 where it stands.

    Args:
        lab: float32 (H, W, 3), the top view in CIELAB.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        mids: (N, 2) the sides' midpoints, board plane.
        normals: (N, 2) unit vectors out to sea.
        near, far: the stretch of the normal searched for the outline, hex radii.
        half: the profile is the median across this far either way along the side (its
            middle: the piers stand at the corners).
        beside: half the width of the line's dip, hex radii; the dip is measured against the
            lightest of the 0.04 beyond it on each hand.
        least_depth: least dip (L*) that is an outline.
        beach: the sea (b* below ``sea_blue``) must begin this far beyond the outline, hex
            radii (the frame's printed beach; on the labelled photos 0.14-0.2): a dip with
            no sea just beyond it is a pier, an icon or a wave, and gives no estimate.
        sea_blue: most b* of the sea.
        dead: least offset kept (from the photo's median side): elsewhere the registration
            stands.

    Returns:
        float (N,) offsets, hex radii.
    """
    n = len(mids)
    if n == 0:
        return np.zeros(0)
    outs = np.arange(near - beside - 0.04, far + beach[1] + 0.04 + _STEP / 2, _STEP)
    alongs = np.arange(-half, half + _STEP / 2, _STEP)
    across = np.column_stack([-normals[:, 1], normals[:, 0]])
    pts = (
        mids[:, None, None, :]
        + outs[None, :, None, None] * normals[:, None, None, :]
        + alongs[None, None, :, None] * across[:, None, None, :]
    )  # (N, O, A, 2)
    flat = plane_samples(lab, plane_to_top, pts.reshape(n * len(outs), len(alongs), 2))
    flat = flat.reshape(n, len(outs), len(alongs), 3)
    nan = float("nan")
    # A warped top view is black beyond the photo: no profile there.
    flat[flat[..., 0] <= 0.0] = nan
    # The median across each row of the samples in view (NaN sorts last): (N, O, 3).
    ordered = np.sort(flat, axis=2)
    # Counted along the last axis (the samples' axis swapped there): a sum over a middle axis
    # of (N, O, A, 3) booleans is ten times slower.
    count = np.ascontiguousarray((~np.isnan(flat)).swapaxes(2, 3)).sum(axis=3)
    middle = np.maximum(count - 1, 0) // 2
    profile = np.take_along_axis(ordered, middle[..., None, :], axis=2)[:, :, 0, :]
    profile[count == 0] = nan
    k = int(round(beside / _STEP))
    w = 4
    light, blue = profile[..., 0], profile[..., 2] < sea_blue
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # The lightest of the w + 1 samples from each on: (N, O - w).
        lightest = np.nanmax(sliding_window_view(light, w + 1, axis=1), axis=2)
    at = np.arange(k + w, len(outs) - k - w)
    depth = np.fmin(lightest[:, at - k - w], lightest[:, at + k]) - light[:, at]
    # The first sea sample beyond each: its distance out from it.
    index = np.arange(len(outs))
    first = np.minimum.accumulate(np.where(blue, index, len(outs))[:, ::-1], axis=1)[:, ::-1]
    after = np.concatenate([first[:, 1:], np.full((n, 1), len(outs))], axis=1)[:, at]
    sea = np.where(after < len(outs), outs[np.minimum(after, len(outs) - 1)] - outs[at], np.inf)
    ok = (
        (outs[at] >= near)
        & (outs[at] <= far)
        & (depth > least_depth)
        & (sea >= beach[0])
        & (sea <= beach[1])
    )
    depth = np.where(ok, depth, -np.inf)
    best = np.argmax(depth, axis=1)
    estimate = np.where(ok.any(axis=1), outs[at][best], np.nan)
    found = estimate[~np.isnan(estimate)]
    if len(found) < n // 2:
        return np.zeros(n)
    # The outline lies a little inside the registered edge wherever the registration holds:
    # offsets are from the photo's own median side.
    offsets = np.nan_to_num(estimate - float(np.median(found)))
    off = np.abs(offsets) >= dead
    # A bend spans several sides; one side alone off is a dip elsewhere (a wave, an icon's
    # shadow). Sides sharing a corner have midpoints 0.87 hex radii apart, others 1.5 or more.
    near_side = np.linalg.norm(mids[:, None] - mids[None], axis=2) < 1.0
    np.fill_diagonal(near_side, False)
    same = near_side & off[None, :] & (np.sign(offsets)[:, None] == np.sign(offsets)[None, :])
    return np.where(off & same.any(axis=1), offsets, 0.0)
