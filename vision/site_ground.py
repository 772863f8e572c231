"""What the board itself looks like around each site, and the pixels it does not explain.

A piece is an object standing on printed cardboard. Wherever it stands, the board beside it
shows the art of the same hexes, the same tile border and (at the rim) the same coast, none of
which continues under a piece. So a single photo can say "something stands here" without
knowing the players' colours first:

1. **Ground samples** (once per registration): the art of every hex (the ring 0.42..0.68 hex
   radii from its centre: off its chip, short of the buildings at its corners and the roads on
   its sides), the coast (the frame's pixels within 0.25 hex radii of the land) and, per
   frame, the tile border (the middles of the sides whose mean colour lies in the densest
   cluster of all sides' colours, as :func:`vision.pieces.normalise_light` finds it).
2. **Rare colours** (per frame): a site's pixel is *foreign* when, in each ground sample the
   site touches (its hexes, the border, the coast where land meets sea), fewer than
   :data:`GROUND_RARE` of the pixels have nearly its colour (within one cell of a 32-level
   colour cube, in the light-normalised top view). The border explains a pale border, the
   mountains' art explains their snow, the fields' art their ochre; plastic is rare in all.
   The coast explains only the pixels off the land (or just inside its edge): the sea is blue,
   and a blue piece on a rim corner stands half on the land.
3. **Blob colour** (:func:`blob_colour`): the foreign pixels of a site are one object; its
   colour is the per-channel median of their linear RGB, compared with the player colours by
   *hue* (the angle between the two in linear RGB, which a face's shading does not change) and
   by how much light it would take (a navy face is the renderer's blue at a tenth of the light;
   orange and brown share a hue and differ in that factor). White has no dark shade (a dark
   neutral is a shadow), and a blob whose hue is the border's is the border in a shadow.
4. **The distance rule** (in :class:`vision.pieces.PieceDetector`): of two buildings read on
   neighbouring corners, the weaker is dropped (a road's end or a tall piece's lean made the
   second).

A real piece also stands near its site rather than on it: a corner is read in seven places
(on it and 0.07 hex radii around), a side in five (across it), and the fullest counts.

Everything here works on the top view of :class:`vision.pieces.PieceDetector`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.board import Topology, hex_center

#: A colour is the ground's when at least this fraction of one ground sample has nearly that
#: colour. Chosen on layout E of boards-dev with F held out (docs/vision-tracking.md): E's
#: found-minus-extra is flat over 0.01..0.015 and falls below.
GROUND_RARE = 0.01

# Colour cube levels per channel, over the square root of the level up to _TOP (like a
# camera's gamma: dark colours, navy and forest shadows, keep their steps; light ones are not
# clipped, so a white piece stays lighter than the border's lightest). A pixel's neighbourhood
# is its cell and the 26 around it (about the spread of one printed colour under one light).
_LEVELS = 32
_TOP = 400.0
# Hex radii: the ring of a hex's own art, and the coast's width beyond the land.
_ART_FROM, _ART_TO = 0.42, 0.68
_COAST = 0.25
# Hex radii inside the land's edge where the coast still explains a colour. Chosen on layout E
# of boards-dev with F held out (docs/vision-tracking.md): E's found / extra by count is 93.1 /
# 1.1 at 0.03, 93.1 / 0 over 0.05..0.07, 92.0 / 0 from 0.1 (the land's edge itself: 94.3 /
# 9.2). Counted by place, E finds 80 of 87 at every margin from 0.03: what 0.05..0.07 gains
# by count is a harbour's pier on vieja_E_6 read as a white road (by place 92.0 / 1.1, and 92.0
# / 0 from 0.08). The renders keep 0.06: at 0.08 they find 29 fewer pieces of 1207.
_COAST_INSIDE = 0.06
# Blob colour: the spread of a piece's hue around its colour's (radians), the farthest hue a
# colour is still called (radians), the spread of the light factor (log), the light a white
# piece gets at least (a shaded white is a grey shadow). Set on layout E's pieces (a dim
# purple-navy road is 32 degrees from the renderer's blue; a dark neutral blob was called
# white), F held out.
_HUE_SPREAD = math.radians(8.0)
_HUE_FAR = math.radians(35.0)
_LIGHT_SPREAD = math.log(3.0)
_WHITE_LIGHT = 0.35


def to_linear(bgr: np.ndarray) -> np.ndarray:
    """sRGB levels (0..255, any shape ending in 3) -> linear light (float64, 0..1).

    >>> float(to_linear(np.array([255.0, 0.0, 0.0]))[0])
    1.0
    """
    x = np.asarray(bgr, np.float64) / 255.0
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


def lab_to_linear(lab: Sequence[float]) -> np.ndarray:
    """A CIELAB colour -> linear BGR (float64 (3,))."""
    bgr = cv2.cvtColor(np.array([[lab]], np.float32), cv2.COLOR_Lab2BGR)[0, 0]
    return to_linear(np.clip(bgr, 0.0, 1.0) * 255.0)


def _hue_angle(x: np.ndarray, ref: np.ndarray) -> float:
    cos = float(x @ ref) / (float(np.linalg.norm(x) * np.linalg.norm(ref)) + 1e-12)
    return math.acos(min(1.0, max(-1.0, cos)))


def blob_colour(
    linear: np.ndarray, colours: Mapping[str, np.ndarray], border: np.ndarray
) -> str | None:
    """The player colour of one object's pixels, or None when it has none.

    Args:
        linear: float (N, 3) linear BGR of the object's pixels (light-normalised).
        colours: player colour -> its linear BGR under the reference light.
        border: the tile border's linear BGR under the reference light.

    Returns:
        The colour whose hue is nearest and whose light factor is most plausible (cost:
        squared hue angle over its spread plus squared log light factor over its spread);
        None when no colour's hue is within 35 degrees, or when the border's hue is nearer
        than the chosen colour's (the border in a shadow).

    >>> cols = {"red": np.array([0.02, 0.02, 0.6]), "white": np.array([0.7, 0.7, 0.7])}
    >>> blob_colour(np.array([[0.002, 0.002, 0.05]] * 5), cols, np.array([0.3, 0.6, 0.7]))
    'red'
    >>> blob_colour(np.array([[0.06, 0.06, 0.06]] * 5), cols, np.array([0.3, 0.6, 0.7])) is None
    True
    """
    x = np.median(linear, axis=0)
    if not np.all(np.isfinite(x)) or float(x.sum()) <= 0.0:
        return None
    best, best_cost, best_hue = None, math.inf, math.inf
    for name, ref in colours.items():
        hue = _hue_angle(x, ref)
        light = float(x @ ref) / float(ref @ ref)
        if hue > _HUE_FAR or light <= 0.0 or (name == "white" and light < _WHITE_LIGHT):
            continue
        cost = (hue / _HUE_SPREAD) ** 2 + (math.log(light) / _LIGHT_SPREAD) ** 2
        if cost < best_cost:
            best, best_cost, best_hue = name, cost, hue
    if best is not None and _hue_angle(x, border) < best_hue:
        return None
    return best


@dataclass(frozen=True)
class GroundDensities:
    """One frame's ground (:meth:`GroundModel.densities`).

    Attributes:
        codes: int64 (H * W,) every top-view pixel's cell of the colour cube.
        near: float64 (samples * cells,) per ground sample and cell, the fraction of the
            sample's pixels in that cell or one of its 26 neighbours.
    """

    codes: np.ndarray
    near: np.ndarray


class GroundModel:
    """The ground samples of one registered board's top view, and the foreign-pixel test.

    Args:
        topology: the board's topology (sites and hexes).
        size: the top view's (width, height).
        to_top: board-plane points (N, 2) -> top-view pixels (N, 2).
        px: top-view pixels per hex radius.
        land: bool (H, W) land pixels of the top view.
        sea_hexes: indices (into ``topology.hexes``) of the sea hexes.
    """

    def __init__(
        self,
        topology: Topology,
        size: tuple[int, int],
        to_top: Callable[[np.ndarray], np.ndarray],
        px: float,
        land: np.ndarray,
        sea_hexes: Sequence[int] = (),
    ):
        w, h = size
        self.n_hex = len(topology.hexes)
        # One ring of offsets, placed on every hex's centre.
        r = int(math.ceil(_ART_TO * px)) + 1
        oy, ox = np.mgrid[-r : r + 1, -r : r + 1]
        d = np.hypot(ox, oy) / px
        ring = (d >= _ART_FROM) & (d <= _ART_TO)
        ox, oy = ox[ring], oy[ring]
        centres = to_top(np.array([hex_center(x) for x in topology.hexes]))
        cx = np.round(centres[:, 0]).astype(np.int64)[:, None] + ox[None, :]
        cy = np.round(centres[:, 1]).astype(np.int64)[:, None] + oy[None, :]
        which = np.repeat(np.arange(self.n_hex), len(ox))
        cx, cy = cx.ravel(), cy.ravel()
        ok = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
        self.art = (cy[ok] * w + cx[ok], which[ok])
        k = 2 * int(round(_COAST * px)) + 1
        near = cv2.dilate(
            land.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        )
        self.coast = np.flatnonzero((near > 0) & ~land)
        # The land the coast does not explain: short of its edge by what registration and the
        # frame's print (its beach overlaps the tiles' cut) leave uncertain.
        m = 2 * int(round(_COAST_INSIDE * px)) + 1
        inner = cv2.erode(
            land.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (m, m))
        )
        self.inland = inner.ravel() > 0
        # Each site's samples: the border (column 0), its hexes, and the coast where land meets
        # sea (at the board's rim or a sea hex); -1 none. Ids: hexes 0..n-1, border n, coast
        # n + 1.
        border, coast = self.n_hex, self.n_hex + 1
        sea = set(sea_hexes)

        def samples(hexes: Sequence[int], full: int) -> list[int]:
            out = [border, *hexes]
            return out + [coast] if len(hexes) < full or sea & set(hexes) else out

        rows_v = [samples(hs, 3) for hs in topology.vertex_hexes]
        rows_e = [samples(hs, 2) for hs in topology.edge_hexes]
        width = max(len(r) for r in rows_v + rows_e)
        self.vertex_samples = np.array([r + [-1] * (width - len(r)) for r in rows_v], np.int64)
        self.edge_samples = np.array([r + [-1] * (width - len(r)) for r in rows_e], np.int64)

    def densities(self, norm: np.ndarray, border_idx: np.ndarray) -> GroundDensities:
        """This frame's ground: how common every colour is in every sample (once per frame;
        :meth:`commonness` looks sites' pixels up in it).

        Args:
            norm: float32 (H, W, 3) light-normalised top view (BGR, 255 the reference's
                white, unclipped).
            border_idx: flat indices of this frame's tile-border pixels.
        """
        n = _LEVELS
        level = np.sqrt(np.maximum(norm.reshape(-1, 3), 0.0) / _TOP) * n
        q = np.minimum(level, n - 1).astype(np.int64)
        cells = n**3
        codes = (q[:, 0] * n + q[:, 1]) * n + q[:, 2]
        sample = np.concatenate(
            [
                self.art[1],
                np.full(len(border_idx), self.n_hex),
                np.full(len(self.coast), self.n_hex + 1),
            ]
        )
        pix = np.concatenate([self.art[0], border_idx, self.coast])
        hist = np.bincount(sample * cells + codes[pix], minlength=(self.n_hex + 2) * cells)
        sizes = np.maximum(np.bincount(sample, minlength=self.n_hex + 2), 1).astype(np.float64)
        # On 32-bit counts (a top view holds far fewer than 2**31 / 27 pixels): five times
        # faster than on 64-bit ones.
        box = cube_neighbourhoods(hist.reshape(-1, n, n, n).astype(np.int32))
        near = box.reshape(-1, cells) / sizes[:, None]
        return GroundDensities(codes, near.reshape(-1))

    def border_common(self, dens: GroundDensities, idx: np.ndarray) -> np.ndarray:
        """How common each pixel's colour is in the tile border's sample (float64 (N,), 0..1)
        for the flat top-view pixel indices ``idx``."""
        return dens.near[self.n_hex * _LEVELS**3 + dens.codes[idx]]

    def commonness(
        self,
        dens: GroundDensities,
        region: tuple[np.ndarray, np.ndarray],
        site_samples: np.ndarray,
    ) -> np.ndarray:
        """How common each pixel's colour is in its site's ground: the highest, over the
        site's samples, of the fraction of the sample's pixels with nearly that colour (a
        pixel is *foreign* below :data:`GROUND_RARE`).

        Args:
            dens: this frame's :meth:`densities`.
            region: (flat pixel indices, site numbers) of the sites' pixels.
            site_samples: int (sites, k) sample ids per site (:attr:`vertex_samples` ...).

        Returns:
            float64 (N,) per pixel of ``region``, 0..1.
        """
        cells = _LEVELS**3
        idx, site = region
        own = dens.codes[idx]
        common = np.zeros(len(idx))
        # The coast explains only what lies off the land: the frame's sea is the renderer's
        # blue and real boards' too, and a blue piece on a rim corner stands half on land.
        on_land = self.inland[idx]
        for col in range(site_samples.shape[1]):
            s = site_samples[site, col]
            ok = np.flatnonzero((s >= 0) & ~((s == self.n_hex + 1) & on_land))
            common[ok] = np.maximum(common[ok], dens.near[s[ok] * cells + own[ok]])
        return common


def cube_neighbourhoods(counts: np.ndarray) -> np.ndarray:
    """Each cell's count with its 26 neighbours' in the colour cube: sums over the 3x3x3
    cells around it on the last three axes of ``counts`` (int (..., n, n, n)), the cube's
    faces repeated outwards. Integer sums, so exact: what ``scipy.ndimage.uniform_filter``
    (mode "nearest") times 27 gives once rounded, without SciPy's float passes.

    >>> cube_neighbourhoods(np.ones((1, 2, 2, 2), np.int64))[0, 0, 0, 0]
    np.int64(27)
    """
    out = counts
    for axis in (-3, -2, -1):
        n = out.shape[axis]

        def cut(start: int, stop: int, axis: int = axis) -> tuple[slice, ...]:
            return (Ellipsis, slice(start, stop)) + (slice(None),) * (-1 - axis)

        # The cell itself, the one before and the one after (the first and the last repeat).
        total = out.copy()
        total[cut(1, n)] += out[cut(0, n - 1)]
        total[cut(0, 1)] += out[cut(0, 1)]
        total[cut(0, n - 1)] += out[cut(1, n)]
        total[cut(n - 1, n)] += out[cut(n - 1, n)]
        out = total
    return out
