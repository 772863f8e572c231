"""Terrain of every hex, classified jointly with the material counts as a constraint.

Method
------
1. **Features.** For each hex, the pixels of a ring between the chip and the tile border
   (0.45..0.8 hex radii from the centre, in the rectified top view) give a robust colour: the
   per-channel median in CIELAB, and a texture measure (median absolute deviation of L*).
2. **Light.** Light multiplies the camera's B, G and R channels (von Kries). Each hex's own
   light is read off its number chip (one printed paper on every hex: a chip half as bright
   as the board's median chip lies in a shadow that halves its hex's art too, see
   :func:`chip_light`). The board's light is then estimated grey-world: the land hexes' mean
   colour is mapped onto the prototypes' mean, weighted by the board's mix of terrain (a
   colour cast or a dim room moves every hex the same way).
3. **Costs.** Each hex's cost for each terrain is its scaled squared distance to that
   terrain's prototype colours (several editions' art), saturating: a hex that looks like no
   terrain (a hand, a rulebook over it) costs about the same whatever it is read as, is
   flagged ``unseen``, and never pushes a well-seen hex out of its terrain.
4. **Joint assignment.** When the counts of each terrain are known (base, 5-6), the hexes are
   assigned to terrain "slots" by the Hungarian algorithm, which minimises the total cost under
   the constraint that the counts come out right. Otherwise (Seafarers maps) each hex takes its
   cheapest terrain, and the reading is refined against the board's own print of each terrain
   (the mean of the other hexes read as it): fields and gold differ on every board, though
   what each looks like varies from print to print.
5. **Confidence.** A hex's confidence compares the best reading of the whole board with the
   best reading in which that hex has another terrain (re-solved with the counts), as a
   two-hypothesis posterior with likelihoods exp(-cost); an unseen hex has at most 0.5.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from companion.board import Hex, Terrain, hex_center
from vision.numeric import median
from vision.register import circle_points

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
# A hex's cost for any terrain saturates at this: a hex that looks like no terrain (under a
# hand, a rulebook, a glare spot) then costs about the same whatever it is read as, so it
# takes what the counts leave over instead of pushing a well-seen hex out of its terrain;
# a hex this far from every prototype is unseen.
_OUTLIER = 9.0
# Confidence of a hex that looks like no terrain, whatever the counts say it must be.
_UNSEEN_CONFIDENCE = 0.5
# Rounds of reading the board against its own print of each terrain.
_ROUNDS = 3
# Weight, in hexes, of the stock prototype in a terrain's print on this board.
_PRIOR = 2.0
# Share of a hex's ring that must be clear of a hand for the clear part alone to be read.
_MIN_CLEAR = 0.25
# Range of a hex's light relative to the board's (a glare spot on a chip, a hand over it).
_LIGHT_RANGE = (0.4, 1.5)
# A camera channel at this share of white or above is taken as clipped.
_CLIP = 0.95
# How much brighter than its light says a hex the camera clipped may be (a print's colour
# varies, and so does the light estimate's error): where a channel clips, brightness moves
# the hue, not only the lightness.
_CLIPPED_LIGHT = 1.15
# How far (natural log of B/G and of R/G) a chip's paper may be off the board's median chip
# paper: the renderer's papers and a lamp's fall-off stay within 0.37 (bench vision seed 0,
# 140 renders, 1,461 chips), boards-dev's within 0.13; a disc of sea is 0.6 and more off.
_PAPER_HUE = 0.5
# Cost (a log-likelihood) of reading a bright chip's hex as under a glare rather than as lit
# more: a lamp's fall-off brightens many chips, a glare spot few. Without it the glare's
# freedom read three fields hexes of seed 0 gold (0.54-0.57); 1.0 to 2.0 read the same.
_GLARE_PRIOR = 1.0
# Fewest chips from which the light over the board is read.
_MIN_CHIPS = 5
# Fewest sea hexes registration must find for their colour to be this board's sea.
_MIN_SEA = 5

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

#: The land of a Seafarers map, for the light estimate only: its islands carry about the base
#: game's mix of terrain, plus a little gold.
_SEAFARERS_MIX: Counter[Terrain] = COUNTS["base"] + Counter({Terrain.GOLD: 2})


@dataclass(frozen=True)
class TerrainReading:
    """The terrain of one hex with its confidence (0..1) and the cost of every terrain."""

    terrain: Terrain
    confidence: float
    costs: dict[Terrain, float]
    #: True when the hex looks like no terrain at all (covered, or lit beyond reading).
    unseen: bool = False


def hex_features(
    top: np.ndarray,
    plane_to_top: np.ndarray,
    hexes: Sequence[Hex],
    covered: np.ndarray | None = None,
) -> np.ndarray:
    """Robust colour of each hex's ring between chip and border.

    Args:
        top: rectified top view, BGR uint8 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels; must be a
            scale and translation (as :func:`vision.register.rectify` returns).
        hexes: the hexes, in the order of the rows of the result.
        covered: bool (H, W), pixels hidden by something over the board (see
            :func:`vision.occlusion.cover_mask`); they are left out of the ring, unless
            too little of it remains to say anything (then the hex is measured as it looks).

    Returns:
        float64 (N, 4): median L* (0..100), a*, b*, and the median absolute deviation of L*.
    """
    scale = float(plane_to_top[0, 0])
    h, w = top.shape[:2]
    # Sample points of the ring, in board-plane units relative to the hex centre.
    ring = circle_points(np.linspace(0.45, 0.8, 6) * scale, 48)
    out = np.zeros((len(hexes), 4))
    for i, hx in enumerate(hexes):
        cx, cy = hex_center(hx)
        px = ring + [cx * scale + plane_to_top[0, 2], cy * scale + plane_to_top[1, 2]]
        xi, yi = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
        ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        if covered is not None:
            clear = ok.copy()
            clear[ok] = ~covered[yi[ok], xi[ok]]
            if clear.sum() >= _MIN_CLEAR * len(ring):
                ok = clear
        if not ok.any():
            out[i] = (0.0, 0.0, 0.0, 0.0)
            continue
        # Only the samples are converted (OpenCV converts each pixel alike, alone or in a view).
        bgr = top[yi[ok], xi[ok]].astype(np.float32) / 255.0
        samples = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)
        med = np.median(samples, axis=0)
        mad = float(median(np.abs(samples[:, 0] - med[0])))
        out[i] = (med[0], med[1], med[2], mad)
    return out


def chip_light(paper: np.ndarray, hexes: Sequence[Hex]) -> np.ndarray:
    """How brightly each hex is lit, relative to the board: its chip's paper brightness over
    the median of all chips.

    Number chips are one printed paper on every hex, so a chip darker than the others lies
    in a shadow, or on the dim side of a lamp's fall-off, and so does the art around it. A
    hex without a chip (desert, sea, a chip not found) takes the mean of its neighbours', or
    1 (the board's light) without any.

    Args:
        paper: float (N,) each hex's chip paper (:func:`chip_paper`), NaN without a chip.
        hexes: the hexes, in the order of ``paper`` and of the result.

    Returns:
        float64 (N,), 1 where a hex is lit like the board as a whole.
    """
    seen = paper[np.isfinite(paper)]
    if len(seen) < _MIN_CHIPS:
        return np.ones(len(hexes))
    light = np.clip(paper / float(np.median(seen)), *_LIGHT_RANGE)
    index = {hx: i for i, hx in enumerate(hexes)}
    filled = light.copy()
    for i, hx in enumerate(hexes):
        if np.isfinite(light[i]):
            continue
        near = [light[index[n]] for n in _neighbours(hx) if n in index]
        near = [v for v in near if np.isfinite(v)]
        filled[i] = float(np.mean(near)) if near else 1.0
    return filled


def chip_paper(
    top: np.ndarray,
    hexes: Sequence[Hex],
    discs: Mapping[Hex, tuple[float, float, float]],
) -> np.ndarray:
    """Grey level (0..255, the mean of B, G, R) of each hex's chip paper: the median of the
    lighter half of its disc (the paper, not the ink printed on it); NaN without a chip.

    A disc whose paper is not the colour of the board's chip paper (its blue or red against
    its green off the median chip's by more than :data:`_PAPER_HUE`) is no chip: a blob of
    sea or a hand that registration took for one. Its grey would be read as a deep shadow
    (bench vision seed 37, render 74: a sea hex "lit" 0.57 read as mountains), so it is NaN:
    the hex takes its neighbours' light.

    Args:
        top: rectified top view, BGR uint8 (H, W, 3).
        hexes: the hexes, in the order of the result.
        discs: chip discs ``(x, y, radius)`` in top-view pixels of the hexes that have a chip.

    Returns:
        float64 (N,).
    """
    paper = np.full(len(hexes), np.nan)
    colour = np.full((len(hexes), 3), np.nan)
    for i, hx in enumerate(hexes):
        disc = discs.get(hx)
        if disc is None:
            continue
        found = disc_paper(top, disc)
        if found is not None:
            paper[i], colour[i] = found
    seen = np.isfinite(colour[:, 0])
    if seen.sum() >= _MIN_CHIPS:
        paper[np.nonzero(seen)[0][off_paper(colour[seen], colour[seen])]] = np.nan
    return paper


def disc_paper(
    top: np.ndarray, disc: tuple[float, float, float]
) -> tuple[float, np.ndarray] | None:
    """The paper of a chip disc ``(x, y, radius)`` (top-view pixels): the grey level (0..255,
    the mean of B, G, R) and the BGR colour (float (3,)) of the lighter half of its inner
    three quarters (the paper, not the ink printed on it); None when too little of it lies
    in the view."""
    h, w = top.shape[:2]
    x, y, r = disc
    x0, x1 = max(0, int(x - r)), min(w, int(x + r) + 1)
    y0, y1 = max(0, int(y - r)), min(h, int(y + r) + 1)
    if x1 <= x0 or y1 <= y0:  # the disc lies beyond the view
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - x) ** 2 + (yy - y) ** 2 <= (0.75 * r) ** 2
    # The chip's window only (the whole view's would cost 50 times more).
    pixels = top[y0:y1, x0:x1].astype(np.float32)[inside]
    if len(pixels) < 10:
        return None
    grey = pixels.mean(axis=1)
    lighter = grey >= median(grey)
    return float(median(grey[lighter])), np.median(pixels[lighter], axis=0)


def off_paper(colours: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Which paper colours (BGR, float (N, 3)) are not the board's chip paper (the median of
    ``board``, float (M, 3)): the natural log of B/G or of R/G off the board's by more than
    :data:`_PAPER_HUE`; bool (N,). Light's brightness and shadows leave these ratios alone,
    and a lamp's colour moves every chip alike."""

    def hue(c: np.ndarray) -> np.ndarray:
        return np.log((c[:, [0, 2]] + 1.0) / (c[:, [1]] + 1.0))

    return np.abs(hue(colours) - np.median(hue(board), axis=0)).max(axis=1) > _PAPER_HUE


def stray_discs(
    top: np.ndarray,
    discs: Mapping[Hex, tuple[float, float, float]],
    trusted: Collection[Hex],
) -> set[Hex]:
    """The hexes whose disc (``x, y, radius`` in top-view pixels) was found by the chip reader
    alone (not among the ``trusted`` hexes, registration's chips) and shows no chip paper:
    its colour off the trusted discs' paper (:func:`off_paper`). Such a disc is a circle on
    the art (a sheep on a pasture: bench vision --real-hands 4 seed 4, vieja_F_0's
    composite 3, whose pasture 11 was read off a sheep 67 pixels from the chip as 4 at
    0.96), and the chip reader finds numeral-like ink on any crop. With fewer than
    :data:`_MIN_CHIPS` trusted papers the board's paper is not known and none is ruled out.
    """
    board = [disc_paper(top, discs[h]) for h in trusted if h in discs]
    colours = np.array([c for _, c in filter(None, board)])
    if len(colours) < _MIN_CHIPS:
        return set()
    own = {h: disc_paper(top, d) for h, d in discs.items() if h not in trusted}
    seen = [(h, found[1]) for h, found in own.items() if found is not None]
    if not seen:
        return set()
    off = off_paper(np.array([c for _, c in seen]), colours)
    return {h for (h, _), o in zip(seen, off, strict=True) if o}


def board_paper(paper: np.ndarray) -> float | None:
    """The board's chip paper, grey level 0..1: the median of the hexes' ``paper``
    (:func:`chip_paper`) over 255; None with fewer than the chips :func:`chip_light` reads
    the light from."""
    seen = paper[np.isfinite(paper)]
    return float(np.median(seen)) / 255.0 if len(seen) >= _MIN_CHIPS else None


def _neighbours(hx: Hex) -> list[Hex]:
    q, r = hx
    return [(q + dq, r + dr) for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))]


def lab_to_bgr(lab: np.ndarray) -> np.ndarray:
    """CIELAB (N, 3) (L* 0..100) to BGR (N, 3) in 0..1, as OpenCV converts."""
    bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(-1, 1, 3), cv2.COLOR_Lab2BGR)
    return bgr.reshape(-1, 3).astype(np.float64)


def bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """BGR (N, 3) in 0..1 to CIELAB (N, 3) (L* 0..100), as OpenCV converts."""
    lab = cv2.cvtColor(np.asarray(bgr, np.float32).reshape(-1, 1, 3), cv2.COLOR_BGR2Lab)
    return lab.reshape(-1, 3).astype(np.float64)


def apply_gains(features: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The features as they would look under light multiplied by ``gains`` (B, G, R).

    A lamp's colour and brightness, and a camera's white balance, multiply each colour channel
    (von Kries): the colour is scaled in BGR, the texture column is kept.
    """
    out = features.copy()
    bgr = np.clip(lab_to_bgr(features[:, :3]) * gains, 1e-4, 1.0)
    out[:, :3] = bgr_to_lab(bgr)
    return out


def _reference_bgr(kind: str | None) -> np.ndarray:
    """Mean BGR (0..1) of the prototypes, weighted by the terrain counts of ``kind``."""
    counts = COUNTS.get(kind or "") or _SEAFARERS_MIX
    weights = {t: float(c) for t, c in counts.items()}
    total = sum(weights.values())
    return (
        sum(lab_to_bgr(np.array(PROTOTYPES[t])[:, :3]).mean(axis=0) * w for t, w in weights.items())
        / total
    )


def grey_world_gains(features: np.ndarray, land: np.ndarray, kind: str | None) -> np.ndarray:
    """Per-channel gains (B, G, R) that map the land hexes' mean colour onto the prototypes'
    mean (grey-world over the board: every board carries about the same mix of terrain)."""
    if land.sum() < 3:
        return np.ones(3)
    mean = lab_to_bgr(features[land, :3]).mean(axis=0)
    return _reference_bgr(kind) / np.maximum(mean, 1e-3)


def normalise_light(features: np.ndarray, land: np.ndarray, kind: str | None) -> np.ndarray:
    """Scale colours so that the land hexes' mean matches the prototypes' mean (grey-world).

    Args:
        features: float (N, 4) from :func:`hex_features`.
        land: bool (N,), the hexes that are land (sea hexes would skew the mean).
        kind: the board kind, to weight the prototype mean by its counts (None: equal).

    Returns:
        A normalised copy of ``features``.
    """
    return apply_gains(features, grey_world_gains(features, land, kind))


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
    light: np.ndarray | None = None,
    hidden: np.ndarray | None = None,
    chipped: np.ndarray | None = None,
    paper: float | None = None,
    touched: np.ndarray | None = None,
) -> list[TerrainReading]:
    """Classify every hex jointly.

    Args:
        features: float (N, 4) from :func:`hex_features`.
        kind: base or 5-6 to use their terrain counts; seafarers or None for free choice.
        sea: bool (N,), hexes known to be sea (from the blue test of registration); they are
            kept out of the light normalisation and of the count constraint.
        counts: explicit terrain counts (overrides ``kind``): of the land, adding up to the
            non-sea hexes, or of the whole map, sea included (a scenario's pool), adding up to
            every hex: sea then competes for the hexes ``sea`` leaves out (sea a hand hides
            from registration's blue test is counted, not read as land).
        light: float (N,), how brightly each hex is lit relative to the board (see
            :func:`chip_light`); None when the board is evenly lit.
        hidden: bool (N,), hexes mostly covered by a hand or an object (see
            :mod:`vision.occlusion`): read as unseen, they take what the counts leave.
        chipped: bool (N,), hexes holding a confidently read number chip: neither desert nor
            sea carries one, so those are forbidden there.
        paper: the board's chip paper, grey level 0..1 (the median of :func:`chip_paper`
            over 255), given with ``light``: a hex whose chip is brighter than the board's
            may lie under a glare spot, which *adds* white (the chip's excess over the board's
            paper) to chip and art alike instead of multiplying the light, and washes a
            gold hex out to a fields hex's colour. Such a hex is read both ways, each terrain
            costing what the likelier of the two explanations leaves, so that a hex the two
            read differently is not read surely; without counts it is also read so (the
            glare's explanation at the cost :data:`_GLARE_PRIOR`), under counts not.
        touched: bool (N,), hexes a hand or an object reaches into at all: read from what
            shows of them, but their costs vouch for no other hex's reading (under counts,
            a hex's confidence is judged letting them be any terrain: see :func:`_margins`).

    Returns:
        One :class:`TerrainReading` per hex, in order.

    Example:
        >>> feats = np.array([PROTOTYPES[t][0] for t in COUNTS["base"].elements()])
        >>> [r.terrain for r in classify_terrain(feats, kind="base")] == list(
        ...     COUNTS["base"].elements())
        True
    """
    n = len(features)
    if n == 0:
        return []
    camera = features
    lights = np.ones(n) if light is None else np.asarray(light, float)
    # The ways each hex's chip may have been lit, (multiplier, white added) per hex: by more
    # or less light, or, where brighter than the board, by the board's light and a glare.
    lightings = [(lights, np.zeros(n))]
    if paper is not None and np.any(lights > 1.0):
        lightings.append((np.minimum(lights, 1.0), paper * np.maximum(lights - 1.0, 0.0)))
    features = apply_gains(camera, 1.0 / lights[:, None])
    is_sea = np.zeros(n, bool) if sea is None else np.asarray(sea, bool)
    want = counts if counts is not None else COUNTS.get(kind or "")
    # Sea the counts hold beyond what registration found (counts of the whole map).
    more_sea = 0
    if want is not None and want.get(Terrain.SEA):
        more_sea = int(want[Terrain.SEA]) - int(is_sea.sum())
        if sum(want.values()) != n or more_sea < 0:
            want = None
    elif want is not None and sum(want.values()) != int((~is_sea).sum()):
        # The counts cannot hold (a hex misread as sea, or a custom map): classify freely.
        want = None
    terrains = [t for t in PROTOTYPES if t != Terrain.SEA and (want is None or want.get(t))]
    if want is None and kind != "seafarers":
        terrains = [t for t in terrains if t != Terrain.GOLD]
    land_idx = np.nonzero(~is_sea)[0]
    slots = (
        np.array(
            [j for j, t in enumerate(terrains) for _ in range(want.get(t, 0))]
            + [len(terrains)] * more_sea  # the sea column _read appends
        )
        if want is not None
        else None
    )
    # Sea the blue test missed is compared with the sea it found (or the stock sea): free on
    # a Seafarers map, or where the counts hold more sea than was found.
    sea_column = (
        more_sea > 0 if want is not None else kind == "seafarers" and is_sea.sum() >= _MIN_SEA
    )
    is_hidden = np.zeros(n, bool) if hidden is None else np.asarray(hidden, bool)
    # A hidden hex's colour is the hand's: it says nothing about the board's light.
    lit = ~is_sea & ~is_hidden
    is_chipped = np.zeros(n, bool) if chipped is None else np.asarray(chipped, bool) & ~is_sea
    looks = _looks(camera, lightings, grey_world_gains(features, lit, kind))
    read = _read(looks, sea_column, is_sea, is_hidden, terrains, slots, is_chipped)
    land_read = np.array([read.terrains[j] != Terrain.SEA for j in read.assigned])
    if not np.all(land_read[lit]):
        # Sea that registration's blue test missed (a third of the Seafarers renders have
        # some) is no land: in the land's mean it made the board look bluer than it is, and
        # every hex was read through a yellow-red cast (fields as gold). Read again with the
        # light of the hexes read as land.
        looks = _looks(camera, lightings, grey_world_gains(features, lit & land_read, kind))
        read = _read(looks, sea_column, is_sea, is_hidden, terrains, slots, is_chipped)
    terrains, raw, costs, assigned, doubt = read
    is_touched = np.zeros(n, bool) if touched is None else np.asarray(touched, bool)
    margin = _margins(doubt, land_idx, slots, assigned, is_touched)
    # A hex far from every stock prototype may still look like this board's own print of the
    # terrain it is read as, the other hexes read so (a print run's colour, a cast the light
    # estimate missed: bench vision seed 0 render 96, a mountains hex as purple as the board's
    # other two): that is its terrain seen, not a hand or a book over it. A hex a hand touches
    # is no part of the print.
    seen = land_idx[~is_hidden[land_idx] & ~is_touched[land_idx]]
    own_print = _board_costs(looks[0], raw, terrains, assigned, seen, raw < _OUTLIER)
    out: list[TerrainReading] = []
    for i in range(n):
        cost_map = {t: float(costs[i, j]) for j, t in enumerate(terrains)}
        if is_sea[i]:
            out.append(TerrainReading(Terrain.SEA, 1.0, cost_map))
            continue
        # Two-hypothesis posterior of the best reading against the best one that differs
        # here, with likelihoods exp(-cost): a margin of 2.2 gives 0.9.
        conf = float(1.0 / (1.0 + np.exp(-min(margin[i], 50.0))))
        unseen = bool(
            is_hidden[i] or (raw[i].min() >= _OUTLIER and own_print[i, assigned[i]] >= _OUTLIER)
        )
        if unseen:
            # Deduced from the counts at best, never seen: a person has to look.
            conf = min(conf, _UNSEEN_CONFIDENCE)
        out.append(TerrainReading(terrains[assigned[i]], conf, cost_map, unseen))
    return out


class _Look(NamedTuple):
    """The hexes as one way of lighting them explains them: ``features`` (N, 4) in the
    prototypes' light, each hex's light ``mult`` (N,) and glare ``white`` (N,), 0..1, the
    board's ``gains`` (B, G, R) that took them out, and the ``camera``'s colour (N, 3), BGR
    0..1, they were taken out of."""

    features: np.ndarray
    mult: np.ndarray
    white: np.ndarray
    gains: np.ndarray
    camera: np.ndarray

    def variants(self) -> list[_Look]:
        """This look and, where the camera clipped some hex, the same with those hexes lit
        :data:`_CLIPPED_LIGHT` times more: each terrain costs the least of the two.

        Under a bright lamp the red of gold and fields clips: a hex a little brighter than
        its light says (its print, the light estimate's error) has its red cut further than
        the prototypes shown under that light, and looks yellower than its art (a gold hex
        as pale as fields).
        """
        clipped = self.camera.max(axis=1) >= _CLIP
        if not clipped.any():
            return [self]
        mult = np.where(clipped, self.mult * _CLIPPED_LIGHT, self.mult)
        return [self, _lit(self.camera, self.features, mult, self.white, self.gains)]

    def shown(self, lab: np.ndarray) -> np.ndarray:
        """Colours (N, K, 3) CIELAB, one row per hex, as this look would show them: under
        each hex's light and glare, clipped at white as the camera clips, and brought back.
        Where nothing clips they are unchanged."""
        n, k = lab.shape[:2]
        m, w = self.mult[:, None, None], self.white[:, None, None]
        art = lab_to_bgr(lab.reshape(-1, 3)).reshape(n, k, 3) / self.gains
        cam = np.clip(m * art + w, 0.0, 1.0)
        seen = np.clip((cam - w) / m * self.gains, 1e-4, 1.0)
        return bgr_to_lab(seen.reshape(-1, 3)).reshape(n, k, 3)


def _looks(
    camera: np.ndarray,
    lightings: Sequence[tuple[np.ndarray, np.ndarray]],
    gains: np.ndarray,
) -> list[_Look]:
    """The camera's features (N, 4) under each lighting ``(multiplier (N,), white (N,))``
    with the board's ``gains`` (B, G, R) taken out.

    A camera clips at white: a bright lamp or a glare spot over fields or gold leaves red at
    255, and the hex's colour is then less red than its art (a gold hex as pale as fields).
    Each prototype is passed through the same light and clipping before it is compared
    (:meth:`_Look.shown`), so a clipped hex is compared with what each terrain would look
    like clipped.
    """
    bgr = lab_to_bgr(camera[:, :3])
    return [_lit(bgr, camera, mult, white, gains) for mult, white in lightings]


def _lit(
    bgr: np.ndarray, camera: np.ndarray, mult: np.ndarray, white: np.ndarray, gains: np.ndarray
) -> _Look:
    """The :class:`_Look` of the camera's features ``camera`` (N, 4), colours ``bgr`` (N, 3)
    0..1, under the light ``mult`` (N,) and glare ``white`` (N,) with ``gains`` taken out."""
    feats = camera.copy()
    feats[:, :3] = bgr_to_lab(np.clip((bgr - white[:, None]) / mult[:, None] * gains, 1e-4, 1.0))
    return _Look(feats, mult, white, gains, bgr)


class _Reading(NamedTuple):
    """One reading of the board: the terrains its columns stand for, the costs (raw and as
    the joint reading uses them, (N, T)) and each hex's terrain column (N,)."""

    terrains: list[Terrain]
    raw: np.ndarray
    costs: np.ndarray
    assigned: np.ndarray
    #: the saturated costs (N, T) under any look, from which the confidence is judged.
    doubt: np.ndarray


def _read(
    looks: Sequence[_Look],
    sea_column: bool,
    is_sea: np.ndarray,
    is_hidden: np.ndarray,
    terrains: Sequence[Terrain],
    slots: np.ndarray | None,
    chipped: np.ndarray,
) -> _Reading:
    """Read the light-normalised features (N, 4) as ``terrains`` and, with ``sea_column``,
    sea (under the counts when ``slots`` is given, else each hex freely and then against the
    board's own print).

    ``looks`` (see :func:`_looks`): the first, the hexes as their chips' light explains
    them, is read; the others (a glare) are read too where there are no counts, and under
    counts only give the ``doubt`` costs: each terrain's least cost over every look, from
    which the confidence is judged.
    """
    terrains = list(terrains)
    land_idx = np.nonzero(~is_sea)[0]
    feats = looks[0].features
    stocks = [_look_costs(look, terrains) for look in looks]
    if sea_column:
        # Sea inside the frame that registration's blue test missed (a hand over part of it,
        # a glare) is still this board's sea: compared with the sea hexes it did find.
        terrains.append(Terrain.SEA)
        own_sea = (
            np.median(feats[is_sea], axis=0)
            if is_sea.sum() >= _MIN_SEA
            else np.array(PROTOTYPES[Terrain.SEA][0])
        )
        stocks = [
            np.column_stack([stock, (((look.features - own_sea) / _SCALE) ** 2).sum(axis=1)])
            for stock, look in zip(stocks, looks, strict=True)
        ]
    # Without counts a hex's reading is its own: a hex whose chip is brighter than the
    # board's takes the likelier of the explanations, light or glare, the glare's at a
    # prior's cost (seed 0, render 263: a glared fields hex, lit 1.39 by its chip, read as
    # desert). Under counts the glare's freedom let a base board's desert and hills hexes
    # swap (seed 37, render 21): there it only judges the confidence.
    readers = len(looks) if slots is None else 1
    prior = np.array([0.0, *[_GLARE_PRIOR] * (readers - 1)])[:, None, None]
    raw = _barren_forbidden(np.min(np.array(stocks[:readers]) + prior, axis=0), terrains, chipped)
    costs = _barren_forbidden(_saturated(raw, is_hidden), terrains, chipped)
    assigned = _assign(raw, costs, land_idx, slots)
    if slots is None:
        _no_more_gold_than_fields(raw, assigned, land_idx, terrains)
    # Without counts, nothing but the board's own print tells a terrain from its neighbour in
    # colour (fields from gold); with counts, the constraint does that better (real boards'
    # fields and desert are close enough for the print of one to drift onto the other).
    printed = False
    seen = land_idx[~is_hidden[land_idx]]
    for _ in range(_ROUNDS if slots is None else 0):
        printed = True
        explained = raw < _OUTLIER
        own = [
            _board_costs(look, stock, terrains, assigned, seen, explained)
            for look, stock in zip(looks[:readers], stocks[:readers], strict=True)
        ]
        raw = np.min(np.array(own) + prior, axis=0)
        raw = _barren_forbidden(raw, terrains, chipped)
        costs = _barren_forbidden(_saturated(raw, is_hidden), terrains, chipped)
        again = _assign(raw, costs, land_idx, slots)
        _no_more_gold_than_fields(raw, again, land_idx, terrains)
        if np.array_equal(again, assigned):
            break
        assigned = again
    doubt = raw
    for look, stock in zip(looks[1:], stocks[1:], strict=True):
        other = (
            _board_costs(look, stock, terrains, assigned, seen, raw < _OUTLIER)
            if printed
            else stock
        )
        # A print measured on clipped or unglared hexes is no measure of a glared one: its
        # stock prototypes, passed through the glare and the clipping, are compared too.
        doubt = np.minimum(doubt, _barren_forbidden(np.minimum(other, stock), terrains, chipped))
    doubt = _barren_forbidden(_saturated(doubt, is_hidden), terrains, chipped)
    return _Reading(terrains, raw, costs, assigned, doubt)


def _look_costs(look: _Look, terrains: Sequence[Terrain]) -> np.ndarray:
    """:func:`terrain_costs` of one look (N, T): each hex against the stock prototypes as
    that look shows them (:meth:`_Look.shown`)."""
    n = len(look.features)
    costs = np.full((n, len(terrains)), np.inf)
    lits = look.variants()
    for j, t in enumerate(terrains):
        protos = np.array(PROTOTYPES[t])
        for lit in lits:
            shown = np.broadcast_to(protos[None], (n, *protos.shape)).copy()
            shown[..., :3] = lit.shown(shown[..., :3])
            d = ((lit.features[:, None, :] - shown) / _SCALE) ** 2
            costs[:, j] = np.minimum(costs[:, j], d.sum(axis=2).min(axis=1))
    return costs


def _barren_forbidden(
    costs: np.ndarray, terrains: Sequence[Terrain], chipped: np.ndarray
) -> np.ndarray:
    """``costs`` (N, T) with desert and sea forbidden on the ``chipped`` hexes (bool (N,))."""
    cols = [j for j, t in enumerate(terrains) if t in (Terrain.DESERT, Terrain.SEA)]
    if not cols or not chipped.any():
        return costs
    out = costs.copy()
    out[np.ix_(np.nonzero(chipped)[0], cols)] = _FORBIDDEN
    return out


def _saturated(raw: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """The costs the joint reading uses: saturating at :data:`_OUTLIER`, and that for every
    terrain of a hidden hex (whatever it looks like, it is not its tile)."""
    # Saturating rather than clipped: a hex a little beyond every prototype (an edition's art
    # unlike the stock ones) still says which terrain it is nearest.
    costs = _OUTLIER * (1.0 - np.exp(-raw / _OUTLIER))
    costs[hidden] = _OUTLIER
    return costs


def _assign(
    raw: np.ndarray, costs: np.ndarray, land_idx: np.ndarray, slots: np.ndarray | None
) -> np.ndarray:
    """Each hex's terrain column: the cheapest by its ``raw`` costs or, under the counts
    (``slots``: the terrain column of every slot), the cheapest assignment of land hexes to
    slots by the saturated ``costs``."""
    assigned = np.argmin(raw, axis=1)
    if slots is not None and len(land_idx):
        rows, cols = linear_sum_assignment(costs[land_idx][:, slots])
        assigned[land_idx[rows]] = slots[cols]
    return assigned


def _no_more_gold_than_fields(
    raw: np.ndarray, assigned: np.ndarray, land_idx: np.ndarray, terrains: Sequence[Terrain]
) -> None:
    """Read the most fields-like of the gold hexes as fields (in place) until gold does not
    outnumber fields: no Seafarers map has more gold fields than fields, and a board whose
    fields all read gold is one whose light or print made them look golden."""
    if Terrain.GOLD not in terrains or Terrain.FIELDS not in terrains:
        return
    g, f = terrains.index(Terrain.GOLD), terrains.index(Terrain.FIELDS)
    gold = [i for i in land_idx if assigned[i] == g]
    fields = sum(1 for i in land_idx if assigned[i] == f)
    excess = (len(gold) - fields + 1) // 2
    if excess <= 0:
        return
    fields_like = sorted(gold, key=lambda i: raw[i, f] - raw[i, g])
    assigned[fields_like[:excess]] = f


def _margins(
    costs: np.ndarray,
    land_idx: np.ndarray,
    slots: np.ndarray | None,
    assigned: np.ndarray,
    touched: np.ndarray,
) -> np.ndarray:
    """How much worse the best reading is in which each hex has another terrain.

    Under counts the best reading in which a hex has another terrain moves that terrain to
    other hexes; a hex a hand reaches into (``touched``, bool (N,)) looks like what the
    hand's skin and shadow make of it, so what it would cost there says nothing: every
    other touched hex is let be any terrain at no cost (bench vision --real-hands, catan_55,
    whose old desert looks like fields: two fields hexes looked half desert, the hand's
    shadow over one made it look surely fields, and the other, clear of the hand, was read
    desert with 0.96). A hex's own costs still judge its own reading.
    """
    n = len(costs)
    if slots is None or not len(land_idx):
        if costs.shape[1] < 2:
            return np.full(n, _FORBIDDEN)
        # Against the best other terrain: the gold rule may have read a hex as a dearer one.
        other = costs.copy()
        other[np.arange(n), assigned] = np.inf
        return other.min(axis=1) - costs[np.arange(n), assigned]
    margin = np.zeros(n)
    sub = costs[land_idx][:, slots]
    free = touched[land_idx]
    for r_ in range(len(land_idx)):
        judged = sub.copy()
        others = free.copy()
        others[r_] = False
        judged[others] = 0.0
        rows, cols = linear_sum_assignment(judged)
        best = float(judged[rows, cols].sum())
        judged[r_, slots == assigned[land_idx[r_]]] = _FORBIDDEN
        fr, fc = linear_sum_assignment(judged)
        margin[land_idx[r_]] = float(judged[fr, fc].sum()) - best
    return margin


def _board_costs(
    look: _Look,
    stock: np.ndarray,
    terrains: Sequence[Terrain],
    assigned: np.ndarray,
    land_idx: np.ndarray,
    explained: np.ndarray,
) -> np.ndarray:
    """Costs against this board's own print of each terrain.

    Every tile of one terrain on a board comes from one print, so the hexes read as that
    terrain show what it looks like here (a print run, an edition, a lamp the light estimate
    missed). Each terrain's prototype is the mean of its hexes' features, drawn towards the
    nearest stock prototype by :data:`_PRIOR` hexes' worth of weight; a hex is compared with
    the mean of the *other* hexes, so it never votes for its own reading. ``stock`` holds the
    costs against the prototypes; the sea's are kept (they are this board's already).
    ``look``: the hexes' features and how they are lit (see :func:`_looks`).
    """
    feats = look.features
    costs = stock.copy()
    land = np.zeros(len(feats), bool)
    land[land_idx] = True
    lits = look.variants()
    for j, t in enumerate(terrains):
        members = land & (assigned == j) & explained[:, j]
        if t == Terrain.SEA or not members.any():
            continue
        protos = np.array(PROTOTYPES[t])
        mean = feats[members].mean(axis=0)
        prior = protos[int(np.argmin((((mean - protos) / _SCALE) ** 2).sum(axis=1)))]
        total = _PRIOR * prior + feats[members].sum(axis=0)
        weight = np.full(len(feats), _PRIOR + float(members.sum()))
        own = np.tile(total, (len(feats), 1))
        own[members] -= feats[members]
        weight[members] -= 1.0
        centre = own / weight[:, None]
        # The print as this hex's light and the camera's clipping would show it.
        costs[:, j] = np.inf
        for lit in lits:
            shown = centre.copy()
            shown[:, :3] = lit.shown(centre[:, None, :3])[:, 0]
            costs[:, j] = np.minimum(costs[:, j], (((lit.features - shown) / _SCALE) ** 2).sum(1))
    return costs
