"""Colour profile: this board's terrain colours and the players' colours in this light.

Method
------
*White reference.* Number chips are the board's own grey card: every land hex but the desert
carries one, all printed on the same stock. In each frame the chips' paper colour (their
brighter pixels, so the printed numeral does not count) is measured and a smooth gain field
(per channel, log gain linear in board position) is fitted to it robustly. Dividing a frame by
that field cancels the colour of the light, its brightness, and a gentle lighting gradient.
Colours are compared as ``log((bgr + 2) / (chip + 2))`` per channel (the "chip-relative log
colour"): a coloured or dim light shifts every pixel's log colour by the same vector, which the
chip reference removes.

*Learning terrain.* From one view of the set-up board and its known material counts (4 forest,
4 pasture, ... for the base game), the hexes are split into groups of exactly those sizes by a
constrained k-means: each round assigns hexes to terrain "slots" (one slot per tile of the
pool) by the Hungarian method, then moves each terrain's centre to its hexes' mean. A rough
prior of typical printed colours only seeds the first round. Each terrain then gets a Gaussian
model of its pixels. When the board's terrains are known (a board JSON), they are used as is.

*Learning players.* Every corner and side of the board is sampled; sites whose colour is
explained neither by the hex borders nor by the terrain next to them hold pieces. Those are
split into one group per player colour named by the user (equal group sizes: at set-up every
player has the same pieces out), named after the closest typical piece colour.

*When to re-run.* :meth:`ColorProfile.check_light` compares a new frame with the profile: if
the chip reference moved far in colour or brightness, or the hexes no longer fit their
terrain models after balancing, calibration should be re-run.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.board import (
    CORNERS,
    SIDES,
    SQRT3,
    Edge,
    Hex,
    Terrain,
    Vertex,
    edge,
    edge_hexes,
    edge_vertices,
    hex_center,
    hex_neighbour,
    vertex,
    vertex_hexes,
    vertex_position,
)
from companion.layouts import BASE_TERRAINS, EXTENSION_TERRAINS

#: Material counts of the boards whose colours can be learned without being told the layout.
TERRAIN_COUNTS: dict[str, Counter[Terrain]] = {"base": BASE_TERRAINS, "5-6": EXTENSION_TERRAINS}

#: Typical printed colours (BGR, 0..255) of terrain art and of the chips' paper. Only a seed
#: for the clustering: the learned profile replaces them.
_PRIOR_TERRAIN_BGR: dict[Terrain, tuple[float, float, float]] = {
    Terrain.FOREST: (40, 90, 45),
    Terrain.PASTURE: (80, 185, 140),
    Terrain.FIELDS: (60, 180, 225),
    Terrain.HILLS: (50, 95, 180),
    Terrain.MOUNTAINS: (140, 135, 130),
    Terrain.DESERT: (130, 190, 215),
    Terrain.GOLD: (20, 160, 230),
    Terrain.SEA: (170, 110, 40),
}
_PRIOR_CHIP_BGR = (190, 225, 240)
#: Typical plastic colours (BGR) of the players' pieces, to name the learned groups.
PLAYER_COLOURS_BGR: dict[str, tuple[float, float, float]] = {
    "red": (40, 40, 200),
    "blue": (150, 70, 30),
    "orange": (30, 130, 240),
    "white": (225, 225, 225),
    "green": (60, 140, 40),
    "brown": (40, 70, 110),
}

FORMAT_VERSION = 1
# Sampling geometry, in hex radii (the board plane of companion.board.hex_center, size 1).
_CHIP_RADIUS = 0.26  # inside the chip (diameter ~0.8) even with placement slop
_RING = (0.5, 0.74)  # between the chip and the hex border (inradius 0.866)
_SITE_RADIUS = 0.1  # corner sites: a settlement covers about +-0.2 around its corner
_MIN_CHIPS = 4
# A hex or site is explained by a model when its mean squared Mahalanobis distance per
# dimension is below this.
_EXPLAINED = 4.0
# A site is taken for a piece while learning when the background explains it this badly
# (empty sites stay below ~6 on synthetic and real boards; pieces score 10 and more).
_PIECE = 8.0
_MAYBE_PIECE = 3.0
_SETUP_PIECES = 4
# Log-colour distance beyond which a site is no player's piece: loose while the centres are
# still the typical plastic colours, tight once they are this board's own.
_JUNK_FIRST, _JUNK = 0.6, 0.35
# 8-bit values at or above this are taken as saturated by the camera.
_CLIPPED = 250.0


class ColorError(ValueError):
    """Colours cannot be learned or applied with what was given."""


# --- sampling ----------------------------------------------------------------------------------


def _project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.hstack([points, np.ones((len(points), 1))]) @ np.asarray(homography, np.float64).T
    return p[:, :2] / p[:, 2:3]


def _sample(image: np.ndarray, homography: np.ndarray, plane: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``image`` at board-plane points: float32 (N, 3) BGR, NaN outside."""
    px = _project(homography, plane).astype(np.float32)
    h, w = image.shape[:2]
    inside = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
    out = cv2.remap(
        image, px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1), cv2.INTER_LINEAR
    ).reshape(-1, 3)
    out = out.astype(np.float32)
    out[~inside] = np.nan
    return out


def _disc(radius: float, rings: int = 4, per_ring: int = 12) -> np.ndarray:
    """Points filling a disc of ``radius``: float64 (M, 2) offsets."""
    pts = [np.zeros((1, 2))]
    for i in range(1, rings + 1):
        r = radius * i / rings
        a = np.linspace(0, 2 * np.pi, per_ring * i, endpoint=False) + i
        pts.append(np.column_stack([r * np.cos(a), r * np.sin(a)]))
    return np.vstack(pts)


def _annulus(r0: float, r1: float, rings: int = 4, per_ring: int = 36) -> np.ndarray:
    radii = np.linspace(r0, r1, rings)
    a = np.linspace(0, 2 * np.pi, per_ring, endpoint=False)
    return np.vstack([np.column_stack([r * np.cos(a + r), r * np.sin(a + r)]) for r in radii])


_CHIP_PTS = _disc(_CHIP_RADIUS)
_RING_PTS = _annulus(*_RING)
_SITE_PTS = _disc(_SITE_RADIUS, rings=2, per_ring=8)


def _edge_points(e: Edge) -> np.ndarray:
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(e))
    t = np.linspace(0.3, 0.7, 9)[:, None]
    d = (b - a) / np.linalg.norm(b - a)
    n = np.array([-d[1], d[0]])
    line = a + t * (b - a)
    return np.vstack([line + n * o for o in (-0.04, 0.0, 0.04)])


def log_colour(bgr: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Chip-relative log colour.

    Args:
        bgr: float (..., 3) BGR values 0..255.
        reference: float (..., 3) BGR of the chips' paper at the same places (broadcast).

    Returns:
        float32 (..., 3): ``log((bgr + 2) / (reference + 2))``.
    """
    return np.log((np.asarray(bgr, np.float32) + 2.0) / (np.asarray(reference, np.float32) + 2.0))


def _chip_paper(samples: np.ndarray) -> np.ndarray | None:
    """The paper colour of one chip from its disc samples (M, 3), ignoring the numeral's ink."""
    ok = samples[~np.isnan(samples).any(axis=1)]
    if len(ok) < 10:
        return None
    lum = ok.mean(axis=1)
    bright = ok[lum >= np.percentile(lum, 50)]
    return np.median(bright, axis=0)


@dataclass
class WhiteReference:
    """The chips' paper colour over the board, as a smooth field.

    Attributes:
        coeffs: float64 (3, 3): per BGR channel, log colour = c0 + c1 * x + c2 * y (board plane).
        chips: how many chips the fit used.
    """

    coeffs: np.ndarray
    chips: int

    def at(self, plane: np.ndarray) -> np.ndarray:
        """Paper colour (BGR 0..255) at board-plane points (N, 2): float32 (N, 3)."""
        design = np.column_stack([np.ones(len(plane)), plane[:, 0], plane[:, 1]])
        return (np.exp(design @ self.coeffs.T) - 2.0).astype(np.float32)

    @property
    def mean_bgr(self) -> np.ndarray:
        """Paper colour at the board's centre: float64 (3,)."""
        return np.exp(self.coeffs[:, 0]) - 2.0


def measure_white(
    image: np.ndarray, homography: np.ndarray, chip_hexes: Iterable[Hex], *, gradient: bool = True
) -> WhiteReference:
    """Fit the chips' paper colour over the board (see the module docstring).

    Args:
        image: BGR uint8 (H, W, 3), undistorted.
        homography: float (3, 3), board plane (hex radii) -> image pixels.
        chip_hexes: hexes that should carry a chip (the robber's may not show it).
        gradient: fit a linear gradient (needs chips spread over the board) or a constant.

    Raises:
        ColorError: fewer than 4 chips could be measured.
    """
    centres, papers = [], []
    for h in chip_hexes:
        c = np.array(hex_center(h))
        paper = _chip_paper(_sample(image, homography, c + _CHIP_PTS))
        if paper is not None:
            centres.append(c)
            papers.append(paper)
    if len(papers) < _MIN_CHIPS:
        raise ColorError(
            f"only {len(papers)} number chips could be measured: the colour reference needs "
            f"at least {_MIN_CHIPS} (is the board in the picture?)"
        )
    pos = np.array(centres)
    logs = np.log(np.array(papers, np.float64) + 2.0)
    design = np.column_stack([np.ones(len(pos)), pos]) if gradient else np.ones((len(pos), 1))
    weights = np.ones(len(pos))
    coeffs = np.zeros((3, design.shape[1]))
    # A chip under the robber, a hand or glare is an outlier: iteratively reweighted fit.
    for _ in range(6):
        sw = np.sqrt(weights)[:, None]
        coeffs = np.linalg.lstsq(design * sw, logs * sw, rcond=None)[0].T
        resid = np.linalg.norm(logs - design @ coeffs.T, axis=1)
        scale = max(1.4826 * float(np.median(resid)), 0.02)
        weights = 1.0 / (1.0 + (resid / (2.0 * scale)) ** 2)
    full = np.zeros((3, 3))
    full[:, : coeffs.shape[1]] = coeffs
    return WhiteReference(full, len(papers))


# --- Gaussian colour models ----------------------------------------------------------------------


@dataclass
class Gaussian:
    """A colour model in chip-relative log colour: mean float64 (3,), covariance (3, 3)."""

    mean: np.ndarray
    cov: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray) -> Gaussian:
        """Fit to samples float (N, 3) (NaN rows ignored), with a floor on the spread."""
        x = x[~np.isnan(x).any(axis=1)]
        if len(x) < 4:
            raise ColorError("too few colour samples to learn a model")
        cov = np.cov(x.T) + np.eye(3) * 0.003
        return cls(x.mean(axis=0), cov)

    def mahalanobis2(self, x: np.ndarray, clipped: np.ndarray | None = None) -> np.ndarray:
        """Squared Mahalanobis distances of samples (N, 3): float64 (N,).

        ``clipped`` (bool (N, 3)) marks channels the camera saturated: their true value is at
        least the one seen, so a model whose mean lies above it is not penalised there.
        """
        if clipped is not None:
            x = np.where(clipped & (x < self.mean), self.mean, x)
        d = x - self.mean
        return np.einsum("ni,ij,nj->n", d, np.linalg.inv(self.cov), d)

    def score(self, x: np.ndarray, clipped: np.ndarray | None = None) -> float:
        """Mean squared distance per dimension of a patch's samples, the worst 25 % trimmed."""
        keep = ~np.isnan(x).any(axis=1)
        if not keep.any():
            return math.inf
        d = np.sort(self.mahalanobis2(x[keep], None if clipped is None else clipped[keep]))
        return float(d[: max(1, int(len(d) * 0.75))].mean() / 3.0)

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "cov": self.cov.tolist()}

    @classmethod
    def from_json(cls, data: Any, where: str) -> Gaussian:
        if not isinstance(data, dict) or "mean" not in data or "cov" not in data:
            raise ColorError(f"{where}: expected an object with mean and cov")
        try:
            mean = np.array(data["mean"], np.float64)
            cov = np.array(data["cov"], np.float64)
        except (TypeError, ValueError):
            raise ColorError(f"{where}: mean and cov must be numbers") from None
        if mean.shape != (3,) or cov.shape != (3, 3):
            raise ColorError(f"{where}: mean must have 3 numbers and cov 3x3")
        if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
            raise ColorError(f"{where}: numbers must be finite")
        if not np.allclose(cov, cov.T) or np.any(np.linalg.eigvalsh(cov) <= 0):
            raise ColorError(f"{where}: cov must be symmetric positive definite")
        return cls(mean, cov)


# --- the profile ----------------------------------------------------------------------------------


@dataclass
class Reference:
    """A frame's light as measured against a profile (:meth:`ColorProfile.reference`).

    Attributes:
        white: the chips' paper colour field.
        offset: float64 (3,) remaining log-colour offset found from the hexes.
        scores: float64 (hexes, terrains) misfit of every hex to every terrain model.
        hexes: the hexes, in the order of ``scores``' rows.
    """

    white: WhiteReference
    offset: np.ndarray
    scores: np.ndarray
    hexes: list[Hex]

    @property
    def light_bgr(self) -> np.ndarray:
        """The light's colour as the chips' paper would show it: float64 (3,) BGR."""
        return np.exp(np.log(self.white.mean_bgr + 2.0) + self.offset) - 2.0


@dataclass
class LightCheck:
    """Whether a frame's light still matches the profile.

    Attributes:
        ok: False when calibration should be re-run.
        reasons: why not, in words.
        colour_shift: distance (log units) of the light's colour from the profile's.
        brightness: the light's brightness relative to the profile's (1 = same).
        misfit: median per-hex misfit to the terrain models after balancing (1 ~ typical).
        chips_seen: chips that gave the white reference (the robber or hands hide some).
    """

    ok: bool
    reasons: list[str]
    colour_shift: float
    brightness: float
    misfit: float
    chips_seen: int

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "reasons": self.reasons,
            "colour_shift": round(self.colour_shift, 4),
            "brightness": round(self.brightness, 4),
            "misfit": round(self.misfit, 3),
            "chips_seen": self.chips_seen,
        }


@dataclass
class ColorProfile:
    """Terrain and player colour models relative to the chips' paper, and the light they saw.

    Attributes:
        terrains: per terrain, its model in chip-relative log colour.
        players: per player colour name, the model of that player's pieces.
        border: model of the hex borders (what an empty corner or side looks like).
        light_bgr: float64 (3,) chip paper colour at calibration (the light's colour, raw).
        board_kind: the board the profile was learned on.
    """

    terrains: dict[Terrain, Gaussian]
    players: dict[str, Gaussian] = field(default_factory=dict)
    border: Gaussian | None = None
    light_bgr: np.ndarray = field(default_factory=lambda: np.array(_PRIOR_CHIP_BGR, float))
    board_kind: str = "base"

    # --- applying -------------------------------------------------------------------------

    def reference(
        self,
        image: np.ndarray,
        homography: np.ndarray,
        hexes: Sequence[Hex],
        chip_hexes: Iterable[Hex] | None = None,
    ) -> Reference:
        """Measure a frame's light against the profile (see :class:`Reference`).

        The chips give the white reference. Where they fail (a channel clipped at 255 under a
        strongly coloured lamp, a print run with tinted chips), the hexes themselves correct
        it: each hex is matched to its closest terrain model and the median per-channel
        residual over the hexes (clipped pixels left out) is the remaining colour offset.
        Two rounds of this converge for any lamp the chips put within reach.

        Args:
            image: BGR uint8 (H, W, 3), undistorted.
            homography: board plane -> image pixels.
            hexes: the board's land hexes.
            chip_hexes: hexes with chips (default: all of ``hexes``; the fit is robust to a
                few without).
        """
        hexes = list(hexes)
        white = measure_white(image, homography, hexes if chip_hexes is None else chip_hexes)
        raw, logs = [], []
        for h in hexes:
            plane = np.array(hex_center(h)) + _RING_PTS
            r = _sample(image, homography, plane)
            raw.append(r)
            logs.append(log_colour(r, white.at(plane)))
        clipped = [r >= _CLIPPED for r in raw]
        offset = np.zeros(3)
        names = list(self.terrains)
        means = np.array([self.terrains[t].mean for t in names])
        scores = self._scores(logs, offset, clipped)
        for _ in range(2):
            best = np.argmin(scores, axis=1)
            resid = np.full((len(logs), 3), np.nan)
            for i, x in enumerate(logs):
                y = np.where(clipped[i], np.nan, x)
                seen = ~np.isnan(y).all(axis=0)  # channels with unclipped samples inside
                if np.isfinite(scores[i, best[i]]) and seen.any():
                    med = np.full(3, np.nan)
                    med[seen] = np.nanmedian(y[:, seen], axis=0)
                    resid[i] = med - means[best[i]]
            valid = ~np.isnan(resid).all(axis=0)
            offset = np.zeros(3)
            offset[valid] = np.nanmedian(resid[:, valid], axis=0)
            scores = self._scores(logs, offset, clipped)
        return Reference(white, offset, scores, hexes)

    def _scores(
        self, logs: Sequence[np.ndarray], offset: np.ndarray, clipped: Sequence[np.ndarray]
    ) -> np.ndarray:
        out = np.zeros((len(logs), len(self.terrains)))
        for i, x in enumerate(logs):
            for j, g in enumerate(self.terrains.values()):
                out[i, j] = g.score(x - offset, clipped[i])
        return out

    def balance(self, image: np.ndarray, ref: Reference) -> np.ndarray:
        """The frame white-balanced to the light the profile was learned in.

        Args:
            image: BGR uint8 (H, W, 3).
            ref: the frame's :meth:`reference`.

        Returns:
            BGR uint8 (H, W, 3), each channel scaled so the board looks as at calibration
            (one gain per channel: the gradient part is left in).
        """
        gains = (self.light_bgr + 2.0) / (ref.light_bgr + 2.0)
        return cv2.convertScaleAbs(image.astype(np.float32) * gains.astype(np.float32))

    def classify_terrain(
        self, ref: Reference, counts: Mapping[Terrain, int] | None = None
    ) -> dict[Hex, tuple[Terrain, float]]:
        """Terrain of each hex of ``ref`` with a confidence in 0..1.

        Args:
            ref: the frame's :meth:`reference`.
            counts: known material counts: the hexes are then assigned jointly so that each
                terrain gets exactly its count (the total must equal the number of hexes).
        """
        names = list(self.terrains)
        scores = ref.scores
        if counts is not None:
            # A hex outside the picture fits nothing; it still takes one slot.
            labels = _assign_with_counts(np.minimum(scores, 1e9), names, counts)
        else:
            labels = [names[j] for j in np.argmin(scores, axis=1)]
        # Confidence: how much better the chosen terrain fits than the best other one.
        out = {}
        for i, h in enumerate(ref.hexes):
            j = names.index(labels[i])
            if not np.isfinite(scores[i, j]):
                out[h] = (labels[i], 0.0)  # not seen: a guess from the counts alone
                continue
            others = np.delete(scores[i], j)
            margin = (others.min() if len(others) else math.inf) - scores[i, j]
            out[h] = (labels[i], float(1.0 / (1.0 + math.exp(-min(margin, 50.0)))))
        return out

    def classify_sites(
        self,
        image: np.ndarray,
        homography: np.ndarray,
        ref: Reference,
        sites: Sequence[Vertex | Edge],
        terrain_of: Mapping[Hex, Terrain],
    ) -> list[str | None]:
        """The player colour at each corner or side, None where it looks empty.

        Args:
            image: BGR uint8 (H, W, 3), undistorted.
            homography: board plane -> image pixels.
            ref: the frame's :meth:`reference`.
            sites: corners (``Vertex``) and sides (``Edge``) to look at.
            terrain_of: the terrain of the hexes (what an empty site shows beside the border).
        """
        if not self.players:
            raise ColorError("the profile has no player colours: run calibrate colors with them")
        out: list[str | None] = []
        for site in sites:
            x, clipped = _site_colours(image, homography, ref.white, site)
            if not len(x):
                out.append(None)
                continue
            x = x - ref.offset
            best, best_score = None, math.inf
            for name, g in self.players.items():
                s = g.score(x, clipped)
                if s < best_score:
                    best, best_score = name, s
            empty = self._background_score(x, clipped, site, terrain_of)
            out.append(best if best_score < empty else None)
        return out

    def _background_score(
        self,
        x: np.ndarray,
        clipped: np.ndarray,
        site: Vertex | Edge,
        terrain_of: Mapping[Hex, Terrain],
    ) -> float:
        """How well an empty site's look (border and terrain beside it) explains samples."""
        models = [self.border] if self.border is not None else []
        for h in _site_hexes(site):
            t = terrain_of.get(h, Terrain.SEA)
            if t in self.terrains:
                models.append(self.terrains[t])
        if not models:
            return math.inf
        # An empty site shows the border and the terrain beside it: explained by their
        # mixture, i.e. each sample by whichever of them fits it best.
        d = np.min([g.mahalanobis2(x, clipped) for g in models], axis=0)
        d = np.sort(d)
        return float(d[: max(1, int(len(d) * 0.75))].mean() / 3.0) if len(d) else math.inf

    def check_light(
        self,
        ref: Reference,
        terrain_of: Mapping[Hex, Terrain] | None = None,
        *,
        max_colour_shift: float = 0.25,
        brightness_range: tuple[float, float] = (0.35, 2.5),
        max_misfit: float = _EXPLAINED,
    ) -> LightCheck:
        """Should the colours be calibrated again for this frame's light?

        The references absorb moderate changes; the light is reported as changed when its
        colour moved by more than ``max_colour_shift`` in log units (2700 K against a
        5000 K calibration is about 0.45), its brightness left ``brightness_range``, or the
        hexes fit their best terrain model (their known terrain, if ``terrain_of`` is given)
        worse than ``max_misfit`` in the median.
        """
        diff = np.log(ref.light_bgr + 2.0) - np.log(self.light_bgr + 2.0)
        brightness = float(np.exp(diff.mean()))
        colour = float(np.linalg.norm(diff - diff.mean()))
        names = list(self.terrains)
        if terrain_of:
            fits = [
                ref.scores[i, names.index(terrain_of[h])]
                for i, h in enumerate(ref.hexes)
                if terrain_of.get(h) in self.terrains
            ]
        else:
            fits = list(ref.scores.min(axis=1))
        misfit = float(np.median(fits)) if fits else math.inf
        reasons = []
        if colour > max_colour_shift:
            reasons.append(f"the light's colour changed ({colour:.2f} log units)")
        if not brightness_range[0] <= brightness <= brightness_range[1]:
            reasons.append(f"the light is {brightness:.2f} times as bright as at calibration")
        if misfit > max_misfit:
            reasons.append(f"the terrain colours no longer fit (misfit {misfit:.1f})")
        return LightCheck(not reasons, reasons, colour, brightness, misfit, ref.white.chips)

    # --- JSON -----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """JSON-safe; :meth:`from_json` reads it back."""
        return {
            "version": FORMAT_VERSION,
            "board_kind": self.board_kind,
            "light_bgr": self.light_bgr.tolist(),
            "terrains": {t.value: g.to_json() for t, g in self.terrains.items()},
            "players": {p: g.to_json() for p, g in self.players.items()},
            "border": None if self.border is None else self.border.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any) -> ColorProfile:
        """Read :meth:`to_json`'s output; :class:`ColorError` names the bad field."""
        if not isinstance(data, dict):
            raise ColorError("colors: expected an object")
        if data.get("version") != FORMAT_VERSION:
            raise ColorError(
                f"colors.version: expected {FORMAT_VERSION}, found {data.get('version')!r}"
            )
        terrains_in = data.get("terrains")
        if not isinstance(terrains_in, dict) or not terrains_in:
            raise ColorError("colors.terrains: expected a non-empty object")
        terrains = {}
        for name, g in terrains_in.items():
            try:
                t = Terrain(name)
            except ValueError:
                raise ColorError(f"colors.terrains: unknown terrain {name!r}") from None
            terrains[t] = Gaussian.from_json(g, f"colors.terrains.{name}")
        players_in = data.get("players", {})
        if not isinstance(players_in, dict):
            raise ColorError("colors.players: expected an object")
        players = {
            str(p): Gaussian.from_json(g, f"colors.players.{p}") for p, g in players_in.items()
        }
        border_in = data.get("border")
        border = None if border_in is None else Gaussian.from_json(border_in, "colors.border")
        try:
            light = np.array(data.get("light_bgr"), np.float64)
        except (TypeError, ValueError):
            raise ColorError("colors.light_bgr: expected 3 numbers") from None
        if light.shape != (3,) or not np.all((light >= 0) & (light <= 255)):
            raise ColorError("colors.light_bgr: expected 3 numbers within 0..255")
        kind = data.get("board_kind")
        if not isinstance(kind, str):
            raise ColorError("colors.board_kind: expected a string")
        return cls(terrains, players, border, light, kind)


# --- learning ---------------------------------------------------------------------------------


def _assign_with_counts(
    cost: np.ndarray, names: Sequence[Terrain], counts: Mapping[Terrain, int]
) -> list[Terrain]:
    """Labels for the rows of ``cost`` (rows x names) with exactly ``counts`` of each name."""
    slots = [t for t in names for _ in range(counts.get(t, 0))]
    if len(slots) != cost.shape[0]:
        raise ColorError(
            f"the material counts add up to {len(slots)} hexes but {cost.shape[0]} were given"
        )
    from scipy.optimize import linear_sum_assignment

    columns = [names.index(t) for t in slots]
    rows, cols = linear_sum_assignment(cost[:, columns])
    labels: list[Terrain] = [Terrain.DESERT] * cost.shape[0]
    for r, c in zip(rows, cols, strict=True):
        labels[r] = slots[c]
    return labels


def _hex_colours(
    image: np.ndarray, homography: np.ndarray, hexes: Sequence[Hex], white: WhiteReference
) -> list[np.ndarray]:
    out = []
    for h in hexes:
        plane = np.array(hex_center(h)) + _RING_PTS
        out.append(log_colour(_sample(image, homography, plane), white.at(plane)))
    return out


def _site_hexes(site: Vertex | Edge) -> list[Hex]:
    return list(vertex_hexes(site)) if isinstance(site, Vertex) else list(edge_hexes(site))


def _site_points(site: Vertex | Edge) -> np.ndarray:
    if isinstance(site, Vertex):
        return np.array(vertex_position(site)) + _SITE_PTS
    return _edge_points(site)


def _site_colours(
    image: np.ndarray, homography: np.ndarray, white: WhiteReference, site: Vertex | Edge
) -> tuple[np.ndarray, np.ndarray]:
    """Log colours float32 (N, 3) of a site's samples inside the image, and bool (N, 3)
    marking the channels the camera clipped."""
    plane = _site_points(site)
    raw = _sample(image, homography, plane)
    x = log_colour(raw, white.at(plane))
    keep = ~np.isnan(x).any(axis=1)
    return x[keep], raw[keep] >= _CLIPPED


def board_sites(hexes: Iterable[Hex]) -> tuple[list[Vertex], list[Edge]]:
    """Every corner and side of the given hexes, canonical and without repeats."""
    vs: set[Vertex] = set()
    es: set[Edge] = set()
    for q, r in hexes:
        vs.update(vertex(q, r, c) for c in CORNERS)
        es.update(edge(q, r, s) for s in SIDES)
    return sorted(vs), sorted(es)


def _prior_means(names: Iterable[Terrain]) -> np.ndarray:
    chip = np.array(_PRIOR_CHIP_BGR, np.float32)
    return np.array([log_colour(np.array(_PRIOR_TERRAIN_BGR[t], np.float32), chip) for t in names])


def learn_colors(
    image: np.ndarray,
    homography: np.ndarray,
    hexes: Sequence[Hex],
    *,
    kind: str = "base",
    terrains: Mapping[Hex, Terrain] | None = None,
    players: Sequence[str] = (),
) -> ColorProfile:
    """Learn a colour profile from one view of the set-up board.

    Args:
        image: BGR uint8 (H, W, 3), undistorted.
        homography: float (3, 3), board plane (hex radii) -> image pixels.
        hexes: the land hexes of the frame.
        kind: ``base`` or ``5-6``: their material counts guide the learning.
        terrains: the known terrain of each hex, if known (any board, Seafarers too).
        players: colour names of the players whose set-up pieces are on the board
            (e.g. ``["red", "blue", "orange", "white"]``); empty to learn terrain only.

    Raises:
        ColorError: unknown kind or player colour, counts that do not match the hexes, or
            player pieces that cannot be found.
    """
    hexes = list(hexes)
    if terrains is None:
        if kind not in TERRAIN_COUNTS:
            raise ColorError(
                f"learning colours needs a base or 5-6 board, or the board's terrains, not {kind!r}"
            )
        counts = TERRAIN_COUNTS[kind]
        if sum(counts.values()) != len(hexes):
            raise ColorError(
                f"a {kind} board has {sum(counts.values())} land hexes but {len(hexes)} were given"
            )
    unknown = [p for p in players if p not in PLAYER_COLOURS_BGR]
    if unknown:
        raise ColorError(
            f"unknown player colour {unknown[0]!r}: use {', '.join(PLAYER_COLOURS_BGR)}"
        )
    if len(set(players)) != len(players):
        raise ColorError("each player colour may be named only once")
    if terrains is None:
        # The desert carries no chip; which hex it is, is not known yet: the white
        # reference's robust fit ignores that one chipless hex.
        chip_hexes = hexes
    else:
        chip_hexes = [h for h in hexes if terrains[h] not in (Terrain.DESERT, Terrain.SEA)]
    white = measure_white(image, homography, chip_hexes)
    samples = _hex_colours(image, homography, hexes, white)
    outside = [
        h for h, x in zip(hexes, samples, strict=True) if np.isnan(x).any(axis=1).mean() > 0.5
    ]
    if outside:
        raise ColorError(
            f"{len(outside)} hexes are (half) outside the picture: the whole board must be "
            "in view to learn its colours"
        )
    medians = np.array([np.nanmedian(x, axis=0) for x in samples])
    if terrains is None:
        labels = _cluster_with_counts(medians, counts)
    else:
        labels = [terrains[h] for h in hexes]
    models = {
        t: Gaussian.fit(np.vstack([samples[i] for i, lab in enumerate(labels) if lab == t]))
        for t in dict.fromkeys(labels)
    }
    sea = _sea_colours(image, homography, hexes, white)
    if sea is not None and Terrain.SEA not in models:
        models[Terrain.SEA] = sea
    profile = ColorProfile(models, {}, None, white.mean_bgr, kind)
    terrain_of = dict(zip(hexes, labels, strict=True))
    profile.border = _learn_border(image, homography, hexes, white)
    if players:
        profile.players = _learn_players(
            image, homography, hexes, white, profile, terrain_of, players
        )
    return profile


def _cluster_with_counts(medians: np.ndarray, counts: Mapping[Terrain, int]) -> list[Terrain]:
    """Constrained k-means: groups of exactly ``counts`` sizes, seeded by the prior colours."""
    names = [t for t in counts if counts[t] > 0]
    centres = _prior_means(names)
    # The prior is relative to a typical chip; the board's own chips may be tinted, which
    # shifts all its colours alike: remove that shift before the first round.
    centres = centres + (np.median(medians, axis=0) - np.median(centres, axis=0))
    labels: list[Terrain] = []
    for _ in range(20):
        cost = ((medians[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = _assign_with_counts(cost, names, counts)
        if new == labels:
            break
        labels = new
        centres = np.array(
            [medians[[i for i, lab in enumerate(labels) if lab == t]].mean(axis=0) for t in names]
        )
    return labels


def _sea_colours(
    image: np.ndarray, homography: np.ndarray, hexes: Sequence[Hex], white: WhiteReference
) -> Gaussian | None:
    """The sea frame's model, sampled just outside the outer hexes' sides."""
    land = set(hexes)
    plane = []
    for h in hexes:
        c = np.array(hex_center(h))
        for side in SIDES:
            nb = hex_neighbour(h, side)
            if nb in land:
                continue
            d = (np.array(hex_center(nb)) - c) / SQRT3
            for dist in (1.15, 1.3):
                for off in (-0.25, 0.0, 0.25):
                    plane.append(c + d * dist + np.array([-d[1], d[0]]) * off)
    if len(plane) < 12:
        return None
    pts = np.array(plane)
    x = log_colour(_sample(image, homography, pts), white.at(pts))
    # Harbour markers sit on the frame: keep the dominant colour only.
    med = np.nanmedian(x, axis=0)
    keep = np.linalg.norm(x - med, axis=1) < 0.35
    if keep.sum() < 12:
        return None
    return Gaussian.fit(x[keep])


def _learn_border(
    image: np.ndarray, homography: np.ndarray, hexes: Sequence[Hex], white: WhiteReference
) -> Gaussian:
    """The hex border's model: the dominant colour along the middle of the inner sides."""
    _, edges = board_sites(hexes)
    land = set(hexes)
    inner = [e for e in edges if all(h in land for h in _site_hexes(e))]
    t = np.linspace(0.3, 0.7, 7)[:, None]
    plane = []
    for e in inner:
        a, b = (np.array(vertex_position(v)) for v in edge_vertices(e))
        plane.append(a + t * (b - a))
    pts = np.vstack(plane)
    x = log_colour(_sample(image, homography, pts), white.at(pts))
    med = np.nanmedian(x, axis=0)
    dist = np.linalg.norm(x - med, axis=1)
    # Roads cover a few sides and a registration a pixel off lands some samples on the
    # terrain beside the border: keep the half closest to the dominant colour.
    keep = dist <= np.nanpercentile(dist, 50)
    return Gaussian.fit(x[keep])


def _learn_players(
    image: np.ndarray,
    homography: np.ndarray,
    hexes: Sequence[Hex],
    white: WhiteReference,
    profile: ColorProfile,
    terrain_of: Mapping[Hex, Terrain],
    players: Sequence[str],
) -> dict[str, Gaussian]:
    """Find the pieces (sites not explained by border and terrain) and split them by player."""
    vs, es = board_sites(hexes)
    scored: list[tuple[float, np.ndarray]] = []
    for site in [*vs, *es]:
        x, clipped = _site_colours(image, homography, white, site)
        if len(x) >= 6:
            scored.append((profile._background_score(x, clipped, site, terrain_of), x))
    scored.sort(key=lambda item: -item[0])
    k = len(players)
    # Clear pieces first; a piece close to the border's colour (white plastic on a cream
    # border) may score lower, so the set-up count (2 settlements + 2 roads each) admits the
    # next likeliest sites as long as they are at least unusual.
    found = [x for score, x in scored if score > _PIECE]
    if len(found) < k:
        raise ColorError(
            f"found pieces at {len(found)} places but {k} player colours were named: put every "
            "player's set-up pieces on the board"
        )
    for score, x in scored[len(found) : _SETUP_PIECES * k]:
        if score > _MAYBE_PIECE:
            found.append(x)
    medians = np.array([np.median(x, axis=0) for x in found])
    chip = np.array(_PRIOR_CHIP_BGR, np.float32)
    priors = np.array(
        [log_colour(np.array(PLAYER_COLOURS_BGR[p], np.float32), chip) for p in players]
    )
    # Equal shares: every player has the same pieces out at set-up (some slack for misses).
    # Sites that are no piece (a harbour's line at a coastal corner, the robber) go to
    # "junk" slots, cheaper than any player colour they are far from.
    from scipy.optimize import linear_sum_assignment

    per = math.ceil(len(found) / k) + 1
    slots = np.array([j for j in range(k) for _ in range(per)] + [-1] * len(found))
    labels = np.full(len(found), -2)
    centres = priors
    for round_ in range(10):
        junk = (_JUNK_FIRST if round_ == 0 else _JUNK) ** 2
        cost = ((medians[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        full = np.hstack([cost[:, slots[slots >= 0]], np.full((len(found), len(found)), junk)])
        rows, cols = linear_sum_assignment(full)
        new = np.full(len(found), -1)
        new[rows] = slots[cols]
        if np.array_equal(new, labels):
            break
        labels = new
        centres = np.array(
            [
                medians[labels == j].mean(axis=0) if (labels == j).any() else priors[j]
                for j in range(k)
            ]
        )
    out = {}
    for j, p in enumerate(players):
        members = [found[i] for i in np.nonzero(labels == j)[0]]
        if not members:
            raise ColorError(f"no pieces of player colour {p!r} were found on the board")
        out[p] = Gaussian.fit(np.vstack(members))
    return out
