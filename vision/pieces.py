"""Players' pieces on a registered board: settlements, cities, roads and ships by colour.

Method
------
1. **Top view.** The photo is warped to a small rectified top view of the registered board
   (``px_per_unit`` pixels per hex radius). Everything below works there, so a piece has the
   same size wherever it stands and whatever the camera's tilt.
2. **Light.** Each channel is divided by a smooth gain field: a plane fitted to the log of the
   channel over the land hexes (grey-world over the board, with a linear ramp). This removes
   the room's brightness, a colour cast and a lamp's gradient, which otherwise move a white
   piece towards the beige tile borders or a red one towards the hills.
3. **Colour labels.** Every pixel takes the nearest player colour in CIELAB (after step 2) if
   it is within that colour's tolerance, else no colour. The prototypes are chosen so that the
   terrain they resemble stays outside: orange sits between fields and gold with a higher a*,
   brown is far darker than hills, green more saturated than forest and darker than pasture,
   blue more saturated and darker than the sea, white neutral where borders are yellow.
4. **Sites.** Only the grid's corners and sides are looked at. A corner holds a building when
   most of a small disc around it has one colour; a side holds a road when most of a thin strip
   along its middle does. A city is told from a settlement by the area of its colour around the
   corner (roads of the same colour on the corner's sides are left out of that area). A side
   with no land beside it holds a ship; on a coast side (land and sea) a ship is told from a
   road by its colour off the strip in the side's middle (hull and sail lie across the side, a
   road along it) and by how much of the strip it leaves free (a ship lying along its side
   covers half of it): :data:`SHIP_SCORE`, with a kind confidence (road or ship in doubt near
   the decision, :data:`SHIP_MARGIN`).
5. **Single photos of real plastic** (:func:`detect_pieces`) replace steps 3-4's presence and
   colour by the ground model of :mod:`vision.site_ground`: a site holds a piece where most of
   its pixels are rare in the ground around it (its hexes' art, the tile border, the coast),
   and the piece's colour is their median's hue; two buildings on neighbouring corners leave
   the weaker out (the distance rule); on a board of cardboard tiles, a pale corner whose tile
   seams something hides holds a white piece (:mod:`vision.seams`: white plastic in the shade
   has the border's colour, but stands); a building is a city when it is longer and more
   elongated than the photo's other buildings (:func:`city_score`: one photo has no absolute
   size, its buildings share a camera and a height). Real plastic's colours are not the
   renderer's; the tracker, which compares each frame with the board it saw before, keeps the
   classes.

Regions covered by a hand, glare or anything the caller masks are not read: a site whose
pixels are mostly covered is *unknown*, never empty.

Colour indices follow :data:`COLOURS`. State codes (used by the tracker): ``UNKNOWN`` (-1),
``EMPTY`` (0), and ``1 + 2 * colour + k`` where ``k`` is 0 for a settlement or road, 1 for a
city or ship.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.board import (
    Edge,
    Hex,
    Piece,
    Topology,
    Vertex,
    edge_vertices,
    hex_center,
    hex_corner_points,
    vertex_position,
)
from vision.seams import corner_gaps, inner_sides, seam_visibility, seams_seen
from vision.site_ground import (
    GROUND_RARE,
    GroundDensities,
    GroundModel,
    blob_colour,
    lab_to_linear,
    to_linear,
)

#: Player colours, in the order of colour indices.
COLOURS: tuple[str, ...] = ("red", "blue", "orange", "white", "green", "brown")

#: Colour classes in CIELAB (L* 0..100, a*, b*) after light normalisation: mean and standard
#: deviation per axis. Measured over the project's renders (vision.synth) under random light
#: (``catan-companion bench tracking --measure-colours`` prints them); a table with other
#: pieces passes its own player colours (calibration's colour profile). The background classes
#: are what a player colour must be told from: every terrain, the tile borders, the chips and
#: the sea frame.
PLAYER_CLASSES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "red": ((48.2, 64.5, 42.8), (5.5, 7.4, 7.3)),
    "blue": ((35.9, 21.4, -55.8), (4.5, 8.8, 11.9)),
    "orange": ((68.9, 30.0, 67.0), (3.5, 8.1, 4.9)),
    "white": ((93.0, 0.4, 0.4), (7.4, 4.9, 8.8)),
    "green": ((53.6, -46.9, 35.9), (4.8, 4.8, 4.8)),
    "brown": ((37.1, 14.8, 27.2), (5.4, 5.7, 6.1)),
}
BACKGROUND_CLASSES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "border": ((85.0, -1.2, 25.9), (7.5, 7.6, 10.0)),
    "chip": ((72.9, 2.3, 19.5), (21.9, 13.6, 15.0)),
    "frame": ((56.0, -2.1, -4.0), (15.4, 19.4, 33.8)),
    "desert": ((76.9, 1.7, 30.7), (12.2, 5.9, 11.5)),
    "fields": ((72.7, -0.1, 56.5), (8.9, 9.5, 7.9)),
    "forest": ((34.7, -26.4, 24.6), (9.6, 7.2, 7.3)),
    "hills": ((52.7, 24.1, 37.3), (8.7, 9.5, 10.2)),
    "mountains": ((62.3, 1.1, 1.3), (11.0, 7.7, 9.7)),
    "pasture": ((73.8, -36.9, 53.4), (8.5, 7.6, 8.1)),
    # Not in the measured renders (base boards): CIELAB of the renderer's gold and sea art.
    "gold": ((66.0, 19.0, 66.0), (8.0, 6.0, 8.0)),
    "sea": ((45.0, 2.0, -40.0), (9.0, 8.0, 10.0)),
    # Outlines, shadows and ink: whatever is nearly black.
    "dark": ((12.0, 0.0, 0.0), (8.0, 6.0, 6.0)),
}
_SEAFARERS_ONLY = ("gold", "sea")
# Player colours' spreads are widened by this factor: lights and cameras vary more than the
# measured renders do, and the sites' majority vote absorbs a few stray pixels.
_PLAYER_SPREAD = 1.3
# No class is narrower than this (L*, a*, b*): renders under-represent real variation.
_MIN_STD = 6.0
# A pixel farther than this (in standard deviations, squared sum) from its class is no class.
_FAR = 25.0
# Levels per channel of the colour lookup table.
_LUT_LEVELS = 64
# A colour table cell not classified yet (cells are classified when first looked up).
_UNCLASSIFIED = -3

# The reference grey the board's mean is mapped to by the light normalisation (B, G, R),
# and the colour the tile borders are then mapped to (the renderer's border, B, G, R).
_REFERENCE = (110.0, 140.0, 150.0)
_BORDER = (150.0, 200.0, 220.0)
# Two sides whose mean colours are this close (BGR levels) show the same thing.
_CLUSTER = 18.0

UNKNOWN = -1
EMPTY = 0

# Standing pieces (hex radii): a building is read where the middle of its height projects, a
# road where the middle of its thickness does (a settlement is about a third of a hex radius
# tall, a road a tenth thick).
_BUILDING_MID = 0.15
_ROAD_MID = 0.05
#: With the colour classes (no ground model), a single photo's sites are ground, not pieces,
#: when more than this fraction of one part of their surroundings has their colour (the real
#: photos of boards-dev: the coast's foam read as white roads, brown hills as brown pieces;
#: see docs/vision-tracking.md). The ground model does this work by default.
GROUND_CONTEXT = 0.5
#: Light factors of the shaded player colours a single photo is read with: real plastic is
#: three-dimensional, and its faces turned from the lamp are darker than the renders' flat
#: pieces (chosen leaving one layout of boards-dev out, see docs/vision-tracking.md). With the
#: ground model the classes, shades included, only tell city from settlement, ship from road.
PLASTIC_SHADES = (0.5, 0.3)
# A focal length above this many image sizes is a top-down view: no tilt to measure.
_MAX_FOCAL = 20.0

# Site geometry, in hex radii.
_CORE_RADIUS = 0.12  # a building covers at least this disc around its corner
_AREA_RADIUS = 0.42  # ... and at most this one (a city's wing)
_STRIP_FROM, _STRIP_TO = 0.25, 0.75  # the part of a side a road always covers
_STRIP_HALF = 0.045  # half width of the strip read for a road
_ROAD_HALF = 0.1  # half width of the band a road may cover
_SHIP_RADIUS = 0.32  # a ship's hull and sail around the side's midpoint
_RING_FROM = 0.3  # beyond this a settlement does not reach (the ring around a corner)
# Ground model: where a piece may stand off its site (hex radii), a building's disc in seven
# places (on the corner and around it), a road's strip in five (across the side).
_CORNER_SHIFTS = ((0.0, 0.0),) + tuple(
    (0.07 * math.cos(k * math.pi / 3), 0.07 * math.sin(k * math.pi / 3)) for k in range(6)
)
_SIDE_SHIFTS = (0.0, -0.04, 0.04, -0.08, 0.08)
# Decisions.
_PRESENT = 0.5  # fraction of a site's core in one colour for a piece to be there
_COVERED = 0.3  # fraction of a site's pixels covered beyond which it is unknown
_CITY_AREA = 0.1  # hex radii squared: more of the colour around a corner is a city
#: Ground model (single photos): a building is a city when its spread, times the square root of
#: its elongation (:data:`CITY_ELONGATION`), each relative to the lower quartile of the photo's
#: buildings', exceeds this (:func:`city_score`). Set 5% above the largest of layout E of
#: boards-dev (all settlements), with renders of seed 0 for the weight (docs/vision-tracking.md).
CITY_SCORE = 1.43
#: The weight of a building's elongation (major over minor axis) in :func:`city_score`: a city
#: is a settlement with a wing, longer for its width.
CITY_ELONGATION = 0.5
_SPREAD_QUORUM = 3  # buildings measured before any is compared with the others
_SPREAD_PIXELS = 12  # a building's own pixels needed for its spread to be measured
#: A settlement is sure (kind confidence 1) when its score is this many times short of the
#: threshold (:func:`kind_confidence`; chosen on renders, seed 0, as the smallest of 1.3, 1.5,
#: 1.7 with no sure kind wrong; docs/vision-tracking.md).
KIND_MARGIN = 1.7
#: ... and a city when its score is this many times beyond it. Narrower: the threshold already
#: stands clear of real settlements (:data:`CITY_SCORE`), while a city among many cities
#: measures against a city's size and passes for a settlement (chosen as KIND_MARGIN, among
#: 1.15, 1.2, 1.3, 1.5, 1.7).
KIND_MARGIN_CITY = 1.3
#: A building's spread measures the piece only when at least this share of its own pixels
#: forms one 8-connected group (:func:`kind_confidence`).
KIND_COMPACT = 0.9
#: ... and when they fill at least this share of their convex hull: a piece's outline is convex
#: but for a city's notch (the renderer's city fills 0.9 of its hull); a road's end or art of its
#: colour joined to it leave a ragged outline (:func:`kind_confidence`).
KIND_SOLID = 0.6
#: Below this kind confidence a building's kind is reported as in doubt (read-board).
KIND_CERTAIN = 0.75
#: A corner whose tile seams all stay hidden this far from it (hex radii) holds a piece that
#: stands there (:mod:`vision.seams`): a building's foot covers at least ``_CORE_RADIUS`` (0.12)
#: around its corner; a step (0.025) is left for the registration. On layout E of boards-dev,
#: empty corners' seams show from 0.075 at the most (docs/vision-tracking.md).
HIDDEN_GAP = 0.1
#: Only a board whose free inner sides show their seam this often is read by its seams (the
#: renderer's boards, and boards printed in one piece, have none to hide).
SEAMS_SEEN = 0.5
#: Presence confidence of a white building read by its hidden seams: a piece, but one read by
#: what it hides, not by its own colour.
HIDDEN_CONFIDENCE = 0.6
# Ground model: a pixel is of a piece's colour when its hue is this near (radians).
_OWN_HUE = math.radians(25.0)
#: Ground model: a ship's own colour covers more than this fraction of its side's disc off the
#: road band (hull and sail lie across the side, a road along it).
SHIP_OFF = 0.12
#: Colour classes (the tracker's reading), on a coast side (land on one hand, sea or the frame
#: on the other: a road or a ship may stand there): the ship score is the fraction of the
#: side's middle off the road band (:data:`_SHIP_MIDDLE` along, beyond ``_ROAD_HALF`` across,
#: within ``_SHIP_RADIUS``) that the piece's colour covers, counting only the colour joined to
#: what lies on the strip (the hull and sail are one piece with it; terrain of the colour is
#: scattered), plus :data:`SHIP_STRIP_WEIGHT` times the part of the strip it leaves free (a road
#: fills its strip, a ship lying along its side only half of it). Above :data:`SHIP_SCORE`: a
#: ship. Chosen on renders of Seafarers maps, seed 101 (docs/vision-tracking.md, "Road or
#: ship on the coast"), among weights 0 (the colour off the band alone), 0.2 .. 0.5.
SHIP_STRIP_WEIGHT = 0.3
SHIP_SCORE = 0.135
#: A side's kind (road or ship) is sure (kind confidence 1) this far from its decision (the ship
#: score from :data:`SHIP_SCORE`), and in doubt (below :data:`KIND_CERTAIN`) within half of it:
#: a ship read as such within 0.2 of it, a road within 0.06. Chosen on the renders of
#: :func:`vision.bench_pieces.coast_kinds` (60 each, the tracker's difference mask): on seed
#: 101 roads scored up to 0.16 beyond it (a road off its side's middle, or the colour of
#: mountains, of the sea or of a building joined to it), ships down to 0.008 above it; seed 202
#: (held out) 0.17 and 0.004 short, seed 303 0.19 and 0.017 short (docs/vision-tracking.md,
#: "Road or ship on the coast").
SHIP_MARGIN = 0.4
ROAD_MARGIN = 0.12
#: Ground model (single photos): the same for a ship, its off fraction from :data:`SHIP_OFF`
#: (in doubt below 0.28: roads reached 0.19 and 0.26 on 30 renders each of seeds 101 and 202).
#: A road it reads on a coast side is always in doubt (kind confidence 0.5): ships lying along
#: their side left as little of their colour off the band as roads (0.01 and less).
SHIP_OFF_MARGIN = 0.32
#: Colour classes: when the piece's colour covers more than this fraction of the middle
#: beyond a ship's reach on either hand (``_SHIP_RADIUS`` to ``+ _SHIP_BEYOND`` across), the
#: colour is the ground's there (the sea reads as blue on some maps, mountains as white), and
#: what lies off the road band is no measure: its kind is in doubt (kind confidence 0.5).
SHIP_GROUND = 0.2
_SHIP_BEYOND = 0.12
# The middle of a side (hex radii along it from its midpoint), where a ship's sail stands: a
# building at the side's end (a city's wing reaches 0.32 from its corner) stays out of it.
_SHIP_MIDDLE = 0.15


@functools.cache
def _cell_lab() -> np.ndarray:
    """CIELAB of the centre of every colour table cell: float32 (levels**3, 3), flat in
    B, G, R order (computed once per process)."""
    n = _LUT_LEVELS
    levels = (np.arange(n, dtype=np.float32) + 0.5) * (256.0 / n)
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    bgr = np.stack([b, g, r], axis=-1).reshape(-1, 1, 3) / 255.0
    return cv2.cvtColor(bgr.astype(np.float32), cv2.COLOR_BGR2Lab).reshape(-1, 3)


def shaded_class(
    cls: tuple[tuple[float, float, float], tuple[float, float, float]], factor: float
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """A colour class as it looks on a face that gets ``factor`` (0..1) of the light.

    The linear RGB of the class mean is scaled (a shadow dims a surface, it does not change its
    hue); the spread is kept, scaled in L* like the mean.

    >>> (lab, _), (dark, _) = PLAYER_CLASSES["blue"], shaded_class(PLAYER_CLASSES["blue"], 0.5)
    >>> dark[0] < lab[0] and abs(dark[2]) < abs(lab[2])
    True
    """
    mean, std = cls
    lab = np.array([[mean]], np.float32)
    linear = cv2.cvtColor(lab, cv2.COLOR_Lab2RGB)
    # Lab2RGB gives gamma-encoded sRGB: dim in linear light, then encode again.
    lin = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4) * factor
    enc = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    out = cv2.cvtColor(enc.astype(np.float32), cv2.COLOR_RGB2Lab)[0, 0]
    ratio = out[0] / max(mean[0], 1e-6)
    spread = (std[0] * ratio, std[1], std[2])
    return (tuple(round(float(x), 2) for x in out), spread)  # type: ignore[return-value]


def camera_position(
    homography: np.ndarray, image_size: tuple[int, int]
) -> tuple[float, float, float] | None:
    """The camera's centre over the board plane, ``(x, y, height)`` in hex radii.

    A photo's homography from the board plane is ``K [r1 r2 t]`` up to scale. With square pixels
    and the principal point at the image centre (a phone or a webcam), ``K`` has one unknown,
    the focal length, which the orthonormality of ``r1`` and ``r2`` gives; the camera's centre
    is then ``-R^T t``.

    Args:
        homography: float (3, 3) board plane -> image pixels.
        image_size: (width, height) of the image.

    Returns:
        The centre, or None when the view is too near top-down for the focal length to be
        measured (a standing piece then appears at its foot anyway).

    >>> camera_position(np.diag([50.0, 50.0, 1.0]), (640, 480)) is None
    True
    """
    w, h = image_size
    shift = np.array([[1.0, 0.0, -w / 2.0], [0.0, 1.0, -h / 2.0], [0.0, 0.0, 1.0]])
    a = shift @ np.asarray(homography, np.float64)
    a1, a2 = a[:, 0], a[:, 1]
    # Unknown u = 1 / f^2: r1 . r2 = 0 and |r1| = |r2|, each linear in u.
    coef = np.array(
        [a1[0] * a2[0] + a1[1] * a2[1], a1[0] ** 2 + a1[1] ** 2 - a2[0] ** 2 - a2[1] ** 2]
    )
    const = np.array([a1[2] * a2[2], a1[2] ** 2 - a2[2] ** 2])
    denom = float(coef @ coef)
    if denom == 0.0:
        return None
    u = -float(coef @ const) / denom
    if not u > 0.0 or 1.0 / math.sqrt(u) > _MAX_FOCAL * max(w, h):
        return None
    f = 1.0 / math.sqrt(u)
    m = np.diag([1.0 / f, 1.0 / f, 1.0]) @ a
    scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    rot = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rot.T @ t
    return float(centre[0]), float(centre[1]), abs(float(centre[2]))


class BuildingShapes(NamedTuple):
    """Per corner (float64 (V,)), the size and shape of a building's own pixels; NaN where no
    building is or too few of its pixels are seen (``PieceDetector._shapes``)."""

    #: Standard deviation along the pixels' major principal axis (hex radii).
    spread: np.ndarray
    #: Major over minor axis (>= 1).
    elongation: np.ndarray
    #: The share of their convex hull the pixels fill (0..1).
    solidity: np.ndarray
    #: The share of the pixels in their largest 8-connected group (0..1; 0 where none).
    compact: np.ndarray


def state_code(colour: int, big: bool) -> int:
    """The state code of a piece of colour index ``colour``; ``big``: city or ship."""
    return 1 + 2 * colour + int(big)


@dataclass(frozen=True)
class DetectedPiece:
    """A piece found on the board, in board coordinates, with a confidence in 0..1."""

    kind: str
    color: str
    vertex: Vertex | None = None
    edge: Edge | None = None
    confidence: float = 1.0
    #: How sure the kind is (city or settlement, road or ship), 0.5..1; ``confidence`` is never
    #: above it.
    #: Below :data:`KIND_CERTAIN` the other kind is nearly as likely a reading.
    kind_confidence: float = 1.0

    def to_piece(self) -> Piece:
        return Piece(self.kind, self.color, self.vertex, self.edge)

    def to_json(self) -> dict[str, Any]:
        """The board JSON form of DESIGN.md, with the confidence."""
        out: dict[str, Any] = {"kind": self.kind, "color": self.color}
        if self.vertex is not None:
            out["vertex"] = list(self.vertex)
        if self.edge is not None:
            out["edge"] = list(self.edge)
        out["confidence"] = round(self.confidence, 3)
        return out


@dataclass
class SiteReadings:
    """What the detector read at every corner and side of the board.

    Attributes:
        vertices, edges: the topology's corners and sides (the order of the arrays).
        vertex_state, edge_state: int64 (V,) and (E,) state codes (see the module doc).
        vertex_conf, edge_conf: float64 (V,) and (E,) confidence of each state, 0..1.
        vertex_area: float64 (V,) area (hex radii squared) of a building's colour within
            0.42 hex radii of its corner, roads included (0 where no building is read). At one
            corner under one light it grows when a city replaces a settlement (by more than a
            hand over part of the disc, or the light's wavering, makes it shrink or grow: the
            tracker tells upgrades by ``vertex_gain`` instead).
        vertex_gain: float64 (V,) area (hex radii squared) within the same disc that differs
            from the tracker's reference top view and now has the colour of the building read
            at the corner (0 where none is read); None when no difference mask was given.
        vertex_kind_conf: float64 (V,) how sure each building's kind is (0.5..1,
            :func:`kind_confidence`; single photos); None: as sure as its presence.
            What an upgrade adds to a settlement, and nothing that stays around it.
        edge_kind_conf: float64 (E,) how sure each side's kind (road or ship) is, 0.5..1: 1
            where only one kind can stand (all land: a road; no land: a ship) and at empty
            sides; on a coast side, by how far its ship score lies from the decision
            (:data:`SHIP_MARGIN`). None: as sure as its presence.
        edge_ship_score: float64 (E,) the evidence it is measured by, less its decision (above
            0: a ship; :data:`SHIP_SCORE`, or :data:`SHIP_OFF` with the ground model); NaN
            where no piece stands on a coast side.
    """

    vertices: tuple[Vertex, ...]
    edges: tuple[Edge, ...]
    vertex_state: np.ndarray
    edge_state: np.ndarray
    vertex_conf: np.ndarray
    edge_conf: np.ndarray
    vertex_area: np.ndarray
    colours: tuple[str, ...] = COLOURS
    vertex_gain: np.ndarray | None = None
    vertex_kind_conf: np.ndarray | None = None
    edge_kind_conf: np.ndarray | None = None
    edge_ship_score: np.ndarray | None = None

    def pieces(self) -> list[DetectedPiece]:
        """The pieces of the known, occupied sites."""
        return pieces_from_states(
            self.vertices,
            self.edges,
            self.vertex_state,
            self.edge_state,
            self.vertex_conf,
            self.edge_conf,
            self.colours,
            self.vertex_kind_conf,
            self.edge_kind_conf,
        )


def pieces_from_states(
    vertices: Sequence[Vertex],
    edges: Sequence[Edge],
    vertex_state: np.ndarray,
    edge_state: np.ndarray,
    vertex_conf: np.ndarray | None = None,
    edge_conf: np.ndarray | None = None,
    colours: Sequence[str] = COLOURS,
    vertex_kind_conf: np.ndarray | None = None,
    edge_kind_conf: np.ndarray | None = None,
) -> list[DetectedPiece]:
    """Pieces from per-site state codes (unknown and empty sites give none); a piece's
    confidence is at most its kind's (``vertex_kind_conf``, ``edge_kind_conf``, None: 1)."""
    out: list[DetectedPiece] = []
    for states, conf, kind_conf, kinds, on_vertex in (
        (vertex_state, vertex_conf, vertex_kind_conf, ("settlement", "city"), True),
        (edge_state, edge_conf, edge_kind_conf, ("road", "ship"), False),
    ):
        for i, code in enumerate(states):
            if code <= EMPTY:
                continue
            c, big = divmod(int(code) - 1, 2)
            seen = 1.0 if conf is None else float(conf[i])
            sure = 1.0 if kind_conf is None else float(kind_conf[i])
            out.append(
                DetectedPiece(
                    kinds[big],
                    colours[c],
                    confidence=min(seen, sure),
                    vertex=vertices[i] if on_vertex else None,
                    edge=None if on_vertex else edges[i],
                    kind_confidence=sure,
                )
            )
    return out


def normalise_light(
    top: np.ndarray,
    land: np.ndarray,
    anchor: tuple[np.ndarray, np.ndarray] | None = None,
    step: int = 5,
    clip: bool = True,
) -> np.ndarray:
    """Divide out the light: per channel, a plane fitted to log intensity over the land, then
    a gain that maps the tile borders' colour to a fixed one.

    Args:
        top: BGR uint8 (H, W, 3) top view.
        land: bool (H, W), the pixels the fit uses (the land hexes, minus covered ones).
        anchor: optional ``(flat pixel indices, group ids)`` of the middles of the sides. Each
            group (a side) is mostly tile border or mostly a piece; the border colour is the
            densest cluster of the groups' mean colours (the sides without a piece agree with
            each other, pieces of one colour are too few to outvote them). The border is one
            light colour all over the board: a better white reference than the terrain mix.
        step: every ``step``-th land pixel is used (speed).
        clip: clip to 0..255. Unclipped, what is lighter than the reference's top stays
            apart: a white piece is lighter than the beige border mapped to :data:`_BORDER`,
            and clipped, it and the border's lightest pixels become one colour.

    Returns:
        BGR float32 (H, W, 3), 0..255, with the board's light ramp flattened and its border
        (or, without anchor, its mean) mapped to a fixed colour. With no usable pixel,
        ``top`` unchanged (as float32).
    """
    h, w = top.shape[:2]
    img = top.astype(np.float32)
    ys, xs = np.nonzero(land)
    if len(xs) < 30:
        return img
    ys, xs = ys[::step], xs[::step]
    design = np.column_stack([np.ones(len(xs)), xs / w - 0.5, ys / h - 0.5])
    # The +8 keeps log() finite on black pixels and damps noise in dark ones.
    logs = np.log(img[ys, xs] + 8.0)
    coef, *_ = np.linalg.lstsq(design, logs, rcond=None)  # (3, 3): term x channel
    # exp(ref - (c0 + c1 x + c2 y)) separates into a row factor times a column factor.
    ref = np.log(np.array(_REFERENCE, np.float32))
    gx = np.exp(-np.outer(np.arange(w, dtype=np.float32) / w - 0.5, coef[1]))  # (w, 3)
    gy = np.exp(ref - coef[0] - np.outer(np.arange(h, dtype=np.float32) / h - 0.5, coef[2]))
    out = img * gy[:, None, :].astype(np.float32)
    out *= gx[None, :, :].astype(np.float32)
    if anchor is not None and len(anchor[0]):
        gain = _border_gain(out, *anchor)
        if gain is not None:
            out *= gain
    return np.clip(out, 0, 255) if clip else out


def _border_gain(img: np.ndarray, idx: np.ndarray, group: np.ndarray) -> np.ndarray | None:
    """Per-pixel BGR gain (float32 (H, W, 3)) that maps the tile borders to :data:`_BORDER`.

    The sides' mean colours that belong to the border cluster (see :func:`_border_colour`)
    are fitted, per channel, by a plane in log intensity over their positions: the border is
    one colour everywhere, so what varies across it is the light. (A plane fitted to the
    terrain would also follow where the forests and fields happen to lie.) None when too few
    sides show border.
    """
    h, w = img.shape[:2]
    flat = img.reshape(-1, 3)
    n = int(group.max()) + 1
    sizes = np.bincount(group, minlength=n)
    used = np.flatnonzero(sizes > 0)
    if len(used) < 3:
        return None
    means = (
        np.stack([np.bincount(group, weights=flat[idx, c], minlength=n) for c in range(3)], 1)[used]
        / sizes[used, None]
    )
    xs = np.bincount(group, weights=(idx % w).astype(np.float64), minlength=n)[used]
    ys = np.bincount(group, weights=(idx // w).astype(np.float64), minlength=n)[used]
    xs, ys = xs / sizes[used] / w - 0.5, ys / sizes[used] / h - 0.5
    near = _border_cluster(means)
    # Sides near the cluster's colour, with a wider margin: the light varies across it.
    member = np.linalg.norm(means - np.median(means[near], axis=0), axis=1) < 2 * _CLUSTER
    ref = np.log(np.array(_BORDER, np.float64))
    if member.sum() < 8:
        border = np.median(means[near], axis=0)
        return (np.exp(ref) / np.maximum(border, 1.0)).astype(np.float32)[None, None, :]
    design = np.column_stack([np.ones(member.sum()), xs[member], ys[member]])
    coef, *_ = np.linalg.lstsq(design, np.log(np.maximum(means[member], 1.0)), rcond=None)
    gx = np.exp(-np.outer(np.arange(w) / w - 0.5, coef[1]))  # (w, 3)
    gy = np.exp(ref - coef[0] - np.outer(np.arange(h) / h - 0.5, coef[2]))  # (h, 3)
    return (gy[:, None, :] * gx[None, :, :]).astype(np.float32)


def _border_pixels(norm: np.ndarray, idx: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The flat indices of the sides' middles that show tile border (their side's mean colour
    near the densest cluster of all sides' colours; none when too few sides are seen)."""
    if len(idx) == 0:
        return idx
    flat = norm.reshape(-1, 3)
    centre = _border_colour(flat, idx, group)
    if centre is None:
        return idx[:0]
    n = int(group.max()) + 1
    sizes = np.maximum(np.bincount(group, minlength=n), 1)
    means = np.stack([np.bincount(group, weights=flat[idx, c], minlength=n) for c in range(3)], 1)
    # The margin of the light normalisation's own border fit: the light varies across it.
    member = np.linalg.norm(means / sizes[:, None] - centre, axis=1) < 2 * _CLUSTER
    return idx[member[group]]


def _border_colour(flat: np.ndarray, idx: np.ndarray, group: np.ndarray) -> np.ndarray | None:
    """The densest cluster of the groups' mean BGR colours (float32 (3,)), or None."""
    n = int(group.max()) + 1
    sizes = np.bincount(group, minlength=n)
    used = sizes > 0
    if used.sum() < 3:
        return None
    means = (
        np.stack([np.bincount(group, weights=flat[idx, c], minlength=n) for c in range(3)], axis=1)[
            used
        ]
        / sizes[used, None]
    )
    return np.median(means[_border_cluster(means)], axis=0).astype(np.float32)


def _border_cluster(means: np.ndarray) -> np.ndarray:
    """bool (n,): the sides in the densest cluster of the sides' mean BGR colours ``means``
    (float (n, 3)) whose centre is a side at least as light as the sides' median.

    The border is the lightest print on the land. Where a small view blurs it into the art
    beside it, the light sides no longer agree closely, and five sides between two dark
    forests made the densest cluster: mapped to the border's colour, they washed the whole
    board out to white (the demo's seed-4 table, every piece of its first turns unread).
    """
    near = np.linalg.norm(means[:, None, :] - means[None, :, :], axis=2) < _CLUSTER
    light = means.sum(axis=1) >= np.median(means.sum(axis=1))
    return near[int(np.argmax(np.where(light, near.sum(axis=1), -1)))]


@dataclass
class _Sites:
    """Flat top-view pixel indices of every site's regions, with their site numbers."""

    vcore: tuple[np.ndarray, np.ndarray]
    varea: tuple[np.ndarray, np.ndarray]
    # Per (vertex, slot 0..2) the part of the area disc inside the road band of that side.
    vband: tuple[np.ndarray, np.ndarray]
    vband_edge: np.ndarray  # (V, 3) edge index of each slot, -1 when none
    estrip: tuple[np.ndarray, np.ndarray]
    eoff: tuple[np.ndarray, np.ndarray]
    vring: tuple[np.ndarray, np.ndarray]
    # The ground around a site: per (vertex, sector 0..2) the ring off the road bands inside
    # one of the corner's three hexes; per (side, 0..1) the disc off its band on either hand.
    vground: tuple[np.ndarray, np.ndarray]
    eground: tuple[np.ndarray, np.ndarray]
    vsize: dict[str, np.ndarray] = field(default_factory=dict)
    # Ground model only: the corner discs and side strips moved a little (site number plus
    # shift times the number of sites): a real piece stands near its site, not on it.
    vcore_near: tuple[np.ndarray, np.ndarray] | None = None
    estrip_near: tuple[np.ndarray, np.ndarray] | None = None
    # Ground model only: each corner's area disc off its sides' road bands (a building's body).
    vbody: tuple[np.ndarray, np.ndarray] | None = None


class _CoastSide(NamedTuple):
    """A coast side's disc of ``_SHIP_RADIUS`` around where a piece on it is read, its pixels
    in the top view and on a small square grid of its own (for grouping them)."""

    idx: np.ndarray  # int64 (N,) flat top-view pixel indices
    rows: np.ndarray  # int64 (N,) the pixels' rows on the side's grid
    cols: np.ndarray  # int64 (N,) ... and columns
    size: int  # the grid's side, pixels
    disc: np.ndarray  # bool (N,) within _SHIP_RADIUS
    strip: np.ndarray  # bool (N,) the road strip
    middle: np.ndarray  # int8 (N,) the disc's middle off the road band: -1 or 1 by hand, else 0
    beyond: np.ndarray  # int8 (N,) the middle beyond the disc, by hand (_SHIP_BEYOND)


class PieceDetector:
    """Reads pieces at the corners and sides of one registered board.

    The geometry (where each site's pixels are) is computed once per registration, so the
    tracker can call :meth:`read` on every frame.

    Args:
        homography: float (3, 3) board plane (hex radii) -> image pixels.
        hexes: the board's hexes (canonical axial coordinates).
        sea_hexes: hexes that are sea.
        ships: whether ships are played (Seafarers): they are looked for on sea and coast
            sides (those of ``sea_hexes`` and of the frame).
        prototypes: player colour -> (CIELAB mean, standard deviation) after light
            normalisation; the players' colours only (default :data:`PLAYER_CLASSES`).
        px_per_unit: top-view resolution, pixels per hex radius (>= 12).
        shades: light factors (0..1) of shadowed plastic: each adds the player colours as
            they look with that much of the light (:func:`shaded_class`). Real pieces are
            three-dimensional and their shadowed faces are darker than any render.
        camera: the camera's centre over the board plane, ``(x, y, height)`` in hex radii
            (:func:`camera_position`), for standing pieces: each corner is read where a
            building's middle projects, each side where a road's does. None: pieces are
            read flat at their corners and sides (the renderer draws them flat).
        context: a site's colour is the ground's, not a piece's, when more than this
            fraction of one part of its surroundings has it too: of the ring 0.3..0.42 hex
            radii around a corner, off the road bands, inside one of its three hexes; of the
            disc beside a side's road band, on one hand (the coast's foam lies on one hand of
            the rim's sides). 1.0 never rejects.
        ground: read a site by what the board around it does not explain
            (:mod:`vision.site_ground`): a site holds a piece when most of its pixels are
            rare in its hexes' art, the tile border and (at the rim) the coast, and the piece's
            colour is that of those pixels' median by hue. For single photos of real plastic,
            whose colours are not the renderer's; the classes then only tell city from
            settlement and ship from road.
    """

    def __init__(
        self,
        homography: np.ndarray,
        hexes: Sequence[Hex],
        sea_hexes: Sequence[Hex] = (),
        ships: bool = False,
        prototypes: Mapping[str, tuple[tuple[float, float, float], tuple[float, float, float]]]
        | None = None,
        px_per_unit: float = 32.0,
        shades: Sequence[float] = (),
        camera: Sequence[float] | None = None,
        context: float = 1.0,
        ground: bool = False,
    ):
        if px_per_unit < 12:
            raise ValueError(f"px_per_unit must be at least 12, not {px_per_unit}")
        if not hexes:
            raise ValueError("the board has no hexes")
        h = np.asarray(homography, np.float64)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)):
            raise ValueError("the homography must be a finite 3x3 matrix")
        protos = dict(prototypes or PLAYER_CLASSES)
        unknown = set(protos) - set(COLOURS)
        if unknown:
            raise ValueError(f"unknown player colour {sorted(unknown)[0]!r}")
        self.colours = tuple(c for c in COLOURS if c in protos)
        # Gold and open sea are only on Seafarers maps; elsewhere they would only steal
        # orange and blue pixels.
        background = [v for k, v in BACKGROUND_CLASSES.items() if ships or k not in _SEAFARERS_ONLY]
        players = [protos[c] for c in self.colours]
        # Each shade is one more class per colour, telling the same colour index.
        self._class_colour = list(range(len(self.colours)))
        # A shaded white is grey: the mountains, the frame and the borders' own shadows are
        # that too, so white has no shaded class.
        hued = [i for i, c in enumerate(self.colours) if c != "white"]
        for factor in shades:
            players += [shaded_class(protos[self.colours[i]], factor) for i in hued]
            self._class_colour += hued
        classes = players + background
        self._means = np.array([m for m, _ in classes], np.float32)
        spread = np.array([_PLAYER_SPREAD] * len(players) + [1.0] * len(background))
        stds = np.maximum(np.array([sd for _, sd in classes], np.float32), _MIN_STD)
        self._stds = stds * spread[:, None].astype(np.float32)
        if np.any(self._stds <= 0):
            raise ValueError("colour spreads must be positive")
        self._log_norm = 2.0 * np.log(self._stds).sum(axis=1)
        # The colour table, flat: a photo looks up a few thousand of its 262,144 cells, so
        # each cell is classified when first looked up (see _classify_cells).
        self._cells = np.full(_LUT_LEVELS**3, _UNCLASSIFIED, np.int8)
        self._cells_lit = np.zeros(_LUT_LEVELS**3, bool)
        if any(not 0.0 < f < 1.0 for f in shades):
            raise ValueError(f"shades must be light factors between 0 and 1, not {list(shades)}")
        if camera is not None and (len(camera) != 3 or not camera[2] > _BUILDING_MID):
            raise ValueError("camera must be (x, y, height) with the height above the pieces")
        self.camera = None if camera is None else np.asarray(camera, np.float64)
        if not 0.0 < context <= 1.0:
            raise ValueError(f"context must be within 0..1, not {context}")
        self.context = float(context)
        self.topology = Topology.of(hexes)
        self.hexes = tuple(hexes)
        self.homography = h
        self.px = float(px_per_unit)
        centres = np.array([hex_center(x) for x in self.hexes])
        margin = 1.3
        lo = centres.min(axis=0) - margin
        hi = centres.max(axis=0) + margin
        self.size = tuple(int(math.ceil(v)) for v in (hi - lo) * self.px)
        self.plane_to_top = np.array(
            [[self.px, 0, -lo[0] * self.px], [0, self.px, -lo[1] * self.px], [0, 0, 1]]
        )
        self._top_to_image = h @ np.linalg.inv(self.plane_to_top)
        w, ht = self.size
        land = np.zeros((ht, w), np.uint8)
        sea = set(sea_hexes)
        for x in self.hexes:
            if x not in sea:
                pts = self._to_top(np.array(hex_corner_points(x)))
                cv2.fillPoly(land, [np.round(pts).astype(np.int32)], 255)
        self.land = land > 0
        t = self.topology
        hex_is_sea = [x in sea for x in t.hexes]
        self.sea_edges = np.array(
            [ships and (len(hs) < 2 or any(hex_is_sea[i] for i in hs)) for hs in t.edge_hexes],
            bool,
        )
        self._hex_is_sea = hex_is_sea
        self._inner = inner_sides(t, [i for i, is_sea in enumerate(hex_is_sea) if is_sea])
        self._open_sea = np.array(
            [ships and all(hex_is_sea[i] for i in hs) for hs in t.edge_hexes], bool
        )
        self._ground_on = bool(ground)
        self._linear = {c: lab_to_linear(protos[c][0]) for c in self.colours}

    @functools.cached_property
    def _ground(self) -> GroundModel | None:
        """The ground samples' geometry (ground model only), built on first use."""
        if not self._ground_on:
            return None
        sea = [i for i, is_sea in enumerate(self._hex_is_sea) if is_sea]
        return GroundModel(self.topology, self.size, self._to_top, self.px, self.land, sea)

    @functools.cached_property
    def _sites(self) -> _Sites:
        """Every site's pixels, built on first use (a detector that only warps, like
        :func:`refine_homography`'s, never needs them)."""
        return self._build_sites(self._ground_on)

    @functools.cached_property
    def _anchor(self) -> tuple[np.ndarray, np.ndarray]:
        """The road strips' pixels that anchor the light (with their side numbers)."""
        # Tile borders are drawn around land hexes: only sides touching land anchor the light.
        hex_is_sea = self._hex_is_sea
        touches_land = np.array(
            [any(not hex_is_sea[i] for i in hs) for hs in self.topology.edge_hexes]
        )
        keep = touches_land[self._sites.estrip[1]]
        return (self._sites.estrip[0][keep], self._sites.estrip[1][keep])

    @functools.cached_property
    def _coast(self) -> dict[int, _CoastSide]:
        """Per coast side (land on one hand, sea or the frame on the other), the pixels of its
        disc of ``_SHIP_RADIUS`` (see :class:`_CoastSide`), built on first use."""
        t = self.topology
        w, h = self.size
        r = int(math.ceil((_SHIP_RADIUS + _SHIP_BEYOND) * self.px)) + 1
        oy, ox = np.mgrid[-r : r + 1, -r : r + 1]
        off = np.column_stack([ox.ravel(), oy.ravel()]) / self.px
        dist = np.hypot(off[:, 0], off[:, 1])
        out: dict[int, _CoastSide] = {}
        for e in np.flatnonzero(self.sea_edges & ~self._open_sea):
            a, b = (np.array(vertex_position(x)) for x in edge_vertices(t.edges[e]))
            d = (b - a) / np.linalg.norm(b - a)
            along, across = off @ d, off @ np.array([-d[1], d[0]])
            cx, cy = self._to_top(self.seen_at((a + b) / 2, _ROAD_MID))[0]
            xs = ox.ravel() + int(round(cx))
            ys = oy.ravel() + int(round(cy))
            middle = np.abs(along) < _SHIP_MIDDLE
            beyond = middle & (np.abs(across) > _SHIP_RADIUS)
            disc = dist <= _SHIP_RADIUS
            keep = (disc | beyond) & (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            hand = np.sign(across).astype(np.int8)
            strip = (np.abs(along) <= (_STRIP_TO - _STRIP_FROM) / 2) & (
                np.abs(across) <= _STRIP_HALF
            )
            out[int(e)] = _CoastSide(
                (ys * w + xs)[keep],
                (oy.ravel() + r)[keep],
                (ox.ravel() + r)[keep],
                2 * r + 1,
                disc[keep],
                strip[keep],
                np.where(middle & disc & (np.abs(across) > _ROAD_HALF), hand, 0)[keep],
                np.where(beyond, hand, 0)[keep],
            )
        return out

    def _ship_scores(
        self,
        lab: np.ndarray,
        colour: np.ndarray,
        strip: np.ndarray,
        which: np.ndarray,
        changed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The colour classes' ship score of the coast sides ``which`` (see :data:`SHIP_SCORE`).

        Args:
            lab: int8 (H * W,) flat colour labels of the top view (:meth:`labels`).
            colour: int (E,) the colour index read at each side.
            strip: float (E,) the fraction of each side's strip in that colour.
            which: bool (E,) the sides to score (coast sides holding a piece).
            changed: optional bool (H * W,) what differs from the tracker's reference top view:
                only that counts off the road band (terrain, the sea or a building of the
                piece's colour beside a new road stays the same; a new ship's sail does not).

        Returns:
            float64 (E,) the score less :data:`SHIP_SCORE` (above 0: a ship), NaN where not
            scored; bool (E,) the sides where one hand of the middle is the colour's ground
            (:data:`SHIP_GROUND`).
        """
        score = np.full(len(which), np.nan)
        ground = np.zeros(len(which), bool)
        for e in np.flatnonzero(which):
            side = self._coast.get(int(e))
            if side is None:
                continue
            mine = lab[side.idx] == colour[e]
            grid = np.zeros((side.size, side.size), np.uint8)
            inside = mine & side.disc
            grid[side.rows[inside], side.cols[inside]] = 1
            _, group = cv2.connectedComponents(grid, connectivity=8)
            groups = group[side.rows, side.cols]
            joined = np.zeros(int(groups.max()) + 1, bool)
            joined[groups[inside & side.strip]] = True
            joined[0] = False
            off = side.middle != 0
            new = joined[groups] & off
            if changed is not None:
                new &= changed[side.idx]
            fill = float(new.sum()) / max(int(off.sum()), 1)
            score[e] = fill + SHIP_STRIP_WEIGHT * (1.0 - strip[e]) - SHIP_SCORE
            ground[e] = any(
                mine[side.beyond == k].mean() > SHIP_GROUND
                for k in (-1, 1)
                if (side.beyond == k).any()
            )
        return score, ground

    @property
    def _lut(self) -> np.ndarray:
        """The class of every quantised normalised BGR colour: int8 (n, n, n), -1 for none."""
        n = _LUT_LEVELS
        for chunk in np.array_split(np.arange(n**3), 64):
            self._classify_cells(chunk)
        return self._cells.reshape(n, n, n)

    def _classify_cells(self, cells: np.ndarray) -> None:
        """Classify the colour table's ``cells`` (flat indices) not classified yet.

        Each cell's centre colour takes the nearest class; once classified, a frame's pixels
        are a lookup.
        """
        todo = cells[self._cells[cells] == _UNCLASSIFIED]
        if not len(todo):
            return
        # The distinct cells, in order: marked on the table (no sort of a frame's pixels).
        marked = np.zeros(len(self._cells), bool)
        marked[todo] = True
        todo = np.flatnonzero(marked)
        lab = _cell_lab()[todo]
        # Per channel (k classes, p cells): the same sums as over the last axis, in order.
        z = [(lab[None, :, c] - self._means[:, c, None]) / self._stds[:, c, None] for c in range(3)]
        dist = z[0] * z[0] + z[1] * z[1] + z[2] * z[2]
        # Diagonal Gaussian classes: squared distance in standard deviations plus log spread.
        cls = np.argmin(dist + self._log_norm[:, None], axis=0)
        colour = np.array(self._class_colour + [-1] * (len(self._means) - len(self._class_colour)))
        out = colour[cls]
        far = dist[cls, np.arange(len(cls))] > _FAR
        out[far] = -1
        self._cells[todo] = out
        # Lit: won by a player colour's own class, not by one of its shades.
        self._cells_lit[todo] = (cls < len(self.colours)) & ~far

    def seen_at(self, point: np.ndarray, height: float) -> np.ndarray:
        """Where the board-plane ``point`` raised by ``height`` hex radii appears on the plane.

        Seen from the camera, a point above the board lies on the plane where the ray through
        it meets the board: beyond its foot, away from the camera. Without a camera, the point.
        """
        if self.camera is None:
            return point
        foot, up = self.camera[:2], self.camera[2]
        return point + height / (up - height) * (point - foot)

    def _to_top(self, points: np.ndarray) -> np.ndarray:
        p = np.asarray(points, np.float64).reshape(-1, 2)
        return p * self.px + self.plane_to_top[:2, 2]

    # -- geometry -----------------------------------------------------------------------------

    def _build_sites(self, near: bool = False) -> _Sites:
        """Every site's pixels; ``near``: also their shifted places (the ground model's)."""
        t = self.topology
        w, h = self.size
        r = int(math.ceil(_AREA_RADIUS * self.px)) + 1
        oy, ox = np.mgrid[-r : r + 1, -r : r + 1].astype(np.float64)
        ox, oy = ox.ravel(), oy.ravel()
        off = np.column_stack([ox, oy]) / self.px  # board-plane offsets
        dist = np.hypot(off[:, 0], off[:, 1])
        angle = np.arctan2(off[:, 1], off[:, 0])
        ring = (dist > _RING_FROM) & (dist <= _AREA_RADIUS)
        core = np.flatnonzero(dist <= _CORE_RADIUS)
        area = np.flatnonzero(dist <= _AREA_RADIUS)
        ring_idx = np.flatnonzero(ring)
        near_cores = [
            np.flatnonzero(np.hypot(off[:, 0] - dx, off[:, 1] - dy) <= _CORE_RADIUS)
            for dx, dy in (_CORNER_SHIFTS if near else ())
        ]
        # Sites along the same direction share their masks: each is computed once per
        # direction (keyed by the exact floats it is computed from).
        memo: dict[tuple[str, bytes], tuple[np.ndarray, ...]] = {}

        def along(offs: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
            """(distance along a->b from a, signed distance across), for offsets from a."""
            d = (b - a) / np.linalg.norm(b - a)
            return offs @ d, offs @ np.array([-d[1], d[0]])

        def band_of(p: np.ndarray, far: np.ndarray) -> np.ndarray:
            key = ("band", (far - p).tobytes())
            if key not in memo:
                s, n = along(off, p, far)
                band = (dist <= _AREA_RADIUS) & (s > _CORE_RADIUS) & (np.abs(n) <= _ROAD_HALF)
                memo[key] = (np.flatnonzero(band),)
            return memo[key][0]

        def body_of(p: np.ndarray, fars: list[np.ndarray]) -> np.ndarray:
            key = ("body", b"".join((far - p).tobytes() for far in fars))
            if key not in memo:
                bands = [band_of(p, far) for far in fars]
                memo[key] = (np.setdiff1d(area, np.concatenate(bands)),)
            return memo[key][0]

        def ground_of(first: float) -> tuple[np.ndarray, ...]:
            key = ("ground", np.float64(first).tobytes())
            if key not in memo:
                rel = np.mod(angle - first, 2 * np.pi)
                off_bands = ring.copy()
                for k in range(3):
                    across = np.abs(np.sin(angle - first - k * 2 * np.pi / 3)) * dist
                    ahead = np.cos(angle - first - k * 2 * np.pi / 3) > 0
                    off_bands &= ~(ahead & (across <= _ROAD_HALF))
                sector = np.floor(rel / (2 * np.pi / 3)).astype(np.int64) % 3
                memo[key] = tuple(np.flatnonzero(off_bands & (sector == k)) for k in range(3))
            return memo[key]

        def side_of(a: np.ndarray, b: np.ndarray, mid: np.ndarray) -> tuple[np.ndarray, ...]:
            key = ("side", np.concatenate([a - mid, b - mid, b - a]).tobytes())
            if key not in memo:
                s, n = along(off, a - mid, b - mid)
                s = s / np.linalg.norm(b - a)  # offsets are from the midpoint: s in -0.5..0.5
                strip = (np.abs(s) <= (_STRIP_TO - _STRIP_FROM) / 2) & (np.abs(n) <= _STRIP_HALF)
                disc = dist <= _SHIP_RADIUS
                memo[key] = tuple(
                    np.flatnonzero(m)
                    for m in (
                        strip,
                        disc & (np.abs(n) > _ROAD_HALF),
                        disc & (n > _ROAD_HALF),
                        disc & (n < -_ROAD_HALF),
                    )
                )
            return memo[key]

        def strips_of(a: np.ndarray, b: np.ndarray, mid: np.ndarray) -> tuple[np.ndarray, ...]:
            key = ("strips", np.concatenate([a - mid, b - mid, b - a]).tobytes())
            if key not in memo:
                s, n = along(off, a - mid, b - mid)
                middle = np.abs(s / np.linalg.norm(b - a)) <= (_STRIP_TO - _STRIP_FROM) / 2
                memo[key] = tuple(
                    np.flatnonzero(middle & (np.abs(n - shift) <= _STRIP_HALF))
                    for shift in _SIDE_SHIFTS
                )
            return memo[key]

        # Per region: the sites' (centre x, centre y, offsets kept, site number), flattened
        # into top-view pixel indices all at once by cat().
        vcore: list[tuple[int, int, np.ndarray, int]] = []
        varea: list[tuple[int, int, np.ndarray, int]] = []
        vband: list[tuple[int, int, np.ndarray, int]] = []
        vring: list[tuple[int, int, np.ndarray, int]] = []
        vground: list[tuple[int, int, np.ndarray, int]] = []
        estrip: list[tuple[int, int, np.ndarray, int]] = []
        eoff: list[tuple[int, int, np.ndarray, int]] = []
        eground: list[tuple[int, int, np.ndarray, int]] = []
        vnear: list[tuple[int, int, np.ndarray, int]] = []
        vbody: list[tuple[int, int, np.ndarray, int]] = []
        enear: list[tuple[int, int, np.ndarray, int]] = []
        n_v, n_e = len(t.vertices), len(t.edges)
        vband_edge = -np.ones((len(t.vertices), 3), np.int64)

        def rounded(point: np.ndarray) -> tuple[int, int]:
            c = self._to_top(point)[0]
            return int(round(c[0])), int(round(c[1]))

        for v, name in enumerate(t.vertices):
            p = np.array(vertex_position(name))
            cx, cy = rounded(self.seen_at(p, _BUILDING_MID))
            vcore.append((cx, cy, core, v))
            vnear.extend((cx, cy, part, k * n_v + v) for k, part in enumerate(near_cores))
            varea.append((cx, cy, area, v))
            vring.append((cx, cy, ring_idx, v))
            fars = []
            for slot, e in enumerate(t.vertex_edges[v]):
                ends = edge_vertices(t.edges[e])
                far = np.array(vertex_position(ends[1] if ends[0] == name else ends[0]))
                fars.append(far)
                vband.append((cx, cy, band_of(p, far), v * 3 + slot))
                vband_edge[v, slot] = e
            if near:
                vbody.append((cx, cy, body_of(p, fars), v))
            # The corner's three sides leave it 120 degrees apart (also those off the board,
            # at its rim); the hexes lie between them.
            d = fars[0] - p
            for k, part in enumerate(ground_of(math.atan2(d[1], d[0]))):
                vground.append((cx, cy, part, v * 3 + k))
        for e, name in enumerate(t.edges):
            a, b = (np.array(vertex_position(x)) for x in edge_vertices(name))
            mid = (a + b) / 2
            cx, cy = rounded(self.seen_at(mid, _ROAD_MID))
            strip, beside, left, right = side_of(a, b, mid)
            estrip.append((cx, cy, strip, e))
            if near:
                parts = enumerate(strips_of(a, b, mid))
                enear.extend((cx, cy, part, k * n_e + e) for k, part in parts)
            eoff.append((cx, cy, beside, e))
            eground.append((cx, cy, left, e * 2))
            eground.append((cx, cy, right, e * 2 + 1))

        def cat(parts: list[tuple[int, int, np.ndarray, int]]) -> tuple[np.ndarray, np.ndarray]:
            lens = [len(keep) for _, _, keep, _ in parts]
            keep = np.concatenate([keep for _, _, keep, _ in parts])
            xs = (ox[keep] + np.repeat([x for x, _, _, _ in parts], lens)).astype(np.int64)
            ys = (oy[keep] + np.repeat([y for _, y, _, _ in parts], lens)).astype(np.int64)
            site = np.repeat(np.array([i for _, _, _, i in parts], np.int64), lens)
            ok = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            return ys[ok] * w + xs[ok], site[ok]

        sites = _Sites(
            cat(vcore),
            cat(varea),
            cat(vband),
            vband_edge,
            cat(estrip),
            cat(eoff),
            cat(vring),
            cat(vground),
            cat(eground),
        )
        if near:
            sites.vcore_near, sites.estrip_near = cat(vnear), cat(enear)
            sites.vbody = cat(vbody)
        sites.vsize = {
            "vcore": np.bincount(sites.vcore[1], minlength=n_v),
            "varea": np.bincount(sites.varea[1], minlength=n_v),
            "vband": np.bincount(sites.vband[1], minlength=n_v * 3),
            "estrip": np.bincount(sites.estrip[1], minlength=n_e),
            "eoff": np.bincount(sites.eoff[1], minlength=n_e),
            "vring": np.bincount(sites.vring[1], minlength=n_v),
            "vground": np.bincount(sites.vground[1], minlength=n_v * 3),
            "eground": np.bincount(sites.eground[1], minlength=n_e * 2),
        }
        return sites

    # -- per frame ----------------------------------------------------------------------------

    def site_fractions(
        self, mask: np.ndarray, around: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Fraction of each corner's disc and each side's strip that a top-view mask covers.

        Args:
            mask: bool (size[1], size[0]) in top-view pixels.
            around: measure the sites' surroundings instead: the ring 0.3..0.42 hex radii
                around a corner, and the disc around a side's middle off its road band.

        Returns:
            float64 (V,) and (E,) fractions in 0..1.
        """
        flat = mask.ravel()
        s = self._sites
        n_v, n_e = len(self.topology.vertices), len(self.topology.edges)
        vr, vk = (s.vring, "vring") if around else (s.vcore, "vcore")
        er, ek = (s.eoff, "eoff") if around else (s.estrip, "estrip")
        v = np.bincount(vr[1], weights=flat[vr[0]], minlength=n_v)
        e = np.bincount(er[1], weights=flat[er[0]], minlength=n_e)
        return v / np.maximum(s.vsize[vk], 1), e / np.maximum(s.vsize[ek], 1)

    def sites_mask(self, vertices: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """The top-view pixels of some sites: the area discs of the corners and the strips and
        side discs of the sides flagged in bool ``vertices`` (V,) and ``edges`` (E,).

        Returns:
            bool (size[1], size[0]).
        """
        s = self._sites
        w, h = self.size
        flat = np.zeros(w * h, bool)
        for (idx, site), on in ((s.varea, vertices), (s.estrip, edges), (s.eoff, edges)):
            flat[idx[on[site]]] = True
        return flat.reshape(h, w)

    def area_fractions(self, mask: np.ndarray) -> np.ndarray:
        """Fraction of each corner's area disc (0.42 hex radii, where a city may reach) that a
        top-view bool mask (size[1], size[0]) covers: float64 (V,) in 0..1."""
        idx, site = self._sites.varea
        n_v = len(self.topology.vertices)
        v = np.bincount(site, weights=mask.ravel()[idx], minlength=n_v)
        return v / np.maximum(self._sites.vsize["varea"], 1)

    def top_view(self, image: np.ndarray) -> np.ndarray:
        """The board's top view: BGR uint8 of shape (size[1], size[0], 3)."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("the image must be a colour (H, W, 3) uint8 array")
        return cv2.warpPerspective(
            image,
            self._top_to_image,
            self.size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )

    def to_top_mask(self, mask: np.ndarray) -> np.ndarray:
        """An image-space bool mask (H, W) warped to the top view (bool)."""
        m = cv2.warpPerspective(
            mask.astype(np.uint8) * 255,
            self._top_to_image,
            self.size,
            flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
        )
        return m > 0

    def labels(self, top: np.ndarray, covered: np.ndarray | None = None) -> np.ndarray:
        """Per-pixel colour index (int8 (H, W); -1 no player colour, -2 covered)."""
        return self._classify(top, covered)[0]

    def _classify(
        self, top: np.ndarray, covered: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`labels`, whether each pixel's colour is lit (bool (H, W)): won by the
        colour's own class, not one of its shades, and the light-normalised top view."""
        fit = self.land if covered is None else self.land & ~covered
        # Unclipped: the lookup clamps what lies beyond its top level anyway.
        norm = normalise_light(top, fit, self._anchor_of(covered), clip=False)
        q = np.minimum(norm * (_LUT_LEVELS / 256.0), _LUT_LEVELS - 1).astype(np.int32)
        cells = (q[..., 0] * _LUT_LEVELS + q[..., 1]) * _LUT_LEVELS + q[..., 2]
        self._classify_cells(cells.ravel())
        best = self._cells[cells]
        lit = self._cells_lit[cells]
        if covered is not None:
            best[covered] = -2
        return best, lit, norm

    def read(self, image: np.ndarray, covered: np.ndarray | None = None) -> SiteReadings:
        """Read every site of a photo.

        Args:
            image: BGR uint8 (H, W, 3), the camera frame the homography is for.
            covered: optional bool (H, W) image mask of pixels not to trust (hands, glare).
        """
        top = self.top_view(image)
        cov = None if covered is None else self.to_top_mask(covered)
        seams = None
        if self._ground_on and covered is None:
            seams = seam_visibility(image, self.homography, self.topology, self._inner)
        return self.read_top(top, cov, seams=seams)

    def read_top(
        self,
        top: np.ndarray,
        covered: np.ndarray | None = None,
        changed: np.ndarray | None = None,
        seams: np.ndarray | None = None,
    ) -> SiteReadings:
        """Read every site of a top view.

        Args:
            top: the top view (:meth:`top_view`).
            covered: optional bool mask in top-view pixels not to trust (hands, glare).
            changed: optional bool mask in top-view pixels of what differs from a reference
                top view of the same board; gives :attr:`SiteReadings.vertex_gain`, and only
                what differs counts as a ship's off its coast side (:meth:`_ship_scores`).
            seams: optional bool (E, steps) where the photo shows each side's tile seam
                (:func:`vision.seams.seam_visibility`); with the ground model, a pale corner
                whose seams it hides is a white building (:meth:`_hidden_whites`).
        """
        labels, lit, norm = self._classify(top, covered)
        lab = labels.ravel()
        # A city is told by the area of its lit colour: the renderer's pieces, which the
        # threshold was measured on, have no shaded faces, and a real piece's shaded faces and
        # the shadows beside it would make every settlement a city.
        lab_lit = np.where(lit | (labels < 0), labels, -1).ravel()
        t, s = self.topology, self._sites
        n_v, n_e, k = len(t.vertices), len(t.edges), len(self.colours)

        def counts(
            region: tuple[np.ndarray, np.ndarray], n: int, lab: np.ndarray = lab
        ) -> np.ndarray:
            """(n, k + 2) pixel counts per site: column 0 covered, 1 none, 2.. colours."""
            idx, site = region
            values = lab[idx].astype(np.int64) + 2
            flat = np.bincount(site * (k + 2) + values, minlength=n * (k + 2))
            return flat.reshape(n, k + 2)

        vcore, varea = counts(s.vcore, n_v), counts(s.varea, n_v, lab_lit)
        # Fractions of each colour in each part of the sites' surroundings (zeros when the
        # ground check is off: the tracker reads every changed frame).
        vground = np.zeros((n_v, 3, k + 2))
        eground = np.zeros((n_e, 2, k + 2))
        if self.context < 1.0:
            vground = counts(s.vground, n_v * 3).reshape(n_v, 3, k + 2)
            vground = vground / np.maximum(s.vsize["vground"], 1).reshape(n_v, 3, 1)
            eground = counts(s.eground, n_e * 2).reshape(n_e, 2, k + 2)
            eground = eground / np.maximum(s.vsize["eground"], 1).reshape(n_e, 2, 1)
        vband = counts(s.vband, n_v * 3, lab_lit).reshape(n_v, 3, k + 2)
        estrip = counts(s.estrip, n_e)

        # Sides first: the buildings' areas leave out their roads.
        e_state = np.zeros(n_e, np.int64)
        e_conf = np.zeros(n_e, np.float64)
        e_size = np.maximum(s.vsize["estrip"], 1)
        e_cov = estrip[:, 0] / e_size
        frac = estrip[:, 2:] / e_size[:, None]
        best = np.argmax(frac, axis=1)
        best_frac = frac[np.arange(n_e), best]
        v_size = np.maximum(s.vsize["vcore"], 1)
        vfrac = vcore[:, 2:] / v_size[:, None]
        vbest = np.argmax(vfrac, axis=1)
        if self._ground is not None:
            dens = self._ground.densities(norm, _border_pixels(norm, *self._anchor_of(covered)))
            # A ship across its side covers less of the strip than a road along it.
            bar = np.where(self.sea_edges, _PRESENT / 2, _PRESENT)
            best, best_frac = self._ground_sites(
                norm, lab, dens, s.estrip_near, self._ground.edge_samples, n_e, bar
            )
            vbest, vf = self._ground_sites(
                norm, lab, dens, s.vcore_near, self._ground.vertex_samples, n_v
            )
            vfrac = np.zeros((n_v, k))
            vfrac[np.arange(n_v), vbest] = vf
        # Road or ship: only on coast sides is it a question. No road stands where no land is
        # (RULES.md 3.2.2: sea sides take ships only).
        coast = self.sea_edges & ~self._open_sea
        held = coast & (best_frac >= _PRESENT / 2) & (e_cov <= _COVERED)
        no_measure = np.zeros(n_e, bool)
        if self._ground is not None:
            # A ship's hull and sail lie across its side: the piece's own colour that the
            # ground does not explain off the road band.
            off_frac = self._own_fraction(
                norm, lab, dens, s.eoff, self._ground.edge_samples, best, held
            )
            ship_score = np.where(held, off_frac - SHIP_OFF, np.nan)
            margin = np.where(ship_score > 0, SHIP_OFF_MARGIN, np.inf)
        else:
            diff = None if changed is None else changed.ravel()
            ship_score, no_measure = self._ship_scores(lab, best, best_frac, held, diff)
            margin = np.where(ship_score > 0, SHIP_MARGIN, ROAD_MARGIN)
        near = np.abs(np.nan_to_num(ship_score)) / margin
        ship_sure = np.where(no_measure, 0.5, 0.5 + 0.5 * np.clip(near, 0.0, 1.0))
        e_kind = np.ones(n_e, np.float64)
        for e in range(n_e):
            if e_cov[e] > _COVERED:
                e_state[e], e_conf[e] = UNKNOWN, 0.0
                continue
            ship = bool(self._open_sea[e] or (coast[e] and ship_score[e] > 0))
            # A road's colour beside it as much as on it is the ground's (a light border, a
            # brown hill), not a piece's; a ship's hull lies across its side.
            ground = not ship and eground[e, :, best[e] + 2].max() > self.context
            if not ground and (best_frac[e] >= _PRESENT or (ship and best_frac[e] >= _PRESENT / 2)):
                e_state[e] = state_code(int(best[e]), ship)
                e_conf[e] = _confidence(best_frac[e], _PRESENT)
                if coast[e]:
                    e_kind[e] = ship_sure[e]
            else:
                e_conf[e] = _confidence(1.0 - best_frac[e], 1.0 - _PRESENT)
        v_state = np.zeros(n_v, np.int64)
        v_conf = np.zeros(n_v, np.float64)
        v_area = np.zeros(n_v, np.float64)
        v_cov = vcore[:, 0] / v_size
        unit2 = self.px * self.px
        for v in range(n_v):
            if v_cov[v] > _COVERED:
                v_state[v] = UNKNOWN
                continue
            f, c = vfrac[v, vbest[v]], int(vbest[v])
            if f < _PRESENT or vground[v, :, c + 2].max() > self.context:
                v_conf[v] = _confidence(1.0 - f, 1.0 - _PRESENT)
                continue
            # Every side's band is left out, road or not, so that the area does not depend
            # on the roads around the corner.
            area = varea[v, c + 2] - vband[v, :, c + 2].sum()
            v_area[v] = varea[v, c + 2] / unit2
            # The ground model tells cities below, by their size among the photo's buildings.
            v_state[v] = state_code(c, self._ground is None and area / unit2 > _CITY_AREA)
            v_conf[v] = _confidence(f, _PRESENT)
        kind_conf = None
        if self._ground is not None:
            _distance_rule(v_state, v_conf, vfrac.max(axis=1), t.vertex_neighbours)
            if seams is not None:
                self._hidden_whites(v_state, v_conf, e_state, e_conf, seams, dens)
            held = v_state > EMPTY
            colour = (v_state - 1) // 2
            # Every side's band is left out of the first measure, and with it a city's wing
            # lying along a side that holds no road of its colour: measured again with only
            # those roads' bands left out, a building whose kind differs is in doubt. The
            # shape (elongation, solidity) is the second measure's: bands cut through a piece.
            roads = np.where(e_state > EMPTY, (e_state - 1) // 2, -1)
            first = self._shapes(norm, lab, dens, colour, held)
            second = self._shapes(norm, lab, dens, colour, held, roads)
            score = city_score(first.spread, second.elongation, held)
            other = city_score(second.spread, second.elongation, held)
            city = held & (score > 0)
            doubt = (np.minimum(first.compact, second.compact) < KIND_COMPACT) | ~(
                second.solidity >= KIND_SOLID
            )
            kind_conf = np.where(held, kind_confidence(score, other, doubt), 1.0)
            v_state[city] += 1
        gain = None
        if changed is not None:
            # Only what differs from the reference counts: whatever lies around the corner
            # and stays (harbour art, terrain that reads as the piece's colour, a piece's
            # own edges wavering with the light) is in the reference too. Roads' bands are
            # not left out: a city's wing may lie along one, and a new road is the tracker's
            # to tell (it is a change at a side of the corner).
            new_area = counts(s.varea, n_v, np.where(changed.ravel(), lab_lit, -1))
            built = v_state > EMPTY
            col = np.where(built, (v_state - 1) // 2, 0) + 2
            gain = np.where(built, new_area[np.arange(n_v), col], 0) / unit2
        return SiteReadings(
            t.vertices,
            t.edges,
            v_state,
            e_state,
            v_conf,
            e_conf,
            v_area,
            self.colours,
            gain,
            kind_conf,
            e_kind,
            np.where(coast & (e_state > EMPTY), ship_score, np.nan),
        )

    def _hidden_whites(
        self,
        v_state: np.ndarray,
        v_conf: np.ndarray,
        e_state: np.ndarray,
        e_conf: np.ndarray,
        seams: np.ndarray,
        dens: GroundDensities,
    ) -> None:
        """Read white pieces (in place) where pale things hide the tile seams.

        White plastic in the shade has the tile border's colour, so the ground explains it
        (docs/vision-tracking.md); what it cannot do is lie flat. Only on a board that shows
        its seams (:data:`SEAMS_SEEN`), and only where most of the site has the border's
        colour (a pale thing stands there: any other colour would have been read as such):

        1. A building at an empty corner whose seams stay hidden for :data:`HIDDEN_GAP` on
           every free arm (:func:`vision.seams.corner_gaps`) and whose neighbouring corners
           hold none (the distance rule).
        2. Its road: a white building (read either way) with no white road on its sides has
           one (a settlement is built on its own road, or with one at the start): the free
           inner side next to it whose middle half shows its seam least, when that is on
           fewer than half of its steps (what :func:`vision.seams.seams_seen` calls a side
           that does not show it).
        """
        if "white" not in self.colours:
            return
        assert self._ground is not None
        occupied = e_state != EMPTY
        if seams_seen(seams, self._inner, occupied) < SEAMS_SEEN:
            return
        white = self.colours.index("white")

        def pale(region: tuple[np.ndarray, np.ndarray], n: int) -> np.ndarray:
            idx, site = region
            border = self._ground.border_common(dens, idx) >= GROUND_RARE  # type: ignore[union-attr]
            return np.bincount(site, weights=border, minlength=n) / np.maximum(
                np.bincount(site, minlength=n), 1
            )

        t = self.topology
        gaps = corner_gaps(seams, t, self._inner, occupied)
        v_pale = pale(self._sites.vcore, len(v_state))
        for v in np.flatnonzero((v_state == EMPTY) & (gaps >= HIDDEN_GAP) & (v_pale > _PRESENT)):
            if all(v_state[u] == EMPTY for u in t.vertex_neighbours[v]):
                v_state[v], v_conf[v] = state_code(white, False), HIDDEN_CONFIDENCE
        steps = seams.shape[1]
        shown = seams[:, steps // 4 : steps - steps // 4].mean(axis=1)
        e_pale = pale(self._sites.estrip, len(e_state))
        road = state_code(white, False)
        for v in np.flatnonzero((v_state - 1) // 2 == white):
            sides = [e for e in t.vertex_edges[v] if e_state[e] != EMPTY or self._inner[e]]
            if v_state[v] <= EMPTY or any(e_state[e] == road for e in sides):
                continue
            free = [e for e in sides if e_state[e] == EMPTY and e_pale[e] > _PRESENT]
            if free:
                e = min(free, key=lambda x: shown[x])
                if shown[e] < 0.5:
                    e_state[e], e_conf[e] = road, HIDDEN_CONFIDENCE

    def _anchor_of(self, covered: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The sides' middles (flat pixel indices, side numbers) that are not covered."""
        if covered is None:
            return self._anchor
        keep = ~covered.ravel()[self._anchor[0]]
        return self._anchor[0][keep], self._anchor[1][keep]

    def _own_pixels(
        self,
        norm: np.ndarray,
        lab: np.ndarray,
        dens: GroundDensities,
        region: tuple[np.ndarray, np.ndarray],
        samples: np.ndarray,
        colour: np.ndarray,
        which: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pixels of the sites ``which`` (bool) of ``region``: (flat indices, site numbers,
        bool: the ground does not explain the pixel and its hue is that of the site's
        ``colour``, a colour index per site)."""
        assert self._ground is not None
        idx, site = region
        keep = which[site]
        idx, site = idx[keep], site[keep]
        common = self._ground.commonness(dens, (idx, site), samples)
        linear = to_linear(norm.reshape(-1, 3)[idx])
        refs = np.array([self._linear[c] for c in self.colours])[colour[site]]
        cos = np.einsum("ij,ij->i", linear, refs) / (
            np.linalg.norm(linear, axis=1) * np.linalg.norm(refs, axis=1) + 1e-12
        )
        own = (common < GROUND_RARE) & (lab[idx] != -2) & (cos > math.cos(_OWN_HUE))
        return idx, site, own

    def _shapes(
        self,
        norm: np.ndarray,
        lab: np.ndarray,
        dens: GroundDensities,
        colour: np.ndarray,
        which: np.ndarray,
        roads: np.ndarray | None = None,
    ) -> BuildingShapes:
        """Per corner, the size and shape of a building's own colour (its pixels that the ground
        does not explain and whose hue is its colour) within its area disc off the road bands
        (see :class:`BuildingShapes`; a city is a settlement with a wing: longer, and longer
        for its width; :func:`city_score`). With ``roads`` (int (E,): per side the colour
        index of the road or ship read there, -1 for none), only the bands of the sides that
        hold a road of the building's own colour are left out. A building less compact than
        :data:`KIND_COMPACT` is measured on its largest 8-connected group alone."""
        assert self._ground is not None and self._sites.vbody is not None
        n = len(which)
        region = self._sites.vbody
        if roads is not None:
            s = self._sites
            band_idx, band = s.vband
            vertex = band // 3
            side = s.vband_edge[vertex, band % 3]
            mine = which[vertex] & (side >= 0) & (roads[side] == colour[vertex])
            cut = np.full(self.size[0] * self.size[1], -1, np.int64)
            cut[band_idx[mine]] = vertex[mine]
            area_idx, area_site = s.varea
            keep = cut[area_idx] != area_site
            region = (area_idx[keep], area_site[keep])
        idx, site, own = self._own_pixels(
            norm, lab, dens, region, self._ground.vertex_samples, colour, which
        )
        idx, site = idx[own], site[own]
        w, h = self.size
        x, y = (idx % w).astype(np.float64), (idx // w).astype(np.float64)
        count = np.bincount(site, minlength=n).astype(np.float64)
        # Buildings never stand on neighbouring corners: their discs, hence groups, are apart.
        mask = np.zeros(w * h, np.uint8)
        mask[idx] = 1
        groups, group_of = cv2.connectedComponents(mask.reshape(h, w), connectivity=8)
        pair, sizes = np.unique(site * groups + group_of.ravel()[idx], return_counts=True)
        largest = np.zeros(n, np.float64)
        np.maximum.at(largest, pair // groups, sizes)
        compact = largest / np.maximum(count, 1.0)
        # A scattered building is measured on its largest group: the piece is one object,
        # the rest is its colour in the art around it. (Its kind is in doubt all the same.)
        order = np.lexsort((sizes, pair // groups))
        best = np.full(n, -1, np.int64)
        best[(pair // groups)[order]] = (pair % groups)[order]
        keep = (compact[site] >= KIND_COMPACT) | (group_of.ravel()[idx] == best[site])
        idx, site, x, y = idx[keep], site[keep], x[keep], y[keep]
        count = np.bincount(site, minlength=n).astype(np.float64)
        safe = np.maximum(count, 1.0)
        mx, my = (np.bincount(site, weights=c, minlength=n) / safe for c in (x, y))
        sxx, syy, sxy = (
            np.bincount(site, weights=u * v, minlength=n) / safe - mu * mv
            for u, v, mu, mv in ((x, x, mx, mx), (y, y, my, my), (x, y, mx, my))
        )
        # The eigenvalues of the pixels' covariance; a pixel's own variance (1/12) bounds the
        # smaller from below.
        half = np.sqrt(((sxx - syy) / 2) ** 2 + sxy**2)
        major = np.maximum((sxx + syy) / 2 + half, 1 / 12)
        minor = np.maximum((sxx + syy) / 2 - half, 1 / 12)
        measured = which & (count >= _SPREAD_PIXELS)
        solidity = np.full(n, np.nan)
        for v in np.flatnonzero(measured):
            solidity[v] = hull_fill(x[site == v], y[site == v])
        return BuildingShapes(
            np.where(measured, np.sqrt(major) / self.px, np.nan),
            np.where(measured, np.sqrt(major / minor), np.nan),
            solidity,
            compact,
        )

    def _own_fraction(
        self,
        norm: np.ndarray,
        lab: np.ndarray,
        dens: GroundDensities,
        region: tuple[np.ndarray, np.ndarray],
        samples: np.ndarray,
        colour: np.ndarray,
        which: np.ndarray,
    ) -> np.ndarray:
        """Per site of ``region`` (float64, 0..1): the fraction of its pixels that the ground
        does not explain and whose hue is that of the site's ``colour`` (colour indices); for
        the sites ``which`` (bool) only, 0 elsewhere."""
        n = len(which)
        sizes = np.maximum(np.bincount(region[1], minlength=n), 1)
        _, site, own = self._own_pixels(norm, lab, dens, region, samples, colour, which)
        return np.bincount(site, weights=own, minlength=n) / sizes

    def _ground_sites(
        self,
        norm: np.ndarray,
        lab: np.ndarray,
        dens: GroundDensities,
        region: tuple[np.ndarray, np.ndarray] | None,
        samples: np.ndarray,
        n: int,
        bar: np.ndarray | float = _PRESENT,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per site: the colour index of what the ground does not explain there and the
        fraction of the site's pixels it covers (0 where it has no player colour; the colour is
        read where it covers ``bar`` or more, per site or for all), at the site's place (of
        ``region``'s shifted ones, site ``i + k * n``) where it covers most."""
        assert self._ground is not None and region is not None
        idx, shifted = region
        shifts = int(shifted.max()) // n + 1
        all_samples = np.tile(samples, (shifts, 1))
        common = self._ground.commonness(dens, region, all_samples)
        foreign = (common < GROUND_RARE) & (lab[idx] != -2)
        fracs = np.bincount(shifted, weights=foreign, minlength=n * shifts) / np.maximum(
            np.bincount(shifted, minlength=n * shifts), 1
        )
        fracs = fracs.reshape(shifts, n)
        # Ties keep the site's own place (shift 0 comes first).
        where = np.argmax(fracs, axis=0)
        frac = fracs[where, np.arange(n)]
        colour = np.zeros(n, np.int64)
        chosen = shifted == where[shifted % n] * n + shifted % n
        keep = foreign & chosen
        linear = to_linear(norm.reshape(-1, 3)[idx[keep]])
        owner = shifted[keep] % n
        border_linear = to_linear(np.array(_BORDER))
        for i in np.flatnonzero(frac >= bar):
            name = blob_colour(linear[owner == i], self._linear, border_linear)
            if name is None:
                frac[i] = 0.0
            else:
                colour[i] = self.colours.index(name)
        return colour, frac


def refine_homography(
    image: np.ndarray,
    homography: np.ndarray,
    hexes: Sequence[Hex],
    sea_hexes: Sequence[Hex] = (),
    passes: Sequence[float] = (16.0, 32.0),
) -> np.ndarray:
    """Sharpen a registration on the tile borders, coarse to fine (see :func:`_refine_once`;
    ``passes`` are the top-view resolutions, pixels per hex radius). Returns float64 (3, 3).
    """
    h = np.asarray(homography, np.float64)
    for px in passes:
        h = _refine_once(image, h, hexes, sea_hexes, px)
    return h


def _refine_once(
    image: np.ndarray,
    homography: np.ndarray,
    hexes: Sequence[Hex],
    sea_hexes: Sequence[Hex],
    px_per_unit: float,
) -> np.ndarray:
    """Sharpen a registration on the tile borders, where the pieces stand.

    Registration fits the chips, whose centres are known to a tenth of a hex or so; a road
    is a seventh of a hex wide. The light tile borders are lines through every corner and
    side: the top view's border likelihood (lightness less chroma) is aligned with a drawing
    of the grid by enhanced correlation (``cv2.findTransformECC``, homography motion), chips
    masked out.

    Args:
        image: BGR uint8 (H, W, 3).
        homography: float (3, 3) board plane -> image pixels (from vision.register).
        hexes, sea_hexes: the board's hexes and which are sea (sea hexes have no border).
        px_per_unit: resolution of the top view the alignment works on.

    Returns:
        The refined float64 (3, 3) homography; the given one when the alignment does not
        converge or moves a corner by more than :data:`_MAX_REFINE` hex radii (that would be
        another grid, not a refinement).
    """
    det = PieceDetector(homography, hexes, sea_hexes, px_per_unit=px_per_unit)
    top = det.top_view(image)
    lab = cv2.cvtColor(top.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    border_map = lab[..., 0] - np.hypot(lab[..., 1], lab[..., 2])
    w, h = det.size
    template = np.zeros((h, w), np.float32)
    mask = np.zeros((h, w), np.uint8)
    sea = set(sea_hexes)
    width = max(1, int(round(0.09 * det.px)))
    for x in hexes:
        if x in sea:
            continue
        pts = np.round(det._to_top(np.array(hex_corner_points(x)))).astype(np.int32)
        cv2.polylines(template, [pts], True, 1.0, width, cv2.LINE_AA)
        cv2.fillPoly(mask, [pts], 255)
    mask = cv2.dilate(mask, np.ones((width * 4 + 1, width * 4 + 1), np.uint8))
    for x in hexes:
        c = det._to_top(np.array(hex_center(x)))[0]
        cv2.circle(mask, (int(round(c[0])), int(round(c[1]))), int(0.5 * det.px), 0, -1)
    template = cv2.GaussianBlur(template, (0, 0), 1.0)
    warp = np.eye(3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    try:
        _, warp = cv2.findTransformECC(
            template, border_map.astype(np.float32), warp, cv2.MOTION_HOMOGRAPHY, criteria, mask, 5
        )
    except cv2.error:
        return np.asarray(homography, np.float64)
    p2t = det.plane_to_top
    refined = (
        np.asarray(homography, np.float64) @ np.linalg.inv(p2t) @ warp.astype(np.float64) @ p2t
    )
    # How far the refinement moved the corners, in hex radii (through the old homography).
    corners = np.array([vertex_position(v) for v in det.topology.vertices])
    moved = _project(np.linalg.inv(homography) @ refined, corners) - corners
    if not np.all(np.isfinite(moved)) or np.max(np.linalg.norm(moved, axis=1)) > _MAX_REFINE:
        return np.asarray(homography, np.float64)
    return refined / refined[2, 2]


# A refinement may move a corner by at most this much (hex radii).
_MAX_REFINE = 0.4


def _project(m: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.hstack([points, np.ones((len(points), 1))]) @ m.T
    return p[:, :2] / p[:, 2:3]


def _distance_rule(
    state: np.ndarray,
    conf: np.ndarray,
    strength: np.ndarray,
    neighbours: Sequence[Sequence[int]],
) -> None:
    """Of two buildings read on neighbouring corners, drop the weaker (in place).

    The rules never allow it, and in a photo it is what a tall piece seen at an angle, or a
    road's end, does to the corner next to a building. The weaker reading (less of its site
    unexplained by the ground) becomes empty with the confidence of a coin toss.
    """
    order = np.argsort(-strength, kind="stable")
    for v in order:
        if state[v] <= EMPTY:
            continue
        for u in neighbours[v]:
            if state[u] > EMPTY:
                state[u], conf[u] = EMPTY, 0.5


def hull_fill(x: np.ndarray, y: np.ndarray) -> float:
    """The share of their convex hull that pixels fill (0..1).

    Args:
        x, y: float or int (N,) the pixels' columns and rows, each pixel once (N >= 1).

    Returns:
        The pixel count over the hull's area in pixels: the hull through the pixels' centres
        grown by half a pixel all round, so that a filled rectangle fills exactly 1.

    >>> yy, xx = np.mgrid[0:4, 0:6]
    >>> hull_fill(xx.ravel(), yy.ravel())
    1.0
    """
    pts = np.column_stack([x, y]).astype(np.float32)
    hull = cv2.convexHull(pts)
    area = cv2.contourArea(hull) + cv2.arcLength(hull, True) / 2 + 1
    return float(min(len(pts) / area, 1.0))


def city_score(spread: np.ndarray, elongation: np.ndarray, held: np.ndarray) -> np.ndarray:
    """How far each building is a city, by its size and shape among the photo's buildings.

    A city is a settlement with a wing: longer, and longer for its width. How large or long
    either looks depends on the camera, the light, the plastic and how tall the pieces stand,
    but all the buildings of one photo share those. So each measure is taken relative to the
    lower quartile of the photo's measured buildings' (the settlements', while most buildings
    are not cities), and the score is log(spread ratio) + :data:`CITY_ELONGATION` log(elongation
    ratio) - log(:data:`CITY_SCORE`): a city above 0. With fewer than :data:`_SPREAD_QUORUM`
    buildings measured nothing is scored; a photo of cities only scores them as settlements
    (the lower quartile is then a city's).

    Args:
        spread: float (V,) per corner, hex radii, NaN where not measured
            (see ``PieceDetector._shapes``).
        elongation: float (V,) per corner, major over minor axis (>= 1), NaN where not measured.
        held: bool (V,) the corners that hold a building.

    Returns:
        float64 (V,): the score, NaN where not scored (no building, not measured, no quorum).

    >>> held = np.ones(5, bool)
    >>> spread = np.array([0.13, 0.14, 0.13, 0.2, np.nan])
    >>> (city_score(spread, np.array([1.1, 1.2, 1.1, 1.6, 1.1]), held) > 0).tolist()
    [False, False, False, True, False]
    >>> np.isnan(city_score(spread[:2], np.array([1.1, 1.6]), held[:2])).all()
    np.True_
    """
    measured = held & np.isfinite(spread) & np.isfinite(elongation)
    out = np.full(len(spread), np.nan)
    if measured.sum() < _SPREAD_QUORUM:
        return out
    size = spread[measured] / np.quantile(spread[measured], 0.25)
    shape = elongation[measured] / np.quantile(elongation[measured], 0.25)
    out[measured] = np.log(size) + CITY_ELONGATION * np.log(shape) - math.log(CITY_SCORE)
    return out


def kind_confidence(score: np.ndarray, other: np.ndarray, doubt: np.ndarray) -> np.ndarray:
    """How sure each building's kind (city where ``score`` > 0, :func:`city_score`) is.

    0.5 (a coin toss) where the kind is a default, not a measure: a building not scored by
    either measure, one whose two measures (``score`` with every side's band left out,
    ``other`` with only its own roads' bands) disagree, and one in ``doubt`` (its own pixels
    scattered or ragged, :data:`KIND_COMPACT`, :data:`KIND_SOLID`: what is no part of the piece
    lengthens it). Otherwise 0.5 at the threshold, rising to 1 as the nearer of the two scores
    lies :data:`KIND_MARGIN_CITY` times beyond it (a city) or :data:`KIND_MARGIN` times short
    of it (a settlement).

    Args:
        score, other: float (V,) per corner, NaN where not scored.
        doubt: bool (V,) buildings whose measure is not the piece's.

    Returns:
        float64 (V,): 0.5..1 where either score is a number or NaN, 0.5 there.

    >>> score = np.array([-0.6, -0.2, 0.3, 0.3, np.nan])
    >>> other = np.array([-0.5, -0.3, -0.1, 0.6, 0.2])
    >>> kind_confidence(score, other, np.zeros(5, bool)).round(2).tolist()
    [0.97, 0.69, 0.5, 1.0, 0.5]
    """
    nearer = np.minimum(np.abs(score), np.abs(other))
    agree = np.sign(score) == np.sign(other)
    margin = np.log(np.where(score > 0, KIND_MARGIN_CITY, KIND_MARGIN))
    sure = 0.5 + 0.5 * np.clip(nearer / margin, 0.0, 1.0)
    return np.where(agree & ~doubt & np.isfinite(nearer), sure, 0.5)


def _confidence(value: float, threshold: float) -> float:
    """0.5 at the decision threshold, rising to 1 as ``value`` goes to 1."""
    if threshold >= 1.0:
        return 1.0
    return float(np.clip(0.5 + 0.5 * (value - threshold) / (1.0 - threshold), 0.0, 1.0))


def detect_pieces(
    image: np.ndarray,
    registration: Any,
    prototypes: Mapping[str, tuple[float, float, float]] | None = None,
    shades: Sequence[float] = PLASTIC_SHADES,
    standing: bool = False,
    context: float = 1.0,
    ground: bool = True,
) -> list[DetectedPiece]:
    """The pieces on a registered board photo.

    Args:
        image: BGR uint8 (H, W, 3), the photo ``registration`` was made on.
        registration: a :class:`vision.register.Registration` (its ``homography``, ``hexes``
            and ``sea_fraction`` are used; the homography is refined on the tile borders).
        prototypes: player colours (CIELAB after light normalisation); the defaults are the
            renderer's pieces.
        shades, context: see :class:`PieceDetector`; by default shaded plastic is a player
            colour (:data:`PLASTIC_SHADES`, for telling city from settlement) and the class
            reading's ground check is off (the ground model below does its work; with
            ``ground=False``, :data:`GROUND_CONTEXT` was the setting for real photos).
        standing: read standing pieces where they project (the camera's place is measured
            from the homography, :func:`camera_position`).
        ground: read a site by what its surroundings do not explain (see
            :class:`PieceDetector`; on by default: real plastic is not the renderer's).

    Returns:
        Settlements and cities at corners, roads and ships at sides, in the registration's
        canonical coordinates, each with a confidence.
    """
    sea = [h for h, f in getattr(registration, "sea_fraction", {}).items() if f > 0.7]
    ships = registration.kind == "seafarers"
    homography = refine_homography(image, registration.homography, registration.hexes, sea)
    camera = camera_position(homography, (image.shape[1], image.shape[0])) if standing else None
    detector = PieceDetector(
        homography,
        registration.hexes,
        sea,
        ships,
        prototypes=prototypes,
        shades=shades,
        camera=camera,
        context=context,
        ground=ground,
    )
    return detector.read(image).pieces()
