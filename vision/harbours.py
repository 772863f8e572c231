"""Harbours on a rectified board: which coast sides hold one, and what each one trades.

Method
------
A harbour is art lying on the sea off a coast side: a token, a printed plaque or an icon, with
piers running to the side's two corners. Every coast side (a land hex's side whose other hex is
sea or the frame) is looked at on its *spot*, a disc on the sea just off the side's midpoint,
where every edition puts its harbour art. The top view is read in CIELAB white-balanced on the
chips (:func:`vision.robber.board_balance`):

* the *sea* is the dominant colour of the sea band along the coast: the median of small
  patches beside every spot (most of them are plain sea), with its own texture as the spread;
  a pixel farther from it than a few spreads is *art*;
* a side is *hidden* when both patches beside its spot are art too: a hand, an arm or a glare
  spreads along the coast, a harbour does not;
* its *presence* is the fraction of the spot that is art;
* its *kind* is the colour of that art. Resources are printed in their colours (dark green
  lumber, light green wool, golden grain, red-brown brick, grey ore) and generic harbours are
  white paper with dark ink: the colour is the median of the art's coloured pixels when there
  are enough of them, else of its light pixels, and each kind scores by a Gaussian around its
  printed colour. Art far from every printed colour (skin, a piece) has no kind;
* a *token's print* weighs on its kind: a generic token shows dark print on light paper
  (its "3:1", a "?"), a resource's token its colour or icon and none (:func:`token_marks`).

Joint reading. The base and 5-6 frames put their harbours on fixed sides in the rulebook
(:data:`companion.layouts.BASE_HARBOR_SITES` and ``EXTENSION_HARBOR_SITES``), known here up to
the frame's symmetry (the camera does not know which way is up), and carry a fixed set of
kinds. The layout whose sides best explain the presences is taken when it beats every other by
``layout_margin`` and nothing seen contradicts it (real frames are also assembled in other
orders). Its kinds are then assigned jointly: the board's exposure first (one light gain
shared by all its harbours, :func:`_exposure`), then one kind per token of the set by the
Hungarian method on log-scores; each harbour's confidence is how much the joint score loses
when its kind is forbidden there, as the chip reader does, and the set only chooses among the
kinds the side's own colour allows. When every side of the layout but one is read and the set
leaves one kind, that side is deduced to hold it (:func:`_with_last_of_set`), with the doubt of
a deduction. A standard frame that fits no layout clearly is read side
by side, its set of kinds shared among every side that may hold a harbour (two ores cannot both
be right); Seafarers maps (harbour tokens on any coast, no fixed set) are read side by side,
each side by its own colour.

Printed icons. The current art has no token but a small icon between two piers, too small
for the spot's colour; three of its icons have a colour nothing else off a coast has (red
bricks, a golden sheaf, brown logs), and :func:`read_icons` names those sides; a generic
harbour's printed "3:1" is read as text (:mod:`vision.harbour_text`), and when ore and wool
are all a standard frame's set has left, its two grey icons are told apart by the sheep's
grass (:mod:`vision.harbour_grey`). They join the colour
reading within the frame's set of kinds and never overrule it (:func:`_with_icons`).

The base frame's six parts go in any order (RULES.md 1.3.4), each with its harbours on fixed
sides (:func:`frame_layouts`): when every harbour read one by one is sure and exactly one
order of the parts holds them all, the sides left are known, the grey icons are looked for
there alone, and when the frame's set lacks one kind only (the logs under a glare), those
sides carry it (:func:`_with_frame_parts`). A far side registered off (a warped board, lens
distortion) is set right locally before the marks are looked for, by each side's own tile
outline (:mod:`vision.harbour_coast`).

A harbour that cannot be read honestly (hidden, no clear kind, not clearly there) is left out
of the reading and counted in :attr:`HarbourReading.unread`, so the board is not certain.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from companion.board import (
    HARBOR_KINDS,
    NEIGHBOUR_OFFSET,
    Harbor,
    Hex,
    Terrain,
    Tile,
    base_frame,
    edge,
    edge_midpoint,
    edge_vertices,
    extension_frame,
    hex_center,
    hex_neighbour,
    vertex_position,
)
from companion.layouts import (
    BASE_HARBOR_KINDS,
    BASE_HARBOR_SITES,
    EXTENSION_HARBOR_KINDS,
    EXTENSION_HARBOR_SITES,
    base_frame_layouts,
)
from vision.harbour_coast import coast_offsets
from vision.harbour_grey import (
    GreyIcon,
    grey_icon,
    icon_patch,
    is_logs,
    is_rocks,
    ore_and_wool,
)
from vision.harbour_text import STEP, generic_harbours, plane_samples, read_ratios
from vision.numeric import median
from vision.scoring import symmetries

Site = tuple[Hex, str]

#: The standard frames: their hexes, harbour sides and harbour kinds (RULES.md 1.1.2, 2.2.1).
STANDARD: dict[str, tuple[list[Hex], tuple[Site, ...], tuple[str, ...]]] = {
    "base": (base_frame(), BASE_HARBOR_SITES, BASE_HARBOR_KINDS),
    "5-6": (extension_frame(), EXTENSION_HARBOR_SITES, EXTENSION_HARBOR_KINDS),
}

#: The Seafarers harbour tokens (RULES.md 3.1.2): 5 generic and one of each resource.
SEAFARERS_TOKENS: Counter[str] = Counter({k: 5 if k == "3:1" else 1 for k in HARBOR_KINDS})

#: The printed colour of each kind in CIELAB (L*, a*, b*) under a neutral lamp, the chips'
#: paper at (85, 1, 14): white paper for generic harbours, the resource's own colour otherwise.
PRINTED: dict[str, tuple[float, float, float]] = {
    "3:1": (90.0, 0.0, 2.0),
    "ore": (57.0, 2.0, -8.0),
    "lumber": (42.0, -28.0, 24.0),
    "wool": (70.0, -36.0, 46.0),
    "grain": (76.0, 4.0, 60.0),
    "brick": (52.0, 28.0, 40.0),
}

#: A Seafarers token named by its colour alone is in doubt when the next kind's printed colour
#: lies less than this many times as far from it as its own kind's (:func:`_colour_doubts`).
#: Chosen on bench vision seed 0's renders 0-149: the two tokens read as the wrong kind by
#: colour (lumber as ore, at 0.98) lie at 1.84 and 2.18; 35 of the 108 Seafarers tokens read
#: right lie below 2.2 too, on boards that were not certain for other reasons.
COLOUR_MARGIN = 2.2
#: The confidence, at most, of a token whose colour is in doubt: below a harbour's
#: ``certain`` (0.9), not a reading to trust without a look.
DOUBTFUL_CONFIDENCE = 0.6
#: The confidence of a harbour deduced from a standard layout's set of kinds
#: (:func:`_with_last_of_set`): right only if the layout and every other harbour are, so
#: never one to trust without a look (as a chip deduced from the chip counts).
DEDUCED_CONFIDENCE = 0.5

#: How a token's print (:func:`token_marks`) weighs on its kind: a token that shows dark print
#: on light paper (at least ``_INKED`` of its disc, the disc's median at least ``_PAPER`` L*)
#: is ``INKED_ODDS`` times as likely generic as its colour says, one with next to none (below
#: ``_UNINKED``) ``UNINKED_ODDS`` times as likely. On bench vision seed 0's renders (the
#: three token styles, tokens filling their spot) 76% of the generic tokens and 0.2% of the
#: others show at least 0.04, 12% of the generic ones and 86% of the others below 0.005:
#: likelihood ratios of about 380 and 1/7, taken at 20 and 1/5 (a shadow, a cast, a token
#: off its spot).
INKED_ODDS, UNINKED_ODDS = 20.0, 0.2
_INKED, _UNINKED, _PAPER = 0.04, 0.005, 60.0
#: A spot at least this much art is a token, whose print is looked at.
_TOKEN = 0.8
#: A board's own print of a kind (:func:`_board_prints`): the stock print is known to within
#: ``_STOCK_SPREAD`` (a printing's shift, the light's cast), and one board's tokens of a kind
#: scatter round their print by ``_TOKEN_SPREAD`` in L*, a*, b*: their lightness with the
#: light across the board, their colour hardly (bench vision seed 0, renders 0-149, tokens
#: filling their spot: deviations from their board's median of the kind, 90% within
#: 7-11 L* and 2-4 in a* and b*).
_STOCK_SPREAD = 11.0
#: The weight of lightness in a colour's distance from a print: the light across the board
#: moves a token's lightness more than its colour.
_LIGHTNESS_WEIGHT = 0.8
_TOKEN_SPREAD = (8.0, 3.0, 3.0)
#: The weight of the board's print's density against the stock print's, the larger of the
#: two counting: a token may lie off its board's print (a glare, a shadow), and is then
#: judged by the stock print as before.
_BOARD_SHARE = 0.5

# Lightness counts half as much as colour: the lamp's fall-off changes it across the board.
_L_WEIGHT = 0.5
# Pixels darker than this (L*) are ink, outlines or shadow, not a harbour's colour.
_INK = 35.0
# A pixel with more chroma than this is coloured (the icon), less is paper or grey.
_COLOURED = 20.0
# Score given to a kind that does not fit (and floor of any score) in the joint log-score.
_SCORE_FLOOR = 0.01

#: Pixel classes of the printed icons whose colour nothing else off a coast has (CIELAB,
#: white-balanced on the chips): the current art's red bricks, golden sheaf and brown logs,
#: and the renderer's tokens of those colours. Sea, beach, piers, the "3:1" text and the grey
#: icons (ore's rocks, wool's sheep) fall in none. Brick is redder than yellow (skin, wood and
#: the beach are not); grain is yellow without red (orange pieces are not); the logs' wood is
#: darker than the straw and the beach and less red than the bricks.
_ICON_CLASSES = ("brick", "grain", "lumber")
# Which classes' colour in a disc forbids reading another's icon there (rows: the icon read).
# A sheaf's shadowed straw is the logs' brown: grain forbids lumber, not the other way.
_ICON_VETO = np.array([[False, True, False], [True, False, False], [True, True, False]])


@dataclass(frozen=True)
class SiteReading:
    """What one coast side's spot shows.

    Attributes:
        site: ``(land hex, side)`` in the reading's coordinates.
        seen: False when the spot is hidden (a hand, an arm, a glare) or out of view.
        presence: 0..1, the fraction of the spot that is art rather than sea.
        colour: the art's colour in CIELAB (L*, a*, b*), or None when there is too little.
        scores: kind -> 0..1 (summing to 1); empty when no printed colour fits the art.
        inked: on a token (the spot mostly art), True when it shows a generic harbour's
            dark print on light paper (:func:`token_marks`), False when it shows no dark
            print at all; None when neither is clear or no token fills the spot.
    """

    site: Site
    seen: bool
    presence: float
    colour: tuple[float, float, float] | None
    scores: dict[str, float]
    inked: bool | None = None


@dataclass(frozen=True)
class HarbourReading:
    """The harbours read on a board.

    Attributes:
        harbors: the harbours read, each with its kind's confidence (0..1).
        sites: every coast side examined.
        layout: "standard" when a standard frame's layout was recognised, "known" when a
            known map's was given, else "free".
        unread: harbours that are (or may be) there but were not read honestly.
        warnings: what is doubtful, each starting with "uncertain" when the board should not
            be trusted without a look.
    """

    harbors: list[Harbor]
    sites: list[SiteReading]
    layout: str
    unread: int
    warnings: list[str]


def coast_sites(tiles: Mapping[Hex, Tile]) -> list[Site]:
    """Every ``(land hex, side)`` whose other hex is sea or off the board, in a fixed order.

    >>> from companion.board import Terrain, Tile
    >>> len(coast_sites({h: Tile(Terrain.FOREST) for h in base_frame()}))
    30
    """
    out = []
    for h in sorted(tiles):
        if not tiles[h].terrain.is_land:
            continue
        for side in NEIGHBOUR_OFFSET:
            other = tiles.get(hex_neighbour(h, side))
            if other is None or other.terrain == Terrain.SEA:
                out.append((h, side))
    return out


def standard_layouts(kind: str, hexes: Sequence[Hex]) -> list[frozenset[Site]]:
    """The standard harbour sides of a ``kind`` frame laid on ``hexes`` every way it fits.

    The frame's hexes are mapped onto ``hexes`` by each of the 12 symmetries of the grid that
    lays them onto it; distinct side sets are returned. Empty when ``kind`` has no standard
    layout or ``hexes`` is not its frame.

    The base layout turns onto itself every third of a turn, so its 12 placements give 2:

    >>> len(standard_layouts("base", base_frame()))
    2
    """
    if kind not in STANDARD:
        return []
    frame, sites, _ = STANDARD[kind]
    return _laid(frame, [frozenset(sites)], hexes)


def frame_layouts(kind: str, hexes: Sequence[Hex]) -> list[frozenset[Site]]:
    """Every set of harbour sides a ``kind`` frame's parts can be assembled into
    (:func:`companion.layouts.base_frame_layouts`), laid on ``hexes`` every way it fits.
    Only the base frame's parts are known; empty for any other kind.

    >>> len(frame_layouts("base", base_frame())), len(frame_layouts("5-6", extension_frame()))
    (38, 0)
    """
    if kind != "base":
        return []
    return list(_base_layouts_on(tuple(sorted(set(hexes)))))


@lru_cache(maxsize=8)
def _base_layouts_on(hexes: tuple[Hex, ...]) -> tuple[frozenset[Site], ...]:
    # A camera's board keeps its hexes from photo to photo: laid once.
    return tuple(_laid(base_frame(), base_frame_layouts(), hexes))


def _laid(
    frame: Sequence[Hex], layouts: Sequence[frozenset[Site]], hexes: Sequence[Hex]
) -> list[frozenset[Site]]:
    """The side sets ``layouts`` of ``frame`` mapped onto ``hexes`` by each symmetry of the
    grid that lays the frame onto them, distinct."""
    target = set(hexes)
    lo = min(target) if target else (0, 0)
    out: list[frozenset[Site]] = []
    for g in symmetries():
        moved = [g(h) for h in frame]
        m_lo = min(moved)
        t = (lo[0] - m_lo[0], lo[1] - m_lo[1])

        def place(h: Hex, g=g, t=t) -> Hex:  # noqa: ANN001
            m = g(h)
            return (m[0] + t[0], m[1] + t[1])

        if {place(h) for h in frame} != target:
            continue
        for sites in layouts:
            layout = frozenset(
                _site_between(place(h), place(hex_neighbour(h, s))) for h, s in sites
            )
            if layout not in out:
                out.append(layout)
    return out


def _site_between(land: Hex, other: Hex) -> Site:
    d = (other[0] - land[0], other[1] - land[1])
    side = next(s for s, off in NEIGHBOUR_OFFSET.items() if off == d)
    return (land, side)


def _square(radius: float, step: float) -> tuple[np.ndarray, np.ndarray]:
    """A square grid of points ``step`` apart around a disc: offsets (n*n, 2) in hex radii,
    row by row, and the (n, n) bool mask of those inside the disc."""
    n = int(math.ceil(radius / step))
    g = np.arange(-n, n + 1) * step
    xs, ys = np.meshgrid(g, g)
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    return pts, (np.hypot(pts[:, 0], pts[:, 1]) <= radius).reshape(len(g), len(g))


def _disc(radius: float, step: float) -> np.ndarray:
    """Offsets (N, 2), in hex radii, of a grid of points ``step`` apart inside a disc."""
    pts, inside = _square(radius, step)
    return pts[inside.ravel()]


def _sample(lab: np.ndarray, plane_to_top: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Lab values at board-plane points (..., 2); NaN where a point leaves the top view."""
    shape = points.shape[:-1]
    flat = points.reshape(-1, 2)
    x = np.round(flat[:, 0] * plane_to_top[0, 0] + plane_to_top[0, 2]).astype(int)
    y = np.round(flat[:, 1] * plane_to_top[1, 1] + plane_to_top[1, 2]).astype(int)
    h, w = lab.shape[:2]
    ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    out = np.full((len(flat), 3), np.nan, np.float32)
    out[ok] = lab[y[ok], x[ok]]
    # A warped top view is black beyond the photo: that is no view either.
    out[ok & (lab[np.clip(y, 0, h - 1), np.clip(x, 0, w - 1), 0] <= 0.0)] = np.nan
    return out.reshape(*shape, 3)


def _covered_share(mask: np.ndarray, plane_to_top: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Share of each row of board-plane ``points`` (N, M, 2) on which the bool (H, W)
    ``mask`` is set (points off the top view count as not set): float (N,)."""
    x = np.round(points[..., 0] * plane_to_top[0, 0] + plane_to_top[0, 2]).astype(int)
    y = np.round(points[..., 1] * plane_to_top[1, 1] + plane_to_top[1, 2]).astype(int)
    h, w = mask.shape
    ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    hit = np.zeros(x.shape, bool)
    hit[ok] = mask[y[ok], x[ok]]
    return hit.mean(axis=-1)


def _distance(samples: np.ndarray, ref: np.ndarray) -> np.ndarray:
    d = samples - ref
    return np.sqrt((_L_WEIGHT * d[..., 0]) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def spot_geometry(
    sites: Sequence[Site], out: float = 0.45, coast: Mapping[Site, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each site's spot centre and the unit vector along its side, board-plane (N, 2) each.

    The spot lies ``out`` hex radii beyond the side's midpoint, away from the land hex; a
    side in ``coast`` lies that much farther out than the registration puts it
    (:func:`vision.harbour_coast.coast_offsets`), and so does all beyond it.
    """
    centres, along = [], []
    for h, side in sites:
        mid, normal, t = _side_geometry(h, side)
        moved = out + (coast.get((h, side), 0.0) if coast else 0.0)
        centres.append(mid + moved * normal)
        along.append(t)
    return np.array(centres).reshape(-1, 2), np.array(along).reshape(-1, 2)


@cache
def _side_geometry(h: Hex, side: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The side's midpoint, its unit normal away from ``h`` and its unit direction, board
    plane (read-only float64 (2,) each): a read asks for each site's a dozen times."""
    e = edge(h[0], h[1], side)
    mid = np.array(edge_midpoint(e))
    normal = mid - np.array(hex_center(h))
    normal /= np.linalg.norm(normal)
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(e))
    t = (b - a) / np.linalg.norm(b - a)
    for v in (mid, normal, t):
        v.flags.writeable = False
    return mid, normal, t


def side_axes(
    sites: Sequence[Site], coast: Mapping[Site, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each site's side midpoint (moved out by ``coast``, see :func:`spot_geometry`) and the
    unit normal out to sea, board-plane (N, 2) each.

    >>> mids, normals = side_axes([((0, 0), "E")])
    >>> bool(mids[0, 0] > 0), normals.round(3).tolist()
    (True, [[1.0, 0.0]])
    """
    mids = spot_geometry(sites, 0.0, coast)[0]
    return mids, spot_geometry(sites, 1.0, coast)[0] - mids


def token_discs(
    reading: HarbourReading,
    plane_to_top: np.ndarray,
    *,
    occupied: float = 0.55,
    out: float = 0.5,
    radius: float = 0.32,
) -> list[tuple[float, float, float]]:
    """Where harbour tokens lie on the sea: discs ``(x, y, radius)`` in top-view pixels.

    One disc per harbour read and per side seen whose spot holds at least ``occupied`` art
    (a token read as no kind is still a token). A token lies ``out`` hex radii beyond its
    side's midpoint; ``radius`` (hex radii) covers it and its outline.

    >>> reading = HarbourReading([Harbor(0, 0, "E", "3:1")], [], "free", 0, [])
    >>> [round(v, 2) for v in token_discs(reading, np.diag([10.0, 10.0, 1.0]))[0]]
    [13.66, 0.0, 3.2]
    """
    chosen: list[Site] = [((h.q, h.r), h.side) for h in reading.harbors]
    chosen += [
        r.site for r in reading.sites if r.seen and r.presence >= occupied and r.site not in chosen
    ]
    if not chosen:
        return []
    centres = spot_geometry(chosen, out)[0]
    px = float(plane_to_top[0, 0])
    top = centres * px + plane_to_top[:2, 2]
    return [(float(x), float(y), radius * px) for x, y in top]


def _stock_variance(sigma: float, lightness_weight: float) -> np.ndarray:
    """The variance per CIELAB channel of a token's colour round its kind's stock print, for
    a spread of ``sigma`` in the distance that weighs lightness by ``lightness_weight``."""
    return np.array([(sigma / lightness_weight) ** 2, sigma**2, sigma**2])


def _weighted_square(diff: np.ndarray, lightness_weight: float) -> np.ndarray:
    """The squared CIELAB distance of differences ``diff`` (..., 3), lightness weighted."""
    return (lightness_weight * diff[..., 0]) ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2


def _printed_distances(colour: np.ndarray, lightness_weight: float) -> np.ndarray:
    """CIELAB distance (lightness weighted) of ``colour`` from each kind's printed colour,
    in the order of :data:`PRINTED`."""
    diff = np.array(list(PRINTED.values()), np.float32) - colour.astype(np.float32)
    return np.sqrt(_weighted_square(diff, lightness_weight))


def colour_rival(
    colour: np.ndarray, lightness_weight: float = _LIGHTNESS_WEIGHT
) -> tuple[str, float]:
    """The kind whose printed colour is the next nearest to ``colour`` (CIELAB) after the
    nearest, and how many times farther it lies (>= 1).

    >>> kind, times = colour_rival(np.array([45.0, -9.0, 0.0]))  # nearest: ore's print
    >>> kind, round(times, 2)
    ('lumber', 1.84)
    """
    d = _printed_distances(colour, lightness_weight)
    first, second = np.argsort(d)[:2]
    return list(PRINTED)[second], float(d[second] / max(float(d[first]), 1e-6))


def kind_scores(
    colour: np.ndarray,
    sigma: float = _STOCK_SPREAD,
    fit: float = 3.0,
    lightness_weight: float = _LIGHTNESS_WEIGHT,
    inked: bool | None = None,
    board: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> dict[str, float]:
    """Posterior of each kind for an art colour (CIELAB), or {} when none is within ``fit``
    sigmas of it (CIELAB distance with lightness weighted by ``lightness_weight``). A token's
    print (``inked``, see :attr:`SiteReading.inked`) makes it :data:`INKED_ODDS` times as
    likely generic when dark print is seen on it, :data:`UNINKED_ODDS` times when none is.
    ``board``: kind -> (colour, variance per channel) of this board's own print of that
    kind, seen on its other tokens (:func:`_board_prints`): the kind is as likely as the
    stock print or the board's says, whichever is more.

    >>> max(kind_scores(np.array([76.0, 4.0, 60.0])).items(), key=lambda kv: kv[1])[0]
    'grain'
    >>> kind_scores(np.array([30.0, 60.0, -60.0]))
    {}
    """
    kinds = list(PRINTED)
    d = _printed_distances(colour, lightness_weight)
    if float(d.min()) > fit * sigma:
        return {}
    like = np.exp(-0.5 * (d / sigma) ** 2) + 1e-12
    stock = _stock_variance(sigma, lightness_weight)
    for k, (centre, var) in (board or {}).items():
        # Densities: a print known more sharply than the stock one is as much more likely
        # where a token shows it. A token off its board's print (a glare, a shadow, the
        # sea's blue at its edge) is judged by the stock print as before, never less.
        z = float(np.sum((np.asarray(colour, float) - centre) ** 2 / var))
        own = math.exp(-0.5 * z) * math.sqrt(float(np.prod(stock / var)))
        n = kinds.index(k)
        like[n] = max(_BOARD_SHARE * own, like[n])
    if inked is not None:
        like[kinds.index("3:1")] *= INKED_ODDS if inked else UNINKED_ODDS
    post = like / like.sum()
    return {k: float(p) for k, p in zip(kinds, post, strict=True)}


def read_sites(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    *,
    out: float = 0.45,
    radius: float = 0.2,
    beside: float = 0.62,
    beside_radius: float = 0.1,
    min_delta: float = 14.0,
    spreads: float = 3.0,
    min_light_art: float = 0.2,
    thin: float = 0.12,
    covered: np.ndarray | None = None,
    max_covered: float = 0.1,
) -> list[SiteReading]:
    """Look at every site's spot.

    Args:
        lab: the top view in CIELAB white-balanced on the chips, float32 (H, W, 3) (see
            :func:`vision.robber.board_balance`).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels (scale and
            translation, as :func:`vision.register.rectify` returns).
        sites: the coast sides to look at.
        out: distance of the spot's centre beyond the side's midpoint, hex radii.
        radius: the spot's radius, hex radii.
        beside: distance along the side from the spot's centre to the two patches beside it.
        beside_radius: radius of those patches (they give the sea's colour and tell hidden
            spots), hex radii.
        min_delta: least weighted CIELAB distance from the sea of an art pixel.
        spreads: an art pixel is also farther from the sea than this many times the sea's own
            median distance from itself (its texture).
        min_light_art: least fraction of the spot covered by solid light art to name a colour.
        thin: art narrower than this (hex radii: piers, printed ratios, outlines) gives no
            colour.
        covered: bool (H, W), the top view's pixels something lies over
            (:func:`vision.occlusion.cover_mask`), or None.
        max_covered: a spot more covered than this share is hidden: a finger reaching over
            the sea is as narrow as a token and can be of a token's colour, and the two
            patches beside the spot may both be clear of it.

    Returns:
        One :class:`SiteReading` per site, in order.
    """
    if not sites:
        return []
    centres, along = spot_geometry(sites, out)
    step = max(1.0 / float(plane_to_top[0, 0]), 0.02)
    grid, inside = _square(radius, step)
    spot = _sample(lab, plane_to_top, centres[:, None, :] + grid[None])
    under = (
        np.zeros(len(sites))
        if covered is None
        else _covered_share(covered, plane_to_top, centres[:, None, :] + grid[inside.ravel()][None])
    )
    side = inside.shape[0]
    inside = inside.ravel()
    k = max(3, 2 * int(round(thin / step / 2)) + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    ring = _disc(beside_radius, step)
    sides = np.stack(
        [
            _sample(lab, plane_to_top, (centres + sign * beside * along)[:, None, :] + ring[None])
            for sign in (-1.0, 1.0)
        ],
        axis=1,
    )  # (N, 2, M, 3)
    sea_px = sides.reshape(-1, 3)
    sea_px = sea_px[~np.isnan(sea_px[:, 0])]
    if len(sea_px) < 10:
        return [SiteReading(s, False, 0.0, None, {}) for s in sites]
    sea = np.median(sea_px, axis=0)
    spread = float(median(_distance(sea_px, sea)))
    threshold = max(min_delta, spreads * spread)

    readings = []
    for i, site in enumerate(sites):
        px = spot[i]
        valid = inside & ~np.isnan(px[:, 0])
        side_px = sides[i]
        side_valid = ~np.isnan(side_px[..., 0])
        side_sea = [
            side_px[j][side_valid[j]][_distance(side_px[j][side_valid[j]], sea) <= threshold]
            for j in range(2)
        ]
        side_art = [1.0 - len(side_sea[j]) / max(int(side_valid[j].sum()), 1) for j in range(2)]
        hidden = min(side_art) > 0.5 or under[i] > max_covered
        if valid.sum() < 0.8 * inside.sum() or hidden:
            readings.append(SiteReading(site, False, 0.0, None, {}))
            continue
        art = np.zeros(len(px), bool)
        art[valid] = _distance(px[valid], sea) > threshold
        # Piers, ratios printed as text and outlines are thin; the harbour's colour is that
        # of its solid parts (the token, the icon): the art mask opened by ``thin``.
        solid = (
            cv2.morphologyEx(art.reshape(side, side).astype(np.uint8), cv2.MORPH_OPEN, kernel)
            .ravel()
            .astype(bool)
        )
        # The lamp's fall-off and shadows scale the light here: the sea beside the spot, once
        # the board's sea, tells by how much (L*+16, a* and b* all scale with the cube root of
        # the light).
        local = np.concatenate(side_sea)
        gain = 1.0
        if len(local) >= 5:
            gain = (float(sea[0]) + 16.0) / (float(median(local[:, 0])) + 16.0)
            px = np.column_stack([(px[:, 0] + 16.0) * gain - 16.0, px[:, 1:] * gain])
        presence = float(art[valid].mean())
        # Dark pixels are ink, outlines or shadow, unless coloured: a dark green token's own
        # print in a shadow (left out, the white ring round its icon would give it a grey).
        light = px[
            solid & valid & ((px[:, 0] >= _INK) | (np.hypot(px[:, 1], px[:, 2]) > _COLOURED))
        ]
        colour: np.ndarray | None = None
        if len(light) >= min_light_art * valid.sum():
            chroma = np.hypot(light[:, 1], light[:, 2])
            coloured = light[chroma > _COLOURED]
            pick = coloured if len(coloured) >= 0.3 * len(light) else light
            colour = np.median(pick, axis=0)
        inked = None
        if colour is not None and presence >= _TOKEN:
            # A token fills the spot: its print says generic or not (its paper's lightness
            # under the light here, as its colour is).
            share, paper = token_marks(lab[..., 0], plane_to_top, centres[i : i + 1])
            if not math.isnan(share[0]):
                inked = _inked(float(share[0]), (float(paper[0]) + 16.0) * gain - 16.0)
        scores = kind_scores(colour, inked=inked) if colour is not None else {}
        readings.append(
            SiteReading(
                site,
                True,
                presence,
                None if colour is None else tuple(float(c) for c in colour),
                scores,
                inked,
            )
        )
    return readings


def token_marks(
    lightness: np.ndarray,
    plane_to_top: np.ndarray,
    centres: np.ndarray,
    *,
    radius: float = 0.24,
    stroke_gap: float = 0.09,
    ink: float = 12.0,
    below: float = 20.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The share of each token's disc that is printed dark ink: a generic harbour's "3:1"
    or "?" and its rings, dark strokes on light paper; a resource's token shows its own
    colour or icon instead, with no dark print on it.

    Args:
        lightness: float32 (H, W) the top view's L*.
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        centres: float (N, 2) the discs' centres, board plane.
        radius: the disc's radius, hex radii (a token's, 0.25, with its print).
        stroke_gap: width (hex radii) of the closing that fills strokes in.
        ink: least darkening (L*) of an ink pixel below what the closing fills in.
        below: least darkening (L*) of an ink pixel below the disc's median: dark print,
            not a light text's gaps on a coloured token.

    Returns:
        Two float (N,) arrays: the share of ink, 0..1, and the disc's median L* (its paper);
        NaN where the disc leaves the top view.

    >>> light = np.full((40, 40), 90.0, np.float32)
    >>> light[19:21, 18:22] = 30.0  # a short dark stroke in the disc
    >>> p2t = np.array([[20.0, 0.0, 20.0], [0.0, 20.0, 20.0], [0.0, 0.0, 1.0]])
    >>> share, paper = token_marks(light, p2t, np.zeros((1, 2)))
    >>> bool(share[0] > 0.05), float(paper[0])
    (True, 90.0)
    """
    # The patch reaches past the disc: ink running on beyond it (the gaps between a hand's
    # fingers, a token's outline, the sea's waves) is no print on a token.
    reach = radius + 2 * stroke_gap
    offs = np.arange(-reach, reach + STEP / 2, STEP)
    xs, ys = np.meshgrid(offs, offs)
    disc = np.hypot(xs, ys) <= radius
    k = max(3, 2 * int(round(stroke_gap / STEP / 2)) + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    lightness = np.ascontiguousarray(lightness, np.float32)
    share = np.full(len(centres), np.nan)
    paper = np.full(len(centres), np.nan)
    for n, (cx, cy) in enumerate(np.asarray(centres, float).reshape(-1, 2)):
        patch = plane_samples(lightness, plane_to_top, np.dstack([cx + xs, cy + ys]))
        if np.isnan(patch).any():
            continue
        paper[n] = float(median(patch[disc]))
        dark = cv2.morphologyEx(patch, cv2.MORPH_CLOSE, kernel) - patch
        ink_px = ((dark > ink) & (patch < paper[n] - below)).astype(np.uint8)
        _, labels = cv2.connectedComponents(ink_px, connectivity=8)
        beyond = np.unique(labels[~disc & (ink_px > 0)])
        printed = (labels > 0) & ~np.isin(labels, beyond)
        share[n] = float(printed.sum()) / float(disc.sum())
    return share, paper


def _inked(share: float, paper: float) -> bool | None:
    """A token's print (:func:`token_marks`) as :attr:`SiteReading.inked`."""
    if share >= _INKED and paper >= _PAPER:
        return True
    return False if share < _UNINKED else None


def _icon_classes(px: np.ndarray) -> np.ndarray:
    """Boolean (N, 3): is each CIELAB pixel of brick's, grain's, lumber's icon colour?"""
    light, a, b = px[:, 0], px[:, 1], px[:, 2]
    brick = (a > 15.0) & (b > 0.0) & (a >= b)
    grain = (b > 25.0) & (a > -3.0) & (a < 15.0)
    wood = (a > 2.0) & (a < 15.0) & (b > 6.0) & (b < 22.0) & (light < 55.0)
    return np.column_stack([brick, grain, wood])


def read_icons(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    *,
    out: float = 0.43,
    radius: float = 0.17,
    ring: float = 0.15,
    min_sea: float = 0.4,
    beach: float = 0.15,
    wide: float = 0.45,
    shift: float = 0.22,
    min_plain: float = 0.5,
    middle: float = 0.04,
    width: float = 0.012,
    coast: Mapping[Site, float] | None = None,
) -> dict[Site, tuple[str, float]]:
    """The harbours told by an icon colour only one resource is printed in: brick, grain or
    lumber.

    The current art prints a small icon (about 0.3 hex radii) 0.43 hex radii off a harbour's
    side, between its piers, over the "2:1": too small for :func:`read_sites` (it covers
    10-60% of the spot), and its icons are grey-brown (logs, rocks, a sheep) but for red
    bricks and a golden sheaf; the logs are a darker brown than anything else there. A side
    is read as brick (grain, lumber) when
    one blob of that colour (:func:`_icon_classes`), as large as enough of a disc of
    ``radius``, lies within ``shift`` of the icon's place, ringed by sea or the icon's light
    halo, and the colours it cannot be mistaken for are nearly absent there
    (:data:`_ICON_VETO`; the logs' gaps are closed first). An icon near two sides' places (a
    bay) is the nearer side's. The disc must lie on the sea: at least
    ``min_sea`` of a ring ``ring`` wide around it, on its far side, is sea blue (a frame
    registered off puts land, whose fields are yellow, in the disc). Colour joined to the
    coast line or running along it wider than ``wide`` is beach, colour running on beyond
    any icon's reach (``shift`` + ``radius``) is more than an icon (an arm); neither
    counts. A
    token filling the ring (the renderer's) is left to :func:`read_sites`.

    Args:
        lab: the top view in CIELAB white-balanced on the chips, float32 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        sites: the coast sides to look at.
        out: distance of the disc's centre beyond the side's midpoint, hex radii.
        radius: the disc's radius, hex radii.
        ring: width of the ring of sea around it, hex radii.
        min_sea: least fraction of sea-blue pixels (b* < -20) on the ring's far side.
        beach: colour joined to the coast line within this distance (hex radii) is beach.
        wide: colour running along the coast wider than this (hex radii) is beach too.
        shift: how far (hex radii, along the side and out) an icon's centre may lie from
            the disc's (the registration is a tenth or two off on real photos).
        min_plain: least fraction of a rim 0.03-0.1 hex radii round the icon that is sea
            blue or light grey (the halo it is printed with).
        middle: area of the icon, as a fraction of the disc's, at which a class is as
            likely an icon as not.
        width: how fast the evidence grows past ``middle`` (a logistic's width).
        coast: site -> how much farther out its side lies than registered (hex radii).

    Returns:
        site -> (kind, confidence) for the sides whose evidence reaches 0.9.
    """
    if not sites:
        return {}
    centres, along = spot_geometry(sites, out, coast)
    mids = spot_geometry(sites, 0.0, coast)[0]
    normals = (centres - mids) / out
    # Icons are 0.2-0.3 hex radii across: a 0.03 grid (8-10 points across) tells them.
    step = max(1.0 / float(plane_to_top[0, 0]), 0.03)
    # A grid on the side's own axes from the coast line out past any icon near its place,
    # with a margin: (N, O, A).
    reach = shift + radius + 0.06
    offs = np.arange(0.0, out + reach + step / 2, step)
    alongs = np.arange(-reach, reach + step / 2, step)
    pts = (
        mids[:, None, None, :]
        + offs[None, :, None, None] * normals[:, None, None, :]
        + alongs[None, None, :, None] * along[:, None, None, :]
    )
    grid = _sample(lab, plane_to_top, pts)
    in_disc = np.hypot(alongs[None, :], offs[:, None] - out) <= radius
    n_classes = len(_ICON_CLASSES)
    classes = _icon_classes(np.nan_to_num(grid.reshape(-1, 3))).reshape(*grid.shape[:3], n_classes)
    whole = ~np.isnan(grid[:, in_disc, 0]).any(axis=1)
    annulus = _disc(radius + ring, step)
    annulus = annulus[np.hypot(annulus[:, 0], annulus[:, 1]) > radius + 0.03]
    rings = _sample(lab, plane_to_top, centres[:, None, :] + annulus[None])  # (N, A, 3)
    seaward = normals @ annulus.T > 0.12  # (N, A): the ring's half beyond the icon
    viewed = seaward & ~np.isnan(rings[..., 0])
    sea = (viewed & (np.nan_to_num(rings[..., 2], nan=0.0) < -20.0)).sum(axis=1)
    on_sea = (viewed.sum(axis=1) >= 0.5 * seaward.sum(axis=1)) & (
        sea >= min_sea * np.maximum(viewed.sum(axis=1), 1)
    )
    # The grid's rows near the coast, and its border beyond the coast: colour joined to
    # the coast is beach, colour reaching the far border is more than an icon (an arm).
    shore = offs < beach
    border = np.zeros(grid.shape[1:3], bool)
    border[-1, :] = border[:, 0] = border[:, -1] = True
    widest = int(round(wide / step))
    fractions = np.zeros((len(sites), n_classes))
    where = np.zeros((len(sites), n_classes, 2))  # each class's icon centre, board plane
    raw = np.zeros((len(sites), n_classes))  # each class's colour in the disc, beach left out
    # An icon is printed on the sea with a light halo: what lies just round it is sea blue
    # or light and grey, not more colour (a card's or a book's art, a tile).
    plain = (np.nan_to_num(grid[..., 2], nan=0.0) < -20.0) | (
        (np.nan_to_num(grid[..., 0]) > 70.0) & (np.hypot(grid[..., 1], grid[..., 2]) < 15.0)
    )
    near_px = max(1, int(round(0.03 / step)))
    far_px = max(near_px + 1, int(round(0.1 / step)))
    inner_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * near_px + 1,) * 2)
    outer_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * far_px + 1,) * 2)
    # Only the sides with some icon colour near the icon's place are looked at closely.
    for i, k in zip(*np.nonzero(classes.any(axis=(1, 2))), strict=True):
        # Colour reaching in from the coast, or running along it wider than any icon, is
        # the beach (some editions print it in golden sand); colour running on beyond the
        # grid is larger than any icon (an arm, a card): neither is an icon on the sea.
        mask = classes[i, :, :, k].astype(np.uint8)
        if _ICON_CLASSES[k] == "lumber":
            # Logs are brown cylinders with dark gaps and light cut ends between them: one
            # grid step closes them into one icon.
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        beach_labels = (
            set(np.unique(labels[shore]).tolist())
            | set(np.unique(labels[border]).tolist())
            | set(np.flatnonzero(stats[:, cv2.CC_STAT_WIDTH] > widest).tolist())
        )
        beach_labels.discard(0)
        loose = (labels > 0) & ~np.isin(labels, sorted(beach_labels))
        raw[i, k] = float(loose[in_disc].mean())
        # An icon printed a little along or out from where the registration puts it is
        # still this side's when its centre lies within ``shift`` of the disc's.
        cx = alongs[0] + (stats[:, cv2.CC_STAT_LEFT] + (stats[:, cv2.CC_STAT_WIDTH] - 1) / 2) * step
        cy = offs[0] + (stats[:, cv2.CC_STAT_TOP] + (stats[:, cv2.CC_STAT_HEIGHT] - 1) / 2) * step
        near = (np.abs(cx) <= shift) & (np.abs(cy - out) <= shift)
        icons = [j for j in range(1, len(stats)) if near[j] and j not in beach_labels]
        if not icons:
            continue
        j = max(icons, key=lambda j: stats[j, cv2.CC_STAT_AREA])
        blob = (labels == j).astype(np.uint8)
        rim = (cv2.dilate(blob, outer_k) > 0) & ~(cv2.dilate(blob, inner_k) > 0)
        if plain[i][rim].mean() < min_plain:
            continue
        fractions[i, k] = float(stats[j, cv2.CC_STAT_AREA]) / float(in_disc.sum())
        where[i, k] = mids[i] + cx[j] * along[i] + cy[j] * normals[i]
    # Where two sides face one stretch of sea (a bay), one icon is near both discs: it is
    # the side's whose disc centre is nearest.
    for i, k in zip(*np.nonzero(fractions), strict=True):
        if int(np.argmin(np.linalg.norm(centres - where[i, k], axis=1))) != i:
            fractions[i, k] = 0.0
    found: dict[Site, tuple[str, float]] = {}
    for i, site in enumerate(sites):
        k = int(np.argmax(fractions[i]))
        # Both colours in one disc is no single icon (a hand, a piece beside a token).
        if not (whole[i] and on_sea[i]) or (raw[i, _ICON_VETO[k]] > 0.5 * middle).any():
            continue
        z = float(np.clip((fractions[i, k] - middle) / width, -50.0, 50.0))
        confidence = 1.0 / (1.0 + math.exp(-z))
        if confidence >= 0.9:
            found[site] = (_ICON_CLASSES[k], round(confidence, 4))
    return found


def presence_probability(presence: float, middle: float = 0.3, width: float = 0.06) -> float:
    """How likely a spot with this art fraction holds a harbour (a logistic step)."""
    return float(1.0 / (1.0 + math.exp(-(presence - middle) / width)))


def read_harbours(
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    kind: str,
    tiles: Mapping[Hex, Tile],
    *,
    layout_margin: float = 4.0,
    certain: float = 0.9,
    free_presence: float = 0.55,
    empty: float = 0.2,
    covered: np.ndarray | None = None,
    known: tuple[frozenset[Site], tuple[str, ...]] | None = None,
) -> HarbourReading:
    """Read the harbours of a board (see the module's docstring).

    Args:
        lab: the top view in CIELAB white-balanced on the chips, float32 (H, W, 3).
        plane_to_top: float (3, 3) board plane (hex radii) -> top-view pixels.
        kind: the board's kind (base, 5-6, seafarers).
        tiles: the board's hexes as read (land, sea) in the reading's coordinates.
        layout_margin: least log-likelihood (nats) by which a standard layout must beat the
            next one to be taken.
        certain: least confidence of a harbour's kind for it to be reported.
        free_presence: least art fraction of a spot for a harbour read side by side.
        empty: most art fraction of a spot that is plain sea; spots with more may hold a
            harbour and compete for the frame's kinds.
        covered: bool (H, W), the top view's pixels a hand or an object lies over
            (:func:`vision.occlusion.cover_mask`), or None: spots under it are hidden.
        known: the sides a known map puts its harbours on and the kinds of its set (a
            scenario's map: sides fixed, kinds shuffled), in the reading's coordinates; they
            are read as a recognised standard layout is.

    Returns:
        The :class:`HarbourReading`.
    """
    sites = coast_sites(tiles)
    if known is not None:
        # A known side is read even where its land hex was read as sea.
        sites += sorted(known[0] - set(sites))
    readings = read_sites(lab, plane_to_top, sites, covered=covered)
    layouts = [known[0]] if known is not None else standard_layouts(kind, list(tiles))
    coast = _coast_shift(lab, plane_to_top, sites) if layouts else {}
    icons = _with_ratios(
        read_icons(lab, plane_to_top, sites, coast=coast), lab, plane_to_top, sites, coast
    )
    by_site = {r.site: r for r in readings}
    warnings: list[str] = []

    def read_layout(layout: frozenset[Site], kinds: tuple[str, ...], how: str) -> HarbourReading:
        """The harbours of ``layout``'s sides, one of ``kinds`` each, jointly."""
        chosen = [by_site[s] for s in sorted(layout)]
        harbors, _ = _assign(chosen, Counter(kinds), certain)
        harbors, _, _ = _with_icons(harbors, icons, Counter(kinds), layout)
        harbors = _with_grey_pair(harbors, lab, plane_to_top, sites, kinds, layout, coast=coast)
        harbors = _with_last_logs(harbors, lab, plane_to_top, sites, kinds, layout, coast=coast)
        if how == "standard":
            harbors, deduced = _with_last_of_set(harbors, layout, kinds)
            warnings.extend(deduced)
        unread = len(layout) - len(harbors)
        if unread:
            warnings.append(f"uncertain: {unread} of {len(layout)} harbour(s) could not be read")
        return HarbourReading(harbors, readings, how, unread, warnings)

    if known is not None:
        return read_layout(known[0], known[1], "known")
    if layouts:
        fits = sorted(
            ((_layout_fit(lay, readings), n) for n, lay in enumerate(layouts)), reverse=True
        )
        best = fits[0]
        runner = fits[1][0] if len(fits) > 1 else -math.inf
        layout = layouts[best[1]]
        if best[0] - runner >= layout_margin and _consistent(layout, readings):
            return read_layout(layout, STANDARD[kind][2], "standard")
    occupied, unread = _occupied(readings, free_presence)
    if layouts:
        # The frame's set of kinds still holds (two ores cannot both be right): every side
        # that may hold a harbour competes for the kinds, and only the clearly occupied ones
        # are named. Its harbours are there even where they were not told apart.
        total = len(STANDARD[kind][2])
        rivals, _ = _occupied(readings, empty)
        named = {r.site for r in occupied}
        harbors, _ = _assign(rivals, Counter(STANDARD[kind][2]), certain, own=0.5)
        harbors = [h for h in harbors if ((h.q, h.r), h.side) in named]
        harbors, _, _ = _with_icons(harbors, icons, Counter(STANDARD[kind][2]))
        by_icons = {((h.q, h.r), h.side) for h in harbors}
        harbors = _with_grey_pair(harbors, lab, plane_to_top, sites, STANDARD[kind][2], coast=coast)
        harbors = _with_last_logs(harbors, lab, plane_to_top, sites, STANDARD[kind][2], coast=coast)
        # Sides named by what is printed there: an icon or a "3:1" of the kind read, or a
        # grey icon (the pair told by two cues, the last logs).
        marked = {
            ((h.q, h.r), h.side)
            for h in harbors
            if icons.get(((h.q, h.r), h.side), (None, 0.0))[0] == h.kind
            or ((h.q, h.r), h.side) not in by_icons
        }
        deduced = 0
        if (
            len(harbors) < total
            and all(((h.q, h.r), h.side) in marked for h in harbors)
            and all((h.confidence or 0.0) >= certain for h in harbors)
        ):
            # Every harbour read is sure: the frame's parts may say where the rest lie.
            before = len(harbors)
            harbors = _with_frame_parts(
                harbors,
                lab,
                plane_to_top,
                sites,
                STANDARD[kind][2],
                frame_layouts(kind, list(tiles)),
                coast=coast,
            )
            deduced = len(harbors) - before
            marked |= {((h.q, h.r), h.side) for h in harbors[before:]}
        unread = max(total - len(harbors), 0)
        if _complete(harbors, STANDARD[kind][2], marked):
            how = f" or, {deduced} of them, by the frame's parts" if deduced else ""
            warnings.append(
                f"harbours read one by one: all {total} of the frame's set, each by its printed "
                f"mark{how}"
            )
        else:
            warnings.append(
                f"uncertain: the harbours fit no standard layout clearly; {len(harbors)} of "
                f"{total} read one by one"
            )
        return HarbourReading(harbors, readings, "free", unread, warnings)
    # Seafarers harbour tokens: at most one of each resource and five generic (RULES.md
    # 3.1.2), so two sides of one resource's colour cannot both be right.
    harbors, _ = _assign(occupied, SEAFARERS_TOKENS, certain, own=0.5)
    unread += len(occupied) - len(harbors)
    harbors, added, dropped = _with_icons(harbors, icons, SEAFARERS_TOKENS)
    # An icon read on a side counted in doubt settles it; one dropped is in doubt.
    doubted = {r.site for r in occupied} | {
        r.site for r in readings if not r.seen or r.presence >= empty
    }
    unread = max(unread - sum(1 for s in added if s in doubted), 0) + dropped
    if unread:
        warnings.append(f"uncertain: {unread} harbour(s) or coast side(s) could not be read")
    told = set(added) | {s for s, (k, _) in icons.items() if k is not None}
    harbors, in_doubt = _colour_doubts(harbors, by_site, told)
    warnings += in_doubt
    return HarbourReading(harbors, readings, "free", unread, warnings)


def _colour_doubts(
    harbors: Sequence[Harbor], by_site: Mapping[Site, SiteReading], marked: set[Site]
) -> tuple[list[Harbor], list[str]]:
    """Seafarers tokens named by their colour alone (not in ``marked``: no icon or printed
    ratio told them) whose colour lies nearly as near another kind's print
    (:func:`colour_rival` under :data:`COLOUR_MARGIN`): each keeps its kind, with its
    confidence capped at :data:`DOUBTFUL_CONFIDENCE`, and a warning asks for a look. No
    frame's set of kinds checks a Seafarers map's tokens, so a token's colour between two
    prints (a dark lumber gone grey-green under a cast, read as ore at 0.94) is a guess. A
    generic token that shows its dark print (:attr:`SiteReading.inked`) is told by it, not
    by its colour alone: next to no other token shows one."""
    out: list[Harbor] = []
    warnings: list[str] = []
    for h in harbors:
        site = ((h.q, h.r), h.side)
        reading = by_site.get(site)
        told = reading is not None and reading.inked is True and h.kind == "3:1"
        if site in marked or told or reading is None or reading.colour is None:
            out.append(h)
            continue
        rival, margin = colour_rival(np.array(reading.colour))
        if margin >= COLOUR_MARGIN or rival == h.kind:
            out.append(h)
            continue
        out.append(replace(h, confidence=min(h.confidence or 0.0, DOUBTFUL_CONFIDENCE)))
        warnings.append(
            f"uncertain: the {h.kind} harbour at ({h.q}, {h.r}, {h.side}) is told by its "
            f"colour alone, which is nearly {rival}'s: look at it"
        )
    return out, warnings


def _coast_shift(
    lab: np.ndarray, plane_to_top: np.ndarray, sites: Sequence[Site]
) -> dict[Site, float]:
    """How much farther out than registered each coast side of a standard frame lies
    (:func:`vision.harbour_coast.coast_offsets`, its sides taken round the coast by angle
    about the frame's centre); sides where the registration stands are left out."""
    if not sites:
        return {}
    mids, normals = side_axes(sites)
    offsets = coast_offsets(lab, plane_to_top, mids, normals)
    return {s: float(o) for s, o in zip(sites, offsets, strict=True) if o != 0.0}


def _with_ratios(
    icons: Mapping[Site, tuple[str, float]],
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    coast: Mapping[Site, float] | None = None,
) -> dict[Site, tuple[str | None, float]]:
    """The icons read with the generic harbours told by a printed "3:1"
    (:mod:`vision.harbour_text`): both name a side by what is printed beside it. A side with
    an icon and a "3:1" is named by neither, and not by its colour either (kind None): one of
    the marks is wrong, and a wrong reading is worse than none. ``coast``: see
    :func:`spot_geometry`."""
    mids, normals = side_axes(sites, coast)
    texts = read_ratios(lab[..., 0], plane_to_top, mids, normals)
    out: dict[Site, tuple[str | None, float]] = dict(icons)
    for i, confidence in generic_harbours(texts).items():
        out[sites[i]] = (None, 0.0) if sites[i] in icons else ("3:1", confidence)
    return out


def _with_icons(
    harbors: Sequence[Harbor],
    icons: Mapping[Site, tuple[str | None, float]],
    kinds: Counter[str],
    sides: frozenset[Site] | None = None,
) -> tuple[list[Harbor], list[Site], int]:
    """The harbours read by colour with those told by their icon (:func:`read_icons`) or
    printed ratio (:func:`_with_ratios`).

    An icon adds a harbour on a side not read yet (one of ``sides`` when a layout was
    taken) when the set of kinds has that kind left and no other side shows its icon too
    (two brick icons where the set holds one: neither is named). A side whose icon says
    another kind than its colour did is left unread: one of the two readings is wrong; so is a
    side whose marks disagree (kind None).

    Returns:
        The harbours, the sides added, and how many harbours were dropped.
    """
    by_site = {((h.q, h.r), h.side): h for h in harbors}
    dropped = [s for s, (k, _) in icons.items() if s in by_site and by_site[s].kind != k]
    out = [h for s, h in by_site.items() if s not in dropped]
    left = kinds - Counter(h.kind for h in out)
    new = [
        (s, k, c)
        for s, (k, c) in sorted(icons.items())
        if k is not None and s not in by_site and (sides is None or s in sides)
    ]
    claims = Counter(k for _, k, _ in new)
    added = []
    for ((q, r), side), kind, confidence in new:
        if claims[kind] <= left[kind]:
            out.append(Harbor(q, r, side, kind, confidence))
            added.append(((q, r), side))
    return out, added, len(dropped)


def _with_last_of_set(
    harbors: list[Harbor], layout: frozenset[Site], kinds: Sequence[str]
) -> tuple[list[Harbor], list[str]]:
    """The harbours with the last one of a standard layout deduced: when every side of the
    layout but one is read (each for sure) and the frame's set leaves one kind, that side
    holds it, seen or not (a hand over it, a token whose colour matches no print). The
    deduction is right only if the layout and every other harbour are, so it is given
    :data:`DEDUCED_CONFIDENCE` and a warning that keeps the board uncertain.

    Returns:
        The harbours and the warnings (one for a deduced harbour, none otherwise).
    """
    read = {((h.q, h.r), h.side) for h in harbors}
    rest = sorted(layout - read)
    left = Counter(kinds) - Counter(h.kind for h in harbors)
    if len(rest) != 1 or left.total() != 1 or not read <= layout:
        return harbors, []
    ((q, r), side), (kind,) = rest[0], left
    return [*harbors, Harbor(q, r, side, kind, DEDUCED_CONFIDENCE)], [
        f"uncertain: the {kind} harbour at ({q}, {r}, {side}) is deduced from the frame's set "
        "of harbours, not read: look at it"
    ]


def _grey_icons(
    harbors: Sequence[Harbor],
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    sides: frozenset[Site] | None = None,
    apart: float = 0.4,
    coast: Mapping[Site, float] | None = None,
    recentre: float = 0.15,
) -> list[tuple[Site, GreyIcon]]:
    """The grey icons (:func:`vision.harbour_grey.grey_icon`) off the sides not read yet (of
    ``sides`` when a layout was taken). An icon within ``apart`` hex radii of a harbour read
    is that harbour's (its icon, or its "3:1", seen from another side) and left out; one icon
    found from two sides is the side's whose place it lies nearest."""
    read = {((h.q, h.r), h.side) for h in harbors}
    open_sites = [s for s in sites if s not in read and (sides is None or s in sides)]
    if not open_sites or not read:
        return []
    mids, normals = side_axes(open_sites, coast)
    taken = spot_geometry(sorted(read), 0.43, coast)[0]
    found: list[tuple[Site, GreyIcon, np.ndarray, float]] = []
    for site, mid, normal in zip(open_sites, mids, normals, strict=True):
        icon = grey_icon(icon_patch(lab, plane_to_top, mid, normal))
        if icon is None:
            continue
        if abs(icon.along) > recentre:
            # An icon printed well along from its place is cut by the patch's end (its
            # shape then says too little): looked at again on a patch centred on it.
            shift = icon.along * np.array([-normal[1], normal[0]])
            again = grey_icon(icon_patch(lab, plane_to_top, mid + shift, normal))
            if again is not None:
                icon = replace(again, along=again.along + icon.along)
        centre = mid + icon.along * np.array([-normal[1], normal[0]]) + icon.out * normal
        if np.linalg.norm(taken - centre, axis=1).min() < apart:
            continue
        off = float(np.hypot(icon.along, icon.out - 0.43))
        same = [n for n, f in enumerate(found) if np.linalg.norm(f[2] - centre) < apart]
        if not same:
            found.append((site, icon, centre, off))
        elif off < found[same[0]][3]:
            found[same[0]] = (site, icon, centre, off)
    return [(site, icon) for site, icon, _, _ in found]


def _with_grey_pair(
    harbors: list[Harbor],
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    kinds: Sequence[str],
    sides: frozenset[Site] | None = None,
    confidence: float = 0.9,
    most_left: int = 3,
    coast: Mapping[Site, float] | None = None,
) -> list[Harbor]:
    """The harbours with ore and wool named by :mod:`vision.harbour_grey` when both are left
    of the frame's set, with at most one other harbour (``most_left`` in all: the logs under
    a glare, a "3:1" washed out). Of the grey icons off the sides not read
    (:func:`_grey_icons`), :func:`vision.harbour_grey.ore_and_wool` says which are the rocks
    and the sheep, when exactly one icon is each, and each is given ``confidence``, the least
    a harbour is reported with."""
    left = Counter(kinds) - Counter(h.kind for h in harbors)
    if left["ore"] != 1 or left["wool"] != 1 or left.total() > most_left:
        return harbors
    found = _grey_icons(harbors, lab, plane_to_top, sites, sides, coast=coast)
    pair = ore_and_wool([icon for _, icon in found])
    if pair is None:
        return harbors
    out_harbors = list(harbors)
    for n, kind in zip(pair, ("ore", "wool"), strict=True):
        (q, r), side = found[n][0]
        out_harbors.append(Harbor(q, r, side, kind, confidence))
    return out_harbors


def _with_last_logs(
    harbors: list[Harbor],
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    kinds: Sequence[str],
    sides: frozenset[Site] | None = None,
    confidence: float = 0.9,
    coast: Mapping[Site, float] | None = None,
) -> list[Harbor]:
    """The harbours with lumber named when it is all the frame's set has left and exactly
    one grey icon off the sides not read (:func:`_grey_icons`) is logs
    (:func:`vision.harbour_grey.is_logs`): logs too grey for :func:`read_icons`' wood colour
    (a glare, a greyer print) are still the only brown icon lying along their side. It is
    given ``confidence``, the least a harbour is reported with."""
    if Counter(kinds) - Counter(h.kind for h in harbors) != Counter({"lumber": 1}):
        return harbors
    logs = [
        site
        for site, icon in _grey_icons(harbors, lab, plane_to_top, sites, sides, coast=coast)
        if is_logs(icon)
    ]
    if len(logs) != 1:
        return harbors
    (q, r), side = logs[0]
    return [*harbors, Harbor(q, r, side, "lumber", confidence)]


def _frame_rest(harbors: Sequence[Harbor], layouts: Sequence[frozenset[Site]]) -> frozenset[Site]:
    """The sides left of the one layout that holds every harbour read; empty when no layout
    or more than one does."""
    read = {((h.q, h.r), h.side) for h in harbors}
    fits = [layout for layout in layouts if read <= layout]
    return fits[0] - read if len(fits) == 1 else frozenset()


def _with_frame_parts(
    harbors: list[Harbor],
    lab: np.ndarray,
    plane_to_top: np.ndarray,
    sites: Sequence[Site],
    kinds: Sequence[str],
    layouts: Sequence[frozenset[Site]],
    confidence: float = 0.9,
    coast: Mapping[Site, float] | None = None,
) -> list[Harbor]:
    """The harbours with those the frame's parts place (:func:`frame_layouts`), when
    exactly one of its layouts holds every harbour read (all read for sure by their marks):
    the grey icons are looked for again on the sides it leaves alone (no icon seen on
    another side competes), and when what the frame's set still lacks is one kind, as many
    as the sides left (the logs under a glare, a "3:1" washed out), those sides carry it,
    each with ``confidence``, the least a harbour is reported with.

    When ore and wool are left for two sides, the one whose grey icon is the rocks
    (:func:`vision.harbour_grey.is_rocks`) is ore and the other wool, whether its sheep is
    seen or not.

    A side is never named from its looks here beyond what :func:`_with_grey_pair`,
    :func:`_with_last_logs` and the rocks ask; the last kind is deduced, as a player would,
    from the frame's fixed set and the parts' fixed places."""
    rest = _frame_rest(harbors, layouts)
    if not rest:
        return harbors
    harbors = _with_grey_pair(harbors, lab, plane_to_top, sites, kinds, rest, coast=coast)
    harbors = _with_last_logs(harbors, lab, plane_to_top, sites, kinds, rest, coast=coast)
    rest = _frame_rest(harbors, layouts)
    left = Counter(kinds) - Counter(h.kind for h in harbors)
    if len(rest) == 2 and left == Counter({"ore": 1, "wool": 1}):
        # The parts leave two sides for ore and wool: the rocks seen on one of them (a
        # sheep washed out by a glare) say which.
        icons = _grey_icons(harbors, lab, plane_to_top, sites, rest, coast=coast)
        rocks = [site for site, icon in icons if is_rocks(icon)]
        if len(rocks) == 1:
            (wool,) = rest - {rocks[0]}
            return [
                *harbors,
                Harbor(*rocks[0][0], rocks[0][1], "ore", confidence),
                Harbor(*wool[0], wool[1], "wool", confidence),
            ]
    if not rest or len(left) != 1 or left.total() != len(rest):
        return harbors
    (kind,) = left
    return [*harbors, *(Harbor(q, r, side, kind, confidence) for (q, r), side in sorted(rest))]


def _complete(
    harbors: Sequence[Harbor], kinds: Sequence[str], marked: set[Site], certain: float = 0.9
) -> bool:
    """Do the harbours read one by one account for the whole frame? A frame assembled in
    another order than the rulebook's still carries its fixed set of harbours (RULES.md
    1.1.2): when exactly that set is read, every harbour named by its printed mark
    (``marked``: an icon, a "3:1" or the grey pair, each found where it lies and given to the
    side whose place is nearest, not a colour on a spot) with at least ``certain``
    confidence, no harbour is left to be elsewhere."""
    return (
        Counter(h.kind for h in harbors) == Counter(kinds)
        and all(((h.q, h.r), h.side) in marked for h in harbors)
        and all((h.confidence or 0.0) >= certain for h in harbors)
    )


def _layout_fit(layout: frozenset[Site], readings: Sequence[SiteReading]) -> float:
    """Log-likelihood of the seen presences if the harbours lie on ``layout``."""
    total = 0.0
    for r in readings:
        if not r.seen:
            continue
        p = min(max(presence_probability(r.presence), 0.02), 0.98)
        total += math.log(p if r.site in layout else 1.0 - p)
    return total


def _consistent(
    layout: frozenset[Site],
    readings: Sequence[SiteReading],
    empty: float = 0.2,
    occupied: float = 0.45,
    unclear: int = 2,
    strays: int = 1,
) -> bool:
    """Does the layout explain what is seen? No seen side of it is plain sea (art below
    ``empty``), at most ``strays`` seen sides off it hold what looks like a harbour (art at
    least ``occupied``, of a harbour's colour), and at most ``unclear`` seen sides off it are
    in doubt (solid art, at least ``empty``: a hand reaching in, a piece, a token of a frame
    laid in another order). Frames are assembled in other orders than the rulebook's (the
    real boards-dev frames are): a layout that merely beats the others is not taken. A frame
    in another order moves a harbour off one of the layout's sides, which is then plain sea:
    one stray off the layout while every side of it is seen holding art is no other order
    but something else over the sea (a hand the cover mask missed, the table beside a
    narrow frame's edge read as ore), and is not read.

    A side of the layout with some art is its token seen off-centre (the far rows of a tilted
    or distorted photo lie a fifth of a hex radius off the chips' homography), not a doubt;
    nor is art off it too thin to have a colour (a pier, a token's edge): counted as doubts,
    they turned down the true layout on 7 of bench vision seed 0's 300 renders."""
    doubtful = stray = 0
    for r in readings:
        if not r.seen:
            continue
        on = r.site in layout
        if on and r.presence < empty:
            return False
        stray += not on and r.presence >= occupied and bool(r.scores)
        doubtful += not on and r.presence >= empty and r.colour is not None
    return stray <= strays and doubtful <= unclear


def _assign(
    chosen: Sequence[SiteReading], kinds: Counter[str], certain: float, own: float = 0.2
) -> tuple[list[Harbor], int]:
    """Kinds of a known layout's sides, jointly; returns the harbours read and the unread.

    The board's exposure is found first (:func:`_exposure`); a side is given a kind when the
    joint reading is sure of it (``certain``) and its own colour, so exposed, scores that kind
    at least ``own``. The set is read twice: the second time each side is also compared
    with the board's own print of the kinds the set holds several of, as the tokens read
    surely the first time show it (:func:`_board_prints`)."""
    candidates = [r for r in chosen if r.seen and r.colour is not None]
    slots = sorted(kinds.elements())
    colours = []
    if candidates:
        gain = _exposure([np.array(r.colour) for r in candidates], slots)
        colours = [_exposed(np.array(r.colour), gain) for r in candidates]
    readable = [
        (r, c, sc)
        for r, c in zip(candidates, colours, strict=True)
        if (sc := kind_scores(c, inked=r.inked))
    ]
    if not readable:
        return [], len(chosen)
    sure = _joint([sc for _, _, sc in readable], slots, certain, own)
    prints = _board_prints(
        [(r, c, slots[j]) for (r, c, _), (j, _) in zip(readable, sure, strict=True) if j >= 0],
        [r.site for r, _, _ in readable],
        kinds,
    )
    if prints:
        readable = [
            (r, c, kind_scores(c, inked=r.inked, board=prints.get(r.site))) for r, c, _ in readable
        ]
        sure = _joint([sc for _, _, sc in readable], slots, certain, own)
    harbors = []
    for (r, _, _), (j, confidence) in zip(readable, sure, strict=True):
        if j >= 0:
            (q, rr), side = r.site
            harbors.append(Harbor(q, rr, side, slots[j], round(confidence, 4)))
    return harbors, len(chosen) - len(harbors)


def _joint(
    scores: Sequence[Mapping[str, float]], slots: Sequence[str], certain: float, own: float
) -> list[tuple[int, float]]:
    """One kind per side by the Hungarian method on log-scores: for each side the slot it
    is surely given and the confidence, how much the joint score loses when that kind is
    forbidden there (as the chip reader does); slot -1 where it is not sure (below
    ``certain``) or its own colour scores the kind below ``own``."""
    cost = np.array(
        [[-math.log(max(sc.get(k, 0.0), _SCORE_FLOOR)) for k in slots] for sc in scores]
    )
    rows, cols = linear_sum_assignment(cost)
    best = float(cost[rows, cols].sum())
    out = [(-1, 0.0)] * len(scores)
    for i, j in zip(rows, cols, strict=True):
        forced = cost.copy()
        forced[i, [n for n, k in enumerate(slots) if k == slots[j]]] = -math.log(_SCORE_FLOOR)
        fr, fc = linear_sum_assignment(forced)
        loss = float(forced[fr, fc].sum()) - best
        confidence = 1.0 / (1.0 + math.exp(-min(loss, 50.0)))
        # The set of kinds chooses among what the art's colour allows; it never imposes a
        # kind the colour does not support (the last token left, on a hand).
        if confidence >= certain and scores[i].get(slots[j], 0.0) >= own:
            out[i] = (int(j), confidence)
    return out


def _board_prints(
    sure: Sequence[tuple[SiteReading, np.ndarray, str]],
    sites: Sequence[Site],
    kinds: Counter[str],
) -> dict[Site, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Each side's view of this board's own print of the kinds the set holds several of (the
    generic harbours, a 5-6 frame's two wools): one print run gives every token of a kind
    one colour, which a printing's shift or the light's cast moves away from the stock
    print together, while the light across the board moves their lightness apart.

    ``sure`` holds the tokens read surely by their stock prints, with their (exposed)
    colours and kinds; only tokens filling their spot (:data:`_TOKEN`) show a print. For a
    side, the print of kind k is the posterior of the colour the *other* sure tokens of k
    show, from the stock print (as uncertain as :func:`kind_scores` has it) and each
    token's scatter round its print (:data:`_TOKEN_SPREAD`): a side never vouches for
    itself. Returned as (mean, variance of a new token's colour round it) per CIELAB
    channel, for the sides of ``sites`` that have any."""
    stock = _stock_variance(_STOCK_SPREAD, _LIGHTNESS_WEIGHT)
    scatter = np.array(_TOKEN_SPREAD, float) ** 2
    out: dict[Site, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for k, count in kinds.items():
        if count < 2:
            continue
        members = [(r.site, c) for r, c, kind in sure if kind == k and r.presence >= _TOKEN]
        for site in sites:
            others = [c for s, c in members if s != site]
            if not others:
                continue
            precision = 1.0 / stock + len(others) / scatter
            centre = (np.array(PRINTED[k]) / stock + np.sum(others, axis=0) / scatter) / precision
            out.setdefault(site, {})[k] = (centre, scatter + 1.0 / precision)
    return out


def _exposed(colour: np.ndarray, gain: float) -> np.ndarray:
    """A CIELAB colour under ``gain`` times the light (L*+16, a*, b* scale by its cube root)."""
    g = gain ** (1.0 / 3.0)
    return np.array([(colour[0] + 16.0) * g - 16.0, colour[1] * g, colour[2] * g])


def _exposure(
    colours: Sequence[np.ndarray],
    slots: Sequence[str],
    sigma: float = _STOCK_SPREAD,
    spread: float = 0.25,
    fit: float = 3.0,
) -> float:
    """The light gain, shared by a board's harbours, that best explains their colours as a
    set of printed kinds (the chips white-balance the view, but a glare or a shadow on them
    leaves every harbour lighter or darker): the gain maximising the joint assignment's
    likelihood, with a log-normal prior of ``spread`` around 1. A colour counts at most as
    far as ``fit`` sigmas (a hand)."""
    printed = np.array([PRINTED[k] for k in slots], np.float32)
    best_gain, best_cost = 1.0, math.inf
    for log_gain in np.linspace(-0.6, 0.6, 25):
        gain = float(math.exp(log_gain))
        shifted = np.array([_exposed(c, gain) for c in colours], np.float32)
        diff = shifted[:, None, :] - printed[None, :, :]
        d2 = _weighted_square(diff, _LIGHTNESS_WEIGHT) / sigma**2
        cost = 0.5 * np.minimum(d2, fit**2)
        rows, cols = linear_sum_assignment(cost)
        total = float(cost[rows, cols].sum()) + 0.5 * (log_gain / spread) ** 2
        if total < best_cost:
            best_gain, best_cost = gain, total
    return best_gain


def _occupied(
    readings: Sequence[SiteReading],
    min_presence: float,
    apart: float = 0.5,
    empty: float = 0.2,
) -> tuple[list[SiteReading], int]:
    """The sides that clearly hold a harbour (at least ``min_presence`` art), and how many
    sides are in doubt (hidden, or with more art than ``empty`` but not enough). Of two
    sides whose spots lie closer than ``apart`` hex radii (one token seen from two sides),
    the one with more art."""
    doubtful = 0
    found: list[SiteReading] = []
    for r in readings:
        if not r.seen:
            doubtful += 1
        elif r.presence >= min_presence:
            found.append(r)
        elif r.presence >= empty:
            doubtful += 1
    found.sort(key=lambda r: -r.presence)
    centres, _ = spot_geometry([r.site for r in found])
    kept: list[int] = []
    for i in range(len(found)):
        if all(np.linalg.norm(centres[i] - centres[j]) >= apart for j in kept):
            kept.append(i)
    return [found[i] for i in kept], doubtful


def draw_harbours(top: np.ndarray, plane_to_top: np.ndarray, reading: HarbourReading) -> np.ndarray:
    """Top view (BGR uint8) with every examined spot: grey when hidden, thin when empty, thick
    and labelled with kind and confidence where a harbour was read, red where one is unread."""
    out = top.copy()
    px = float(plane_to_top[0, 0])
    sites = [r.site for r in reading.sites]
    if not sites:
        return out
    centres, _ = spot_geometry(sites)
    pts = centres * px + plane_to_top[:2, 2]
    read = {(h.q, h.r, h.side): h for h in reading.harbors}
    for r, p in zip(reading.sites, pts, strict=True):
        c = (int(round(p[0])), int(round(p[1])))
        rad = max(3, int(0.2 * px))
        harbor = read.get((r.site[0][0], r.site[0][1], r.site[1]))
        if not r.seen:
            cv2.circle(out, c, rad, (128, 128, 128), 1, cv2.LINE_AA)
        elif harbor is not None:
            cv2.circle(out, c, rad, (0, 255, 0), 2, cv2.LINE_AA)
            text = f"{harbor.kind} {harbor.confidence or 0.0:.2f}"
            org = (c[0] - rad, c[1] - rad - 3)
            cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 255, 0), 1, cv2.LINE_AA)
        elif presence_probability(r.presence) > 0.5:
            cv2.circle(out, c, rad, (0, 0, 255), 2, cv2.LINE_AA)
        else:
            cv2.circle(out, c, rad, (255, 255, 0), 1, cv2.LINE_AA)
    return out
