"""Terrain of every hex, classified jointly with the material counts as a constraint.

Method
------
1. **Features.** For each hex, the pixels of a ring between the chip and the tile border
   (0.45..0.8 hex radii from the centre, in the rectified top view) give a robust colour: the
   per-channel median in CIELAB, and a texture measure (median absolute deviation of L*).
2. **Light.** The mean colour of all land hexes is mapped to the mean of the prototypes
   (grey-world over the board, not the photo): a colour cast or a dim room moves every hex the
   same way, and since every board carries the same mix of terrain this mean is a stable
   reference. Brightness is matched on L* the same way.
3. **Costs.** Each hex's cost for each terrain is its scaled squared distance to that
   terrain's prototype colours (several editions' art).
4. **Joint assignment.** When the counts of each terrain are known (base, 5-6), the hexes are
   assigned to terrain "slots" by the Hungarian algorithm, which minimises the total cost under
   the constraint that the counts come out right. Otherwise each hex takes its cheapest terrain.
5. **Confidence.** A hex's confidence compares the best reading of the whole board with the
   best reading in which that hex has another terrain (re-solved with the counts), as a
   two-hypothesis posterior with likelihoods exp(-cost).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from companion.board import Hex, Terrain, hex_center

#: Prototype features (CIELAB L* 0..100, a*, b*, and the texture: median absolute deviation
#: of L*) per terrain, after light normalisation: one per look. The first is the project's
#: renderer art (measured over renders); the second the current printed art, measured as the
#: mean over photos of one real board of that edition (boards-dev ``vieja``), so figures on
#: those photos are optimistic for that edition (see docs/vision.md).
PROTOTYPES: dict[Terrain, tuple[tuple[float, float, float, float], ...]] = {
    Terrain.FOREST: ((29.0, -20.0, 22.0, 5.0), (42.0, -11.0, 29.0, 11.0)),
    Terrain.PASTURE: ((75.0, -34.0, 54.0, 3.0), (68.0, -23.0, 46.0, 6.0)),
    Terrain.FIELDS: ((73.0, 5.0, 55.0, 4.0), (65.0, 2.0, 43.0, 11.0)),
    Terrain.HILLS: ((52.0, 25.0, 38.0, 4.0), (53.0, 10.0, 36.0, 11.0)),
    Terrain.MOUNTAINS: ((60.0, 5.0, -1.0, 6.0), (62.0, -2.0, 14.0, 14.0)),
    Terrain.DESERT: ((77.0, 2.0, 32.0, 4.0), (71.0, -2.0, 43.0, 4.0)),
    Terrain.GOLD: ((66.0, 19.0, 66.0, 5.0),),
    Terrain.SEA: ((47.0, -2.0, -36.0, 4.0),),
}

#: How far a feature may stray from a prototype for one unit of cost (L*, a*, b*, texture).
_SCALE = np.array([10.0, 6.0, 8.0, 3.0])

# Cost that keeps the assignment away from a terrain (large, but finite for the solver).
_FORBIDDEN = 1e6

#: Terrain counts of the boards whose material is fixed.
COUNTS: dict[str, Counter[Terrain]] = {
    "base": Counter(
        {
            Terrain.FOREST: 4,
            Terrain.PASTURE: 4,
            Terrain.FIELDS: 4,
            Terrain.HILLS: 3,
            Terrain.MOUNTAINS: 3,
            Terrain.DESERT: 1,
        }
    ),
    "5-6": Counter(
        {
            Terrain.FOREST: 6,
            Terrain.PASTURE: 6,
            Terrain.FIELDS: 6,
            Terrain.HILLS: 5,
            Terrain.MOUNTAINS: 5,
            Terrain.DESERT: 2,
        }
    ),
}


@dataclass(frozen=True)
class TerrainReading:
    """The terrain of one hex with its confidence (0..1) and the cost of every terrain."""

    terrain: Terrain
    confidence: float
    costs: dict[Terrain, float]


def hex_features(top: np.ndarray, plane_to_top: np.ndarray, hexes: Sequence[Hex]) -> np.ndarray:
    """Robust colour of each hex's ring between chip and border.

    Args:
        top: rectified top view, BGR uint8 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels; must be a
            scale and translation (as :func:`vision.register.rectify` returns).
        hexes: the hexes, in the order of the rows of the result.

    Returns:
        float64 (N, 4): median L* (0..100), a*, b*, and the median absolute deviation of L*.
    """
    lab = cv2.cvtColor(top.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    scale = float(plane_to_top[0, 0])
    h, w = top.shape[:2]
    # Sample points of the ring, in board-plane units relative to the hex centre.
    rs = np.linspace(0.45, 0.8, 6) * scale
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    ring = np.array([[r * np.cos(a), r * np.sin(a)] for r in rs for a in angles])
    out = np.zeros((len(hexes), 4))
    for i, hx in enumerate(hexes):
        cx, cy = hex_center(hx)
        px = ring + [cx * scale + plane_to_top[0, 2], cy * scale + plane_to_top[1, 2]]
        xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
        ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        if not ok.any():
            out[i] = (0.0, 0.0, 0.0, 0.0)
            continue
        samples = lab[yi[ok], xi[ok]]
        med = np.median(samples, axis=0)
        mad = float(np.median(np.abs(samples[:, 0] - med[0])))
        out[i] = (med[0], med[1], med[2], mad)
    return out


def normalise_light(features: np.ndarray, land: np.ndarray, kind: str | None) -> np.ndarray:
    """Shift colours so that the land hexes' mean matches the prototypes' mean (grey-world).

    Args:
        features: float (N, 4) from :func:`hex_features`.
        land: bool (N,), the hexes that are land (sea hexes would skew the mean).
        kind: the board kind, to weight the prototype mean by its counts (None: equal).

    Returns:
        A normalised copy of ``features``.
    """
    out = features.copy()
    if land.sum() < 3:
        return out
    counts = COUNTS.get(kind or "")
    weights: dict[Terrain, float] = (
        {t: float(c) for t, c in counts.items()}
        if counts
        else {t: 1.0 for t in PROTOTYPES if t.is_land}
    )
    total = sum(weights.values())
    ref = sum(np.mean(PROTOTYPES[t], axis=0)[:3] * wgt for t, wgt in weights.items()) / total
    mean = features[land, :3].mean(axis=0)
    # Lightness scales (exposure), chroma shifts (colour cast).
    out[:, 0] = features[:, 0] * (ref[0] / max(mean[0], 1e-3))
    out[:, 1:3] = features[:, 1:3] - mean[1:3] + ref[1:3]
    return out


def terrain_costs(features: np.ndarray, terrains: Sequence[Terrain]) -> np.ndarray:
    """Cost (N, T) of each hex being each terrain: scaled squared distance of the features
    (N, 4) to the nearest prototype of that terrain."""
    costs = np.zeros((len(features), len(terrains)))
    for j, t in enumerate(terrains):
        protos = np.array(PROTOTYPES[t])
        d = ((features[:, None, :] - protos[None]) / _SCALE) ** 2
        costs[:, j] = d.sum(axis=2).min(axis=1)
    return costs


def classify_terrain(
    features: np.ndarray,
    *,
    kind: str | None = None,
    sea: np.ndarray | None = None,
    counts: Mapping[Terrain, int] | None = None,
) -> list[TerrainReading]:
    """Classify every hex jointly.

    Args:
        features: float (N, 4) from :func:`hex_features`.
        kind: base or 5-6 to use their terrain counts; seafarers or None for free choice.
        sea: bool (N,), hexes known to be sea (from the blue test of registration); they are
            kept out of the light normalisation and of the count constraint.
        counts: explicit terrain counts (overrides ``kind``); must add up to the number of
            non-sea hexes.

    Returns:
        One :class:`TerrainReading` per hex, in order.
    """
    n = len(features)
    if n == 0:
        return []
    is_sea = np.zeros(n, bool) if sea is None else np.asarray(sea, bool)
    want = counts if counts is not None else COUNTS.get(kind or "")
    if want is not None and sum(want.values()) != int((~is_sea).sum()):
        # The counts cannot hold (a hex misread as sea, or a custom map): classify freely.
        want = None
    terrains = [t for t in PROTOTYPES if t != Terrain.SEA and (want is None or want.get(t))]
    if want is None and kind != "seafarers":
        terrains = [t for t in terrains if t != Terrain.GOLD]
    feats = normalise_light(features, ~is_sea, kind)
    costs = terrain_costs(feats, terrains)
    land_idx = np.nonzero(~is_sea)[0]
    assigned = np.argmin(costs, axis=1)
    # margin[i]: how much worse the best reading is in which hex i has another terrain.
    margin = np.zeros(n)
    if want is not None and len(land_idx):
        slots = np.array([j for j, t in enumerate(terrains) for _ in range(want.get(t, 0))])
        sub = costs[land_idx][:, slots]
        rows, cols = linear_sum_assignment(sub)
        best = float(sub[rows, cols].sum())
        for r_, c_ in zip(rows, cols, strict=True):
            assigned[land_idx[r_]] = slots[c_]
        for r_ in range(len(land_idx)):
            forced = sub.copy()
            forced[r_, slots == assigned[land_idx[r_]]] = _FORBIDDEN
            fr, fc = linear_sum_assignment(forced)
            margin[land_idx[r_]] = float(forced[fr, fc].sum()) - best
    else:
        ordered = np.sort(costs, axis=1)
        margin = ordered[:, 1] - ordered[:, 0] if costs.shape[1] > 1 else np.full(n, _FORBIDDEN)
    out: list[TerrainReading] = []
    for i in range(n):
        cost_map = {t: float(costs[i, j]) for j, t in enumerate(terrains)}
        if is_sea[i]:
            out.append(TerrainReading(Terrain.SEA, 1.0, cost_map))
            continue
        # Two-hypothesis posterior of the best reading against the best one that differs
        # here, with likelihoods exp(-cost): a margin of 2.2 gives 0.9.
        conf = float(1.0 / (1.0 + np.exp(-min(margin[i], 50.0))))
        out.append(TerrainReading(terrains[assigned[i]], conf, cost_map))
    return out
