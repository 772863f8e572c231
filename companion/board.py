"""Board model: hexes, corners and sides in axial coordinates, frames of any shape, harbours.

Coordinates
-----------
Hexes are pointy-top and addressed by axial coordinates ``(q, r)``: ``q`` grows to the east,
``r`` to the south-east, and the third cube coordinate is ``s = -q - r``. The six neighbours of
a hex, by the side they share, are::

    NE (q+1, r-1)   E (q+1, r)   SE (q, r+1)   SW (q-1, r+1)   W (q-1, r)   NW (q, r-1)

Canonical names
---------------
Every corner (intersection) is the ``N`` or ``S`` corner of exactly one hex, and every side
(edge) is the ``NE``, ``E`` or ``SE`` side of exactly one hex. The other names convert:

===========  ==========================
corner       canonical name
===========  ==========================
(q, r, NE)   (q+1, r-1, S)
(q, r, SE)   (q, r+1, N)
(q, r, SW)   (q-1, r+1, N)
(q, r, NW)   (q, r-1, S)
===========  ==========================

===========  ==========================
side         canonical name
===========  ==========================
(q, r, SW)   (q-1, r+1, NE)
(q, r, W)    (q-1, r, E)
(q, r, NW)   (q, r-1, SE)
===========  ==========================

>>> vertex(0, 0, "SE")
Vertex(q=0, r=1, corner='N')
>>> edge(1, 0, "W")
Edge(q=0, r=0, side='E')
>>> sorted(vertex_hexes(Vertex(0, 0, "N")))
[(0, -1), (0, 0), (1, -1)]

A board is a set of hexes (land, sea, unexplored) in these coordinates; its corners and sides
are the corners and sides of its hexes. :class:`Topology` numbers them and precomputes every
adjacency as tuples of integers, which is what the rules engine works on.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

Hex = tuple[int, int]


class Terrain(StrEnum):
    FOREST = "forest"
    PASTURE = "pasture"
    FIELDS = "fields"
    HILLS = "hills"
    MOUNTAINS = "mountains"
    DESERT = "desert"
    GOLD = "gold"
    SEA = "sea"
    UNEXPLORED = "unexplored"

    @property
    def is_land(self) -> bool:
        """Land is every terrain but sea (RULES.md 0.3); unexplored fog is not yet land."""
        return self not in (Terrain.SEA, Terrain.UNEXPLORED)

    @property
    def resource(self) -> Resource | None:
        return TERRAIN_RESOURCE.get(self)


class Resource(StrEnum):
    LUMBER = "lumber"
    BRICK = "brick"
    WOOL = "wool"
    GRAIN = "grain"
    ORE = "ore"


#: Resources in the fixed order used by hands and the bank (index = position in this tuple).
RESOURCES: tuple[Resource, ...] = tuple(Resource)

TERRAIN_RESOURCE: dict[Terrain, Resource] = {
    Terrain.FOREST: Resource.LUMBER,
    Terrain.HILLS: Resource.BRICK,
    Terrain.PASTURE: Resource.WOOL,
    Terrain.FIELDS: Resource.GRAIN,
    Terrain.MOUNTAINS: Resource.ORE,
}

CORNERS = ("N", "NE", "SE", "S", "SW", "NW")
SIDES = ("NE", "E", "SE", "SW", "W", "NW")

#: Axial offset of the neighbour across each side.
NEIGHBOUR_OFFSET: dict[str, Hex] = {
    "NE": (1, -1),
    "E": (1, 0),
    "SE": (0, 1),
    "SW": (-1, 1),
    "W": (-1, 0),
    "NW": (0, -1),
}

OPPOSITE_SIDE = {"NE": "SW", "E": "W", "SE": "NW", "SW": "NE", "W": "E", "NW": "SE"}

#: Harbour kinds: a generic 3:1 harbour or a 2:1 harbour of one resource.
HARBOR_KINDS = ("3:1", *[r.value for r in RESOURCES])

#: Number chips that exist (7 is never a chip).
CHIP_VALUES = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)

#: Probability dots ("pips") of each chip value: the ways two dice make it.
PIPS: dict[int, int] = {n: 6 - abs(7 - n) for n in CHIP_VALUES}

BOARD_KINDS = ("base", "5-6", "seafarers", "country")

#: Kinds whose set-up only a scenario file describes: Seafarers maps, and the printed country
#: maps of the Big Box (RULES.md 5.3), whose town and road spaces are part of the map.
SCENARIO_BOARD_KINDS = ("seafarers", "country")


class BoardError(ValueError):
    """A board or a coordinate is invalid; the message names the offending field."""


class Vertex(NamedTuple):
    """A corner, canonically the ``N`` or ``S`` corner of hex ``(q, r)``."""

    q: int
    r: int
    corner: str


class Edge(NamedTuple):
    """A side, canonically the ``NE``, ``E`` or ``SE`` side of hex ``(q, r)``."""

    q: int
    r: int
    side: str


def vertex(q: int, r: int, corner: str) -> Vertex:
    """The canonical name of corner ``corner`` (one of N, NE, SE, S, SW, NW) of hex ``(q, r)``."""
    match corner:
        case "N" | "S":
            return Vertex(q, r, corner)
        case "NE":
            return Vertex(q + 1, r - 1, "S")
        case "SE":
            return Vertex(q, r + 1, "N")
        case "SW":
            return Vertex(q - 1, r + 1, "N")
        case "NW":
            return Vertex(q, r - 1, "S")
    raise BoardError(f"unknown corner {corner!r}: expected one of {', '.join(CORNERS)}")


def edge(q: int, r: int, side: str) -> Edge:
    """The canonical name of side ``side`` (one of NE, E, SE, SW, W, NW) of hex ``(q, r)``."""
    if side in ("NE", "E", "SE"):
        return Edge(q, r, side)
    if side not in NEIGHBOUR_OFFSET:
        raise BoardError(f"unknown side {side!r}: expected one of {', '.join(SIDES)}")
    dq, dr = NEIGHBOUR_OFFSET[side]
    return Edge(q + dq, r + dr, OPPOSITE_SIDE[side])


def hex_neighbour(h: Hex, side: str) -> Hex:
    dq, dr = NEIGHBOUR_OFFSET[side]
    return (h[0] + dq, h[1] + dr)


def hex_neighbours(h: Hex) -> list[Hex]:
    """The six neighbouring hexes, in side order NE, E, SE, SW, W, NW."""
    return [(h[0] + dq, h[1] + dr) for dq, dr in NEIGHBOUR_OFFSET.values()]


def hex_distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hex_vertices(h: Hex) -> list[Vertex]:
    """The six corners of a hex, clockwise from N."""
    return [vertex(h[0], h[1], c) for c in CORNERS]


def hex_edges(h: Hex) -> list[Edge]:
    """The six sides of a hex, clockwise from NE."""
    return [edge(h[0], h[1], s) for s in SIDES]


def vertex_hexes(v: Vertex) -> tuple[Hex, Hex, Hex]:
    """The three hexes (on or off the board) that meet at a corner."""
    q, r, c = v
    if c == "N":
        return ((q, r), (q, r - 1), (q + 1, r - 1))
    return ((q, r), (q - 1, r + 1), (q, r + 1))


def vertex_neighbours(v: Vertex) -> tuple[Vertex, Vertex, Vertex]:
    """The three corners one side away."""
    q, r, c = v
    if c == "N":
        return (Vertex(q, r - 1, "S"), Vertex(q + 1, r - 1, "S"), Vertex(q + 1, r - 2, "S"))
    return (Vertex(q, r + 1, "N"), Vertex(q - 1, r + 1, "N"), Vertex(q - 1, r + 2, "N"))


def vertex_edges(v: Vertex) -> tuple[Edge, Edge, Edge]:
    """The three sides that end at a corner."""
    q, r, c = v
    if c == "N":
        return (Edge(q, r, "NE"), Edge(q, r - 1, "SE"), Edge(q, r - 1, "E"))
    return (Edge(q, r, "SE"), Edge(q - 1, r + 1, "NE"), Edge(q - 1, r + 1, "E"))


def edge_vertices(e: Edge) -> tuple[Vertex, Vertex]:
    """The two corners at the ends of a side."""
    q, r, s = e
    if s == "NE":
        return (Vertex(q, r, "N"), Vertex(q + 1, r - 1, "S"))
    if s == "E":
        return (Vertex(q + 1, r - 1, "S"), Vertex(q, r + 1, "N"))
    return (Vertex(q, r + 1, "N"), Vertex(q, r, "S"))


def edge_hexes(e: Edge) -> tuple[Hex, Hex]:
    """The two hexes (on or off the board) on either side of a side."""
    q, r, s = e
    dq, dr = NEIGHBOUR_OFFSET[s]
    return ((q, r), (q + dq, r + dr))


def edge_neighbours(e: Edge) -> list[Edge]:
    """The four sides that share a corner with this one."""
    out: list[Edge] = []
    for v in edge_vertices(e):
        out.extend(x for x in vertex_edges(v) if x != e)
    return out


def side_of(h: Hex, e: Edge) -> str:
    """The name of side ``e`` as seen from hex ``h`` (which must be one of its two hexes)."""
    for s in SIDES:
        if edge(h[0], h[1], s) == e:
            return s
    raise BoardError(f"side {tuple(e)} is not a side of hex {h}")


# --- geometry (for vision and drawing; unit: hex circumradius) -----------------------------

SQRT3 = math.sqrt(3.0)


def hex_center(h: Hex, size: float = 1.0) -> tuple[float, float]:
    """Centre of a hex in a plane with x to the east and y to the south (image convention)."""
    q, r = h
    return (size * SQRT3 * (q + r / 2.0), size * 1.5 * r)


#: Angle (degrees, image convention: y down, clockwise) of each corner from a hex's centre.
CORNER_ANGLE = {"N": -90.0, "NE": -30.0, "SE": 30.0, "S": 90.0, "SW": 150.0, "NW": 210.0}


def vertex_position(v: Vertex, size: float = 1.0) -> tuple[float, float]:
    cx, cy = hex_center((v.q, v.r), size)
    return (cx, cy - size) if v.corner == "N" else (cx, cy + size)


def edge_midpoint(e: Edge, size: float = 1.0) -> tuple[float, float]:
    a, b = (vertex_position(v, size) for v in edge_vertices(e))
    return ((a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0)


def hex_corner_points(h: Hex, size: float = 1.0) -> list[tuple[float, float]]:
    """The six corner points of a hex, clockwise from N."""
    cx, cy = hex_center(h, size)
    return [
        (cx + size * math.cos(math.radians(a)), cy + size * math.sin(math.radians(a)))
        for a in CORNER_ANGLE.values()
    ]


# --- standard frames ------------------------------------------------------------------------


def base_frame() -> list[Hex]:
    """The 19 hexes of the base game, row by row from the top (rows of 3, 4, 5, 4, 3)."""
    return [(q, r) for r in range(-2, 3) for q in range(max(-2, -2 - r), min(2, 2 - r) + 1)]


def extension_frame() -> list[Hex]:
    """The 30 hexes of the 5-6 player extension, rows of 3, 4, 5, 6, 5, 4, 3 from the top.

    The middle row (r = 0) runs q = -3..2; the board is symmetric about the vertical line
    through x = -sqrt(3)/2 (hex units), between hexes (-1, 0) and (0, 0).
    """
    return [(q, r) for r in range(-3, 4) for q in range(max(-3, -3 - r), min(2, 2 - r) + 1)]


def rows_of(hexes: Iterable[Hex]) -> list[list[Hex]]:
    """Hexes grouped by row (r), each row sorted west to east, rows from the top."""
    by_row: dict[int, list[Hex]] = {}
    for h in hexes:
        by_row.setdefault(h[1], []).append(h)
    return [sorted(by_row[r]) for r in sorted(by_row)]


# --- topology -------------------------------------------------------------------------------


class Topology:
    """The corners and sides of a set of hexes, numbered, with every adjacency precomputed.

    Indices are stable for a given set of hexes (sorted canonical names), so two engines or a
    journal built on the same frame agree on them.

    >>> t = Topology.of(base_frame())
    >>> len(t.vertices), len(t.edges)
    (54, 72)
    >>> t.vertex_index[Vertex(0, 0, "N")] in t.hex_vertices[t.hex_index[(0, 0)]]
    True
    """

    def __init__(self, hexes: Iterable[Hex]):
        self.hexes: tuple[Hex, ...] = tuple(sorted(set(hexes)))
        self.hex_index: dict[Hex, int] = {h: i for i, h in enumerate(self.hexes)}
        vertices = sorted({v for h in self.hexes for v in hex_vertices(h)})
        edges = sorted({e for h in self.hexes for e in hex_edges(h)})
        self.vertices: tuple[Vertex, ...] = tuple(vertices)
        self.edges: tuple[Edge, ...] = tuple(edges)
        self.vertex_index: dict[Vertex, int] = {v: i for i, v in enumerate(vertices)}
        self.edge_index: dict[Edge, int] = {e: i for i, e in enumerate(edges)}
        vi, ei, hi = self.vertex_index, self.edge_index, self.hex_index
        self.hex_vertices: tuple[tuple[int, ...], ...] = tuple(
            tuple(vi[v] for v in hex_vertices(h)) for h in self.hexes
        )
        self.hex_edges: tuple[tuple[int, ...], ...] = tuple(
            tuple(ei[e] for e in hex_edges(h)) for h in self.hexes
        )
        self.vertex_hexes: tuple[tuple[int, ...], ...] = tuple(
            tuple(hi[h] for h in vertex_hexes(v) if h in hi) for v in vertices
        )
        self.vertex_neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(vi[n] for n in vertex_neighbours(v) if n in vi) for v in vertices
        )
        self.vertex_edges: tuple[tuple[int, ...], ...] = tuple(
            tuple(ei[e] for e in vertex_edges(v) if e in ei) for v in vertices
        )
        self.edge_vertices: tuple[tuple[int, int], ...] = tuple(
            (vi[a], vi[b]) for a, b in (edge_vertices(e) for e in edges)
        )
        self.edge_hexes: tuple[tuple[int, ...], ...] = tuple(
            tuple(hi[h] for h in edge_hexes(e) if h in hi) for e in edges
        )

    @staticmethod
    @lru_cache(maxsize=32)
    def _cached(hexes: frozenset[Hex]) -> Topology:
        return Topology(hexes)

    @classmethod
    def of(cls, hexes: Iterable[Hex]) -> Topology:
        """The (cached) topology of a set of hexes."""
        return cls._cached(frozenset(hexes))

    def edge_between(self, a: int, b: int) -> int | None:
        """The side joining corners ``a`` and ``b``, if they are neighbours."""
        if a == b:
            return None
        for e in self.vertex_edges[a]:
            if b in self.edge_vertices[e]:
                return e
        return None


# --- the board ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tile:
    terrain: Terrain
    number: int | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class Harbor:
    """A harbour on side ``side`` of hex ``(q, r)``; the hex is the land hex it serves."""

    q: int
    r: int
    side: str
    kind: str
    #: 0..1 when read from a photo (how sure the reader is of the kind); not part of equality.
    confidence: float | None = field(default=None, compare=False)

    @property
    def edge(self) -> Edge:
        return edge(self.q, self.r, self.side)

    @property
    def vertices(self) -> tuple[Vertex, Vertex]:
        """The two corners that give access to this harbour (RULES.md 1.8.4)."""
        return edge_vertices(self.edge)


@dataclass(frozen=True)
class Piece:
    kind: str  # settlement | city | road | ship
    color: str
    vertex: Vertex | None = None
    edge: Edge | None = None


PIECE_KINDS = ("settlement", "city", "road", "ship")


@dataclass
class Board:
    """A board: its hexes with terrain and number, harbours, robber, pirate and seen pieces.

    This is the board JSON of DESIGN.md as a Python object. :meth:`from_json` validates.

    >>> b = Board.from_json({"kind": "base", "hexes": [
    ...     {"q": 0, "r": 0, "terrain": "desert"}], "harbors": [], "robber": {"q": 0, "r": 0}})
    >>> b.tiles[(0, 0)].terrain
    <Terrain.DESERT: 'desert'>
    """

    kind: str
    tiles: dict[Hex, Tile]
    harbors: list[Harbor] = field(default_factory=list)
    robber: Hex | None = None
    pirate: Hex | None = None
    pieces: list[Piece] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def topology(self) -> Topology:
        return Topology.of(self.tiles)

    def land_hexes(self) -> list[Hex]:
        return [h for h, t in self.tiles.items() if t.terrain.is_land]

    def terrain_counts(self) -> Counter[Terrain]:
        return Counter(t.terrain for t in self.tiles.values())

    def chip_counts(self) -> Counter[int]:
        return Counter(t.number for t in self.tiles.values() if t.number is not None)

    def chipless_land(self) -> frozenset[Hex]:
        """The land hexes that are not desert and carry no number chip (a scenario's villages,
        a tribe's hexes)."""
        return frozenset(
            h
            for h, t in self.tiles.items()
            if t.terrain.is_land and t.terrain != Terrain.DESERT and t.number is None
        )

    def is_sea_or_off(self, h: Hex) -> bool:
        """True for a sea hex or a position off the board (the frame, which is sea)."""
        t = self.tiles.get(h)
        return t is None or t.terrain == Terrain.SEA

    # -- JSON --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        hexes = []
        for (q, r), t in sorted(self.tiles.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            d: dict[str, Any] = {"q": q, "r": r, "terrain": t.terrain.value, "number": t.number}
            if t.confidence is not None:
                d["confidence"] = round(t.confidence, 4)
            hexes.append(d)
        pieces: list[dict[str, Any]] = []
        for p in self.pieces:
            d = {"kind": p.kind, "color": p.color}
            if p.vertex is not None:
                d["vertex"] = list(p.vertex)
            if p.edge is not None:
                d["edge"] = list(p.edge)
            pieces.append(d)
        return {
            "kind": self.kind,
            "hexes": hexes,
            "harbors": [_harbor_json(h) for h in self.harbors],
            "robber": None if self.robber is None else {"q": self.robber[0], "r": self.robber[1]},
            "pirate": None if self.pirate is None else {"q": self.pirate[0], "r": self.pirate[1]},
            "pieces": pieces,
            "warnings": list(self.warnings),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.dumps() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Board:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BoardError(f"{p}: no such file") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BoardError(f"{p}: not a JSON document ({exc})") from None
        try:
            return cls.from_json(data)
        except BoardError as exc:
            raise BoardError(f"{p}: {exc}") from None

    @classmethod
    def from_json(cls, data: Any) -> Board:
        """Build a board from its JSON form, validating every field.

        Raises :class:`BoardError` naming the first offending field, e.g. ``hexes[3].terrain``.
        """
        if not isinstance(data, Mapping):
            raise BoardError("the board must be a JSON object")
        kind = data.get("kind", "base")
        if kind not in BOARD_KINDS:
            raise BoardError(f"kind: {kind!r} is not one of {', '.join(BOARD_KINDS)}")
        raw_hexes = data.get("hexes")
        if not isinstance(raw_hexes, list) or not raw_hexes:
            raise BoardError("hexes: must be a non-empty list")
        tiles: dict[Hex, Tile] = {}
        for i, hx in enumerate(raw_hexes):
            where = f"hexes[{i}]"
            h = _hex_of(hx, where)
            if h in tiles:
                raise BoardError(f"{where}: hex {h} appears twice")
            try:
                terrain = Terrain(hx.get("terrain"))
            except ValueError:
                raise BoardError(
                    f"{where}.terrain: {hx.get('terrain')!r} is not one of "
                    f"{', '.join(t.value for t in Terrain)}"
                ) from None
            number = hx.get("number")
            if number is not None:
                if not _is_int(number) or number not in CHIP_VALUES:
                    raise BoardError(f"{where}.number: {number!r} is not a chip value (2-12 but 7)")
                if terrain in (Terrain.SEA, Terrain.DESERT):
                    raise BoardError(f"{where}.number: a {terrain.value} hex carries no chip")
            conf = hx.get("confidence")
            if conf is not None and not _is_fraction(conf):
                raise BoardError(f"{where}.confidence: must be a number from 0 to 1")
            tiles[h] = Tile(terrain, number, None if conf is None else float(conf))

        harbors: list[Harbor] = []
        seen_edges: set[Edge] = set()
        for i, hb in enumerate(data.get("harbors") or []):
            where = f"harbors[{i}]"
            h = _hex_of(hb, where)
            side = hb.get("side")
            if side not in SIDES:
                raise BoardError(f"{where}.side: {side!r} is not one of {', '.join(SIDES)}")
            hkind = hb.get("kind")
            if hkind not in HARBOR_KINDS:
                raise BoardError(f"{where}.kind: {hkind!r} is not one of {', '.join(HARBOR_KINDS)}")
            hconf = hb.get("confidence")
            if hconf is not None and not _is_fraction(hconf):
                raise BoardError(f"{where}.confidence: must be a number from 0 to 1")
            harbor = Harbor(h[0], h[1], side, hkind, None if hconf is None else float(hconf))
            if harbor.edge in seen_edges:
                raise BoardError(f"{where}: two harbours on side {tuple(harbor.edge)}")
            seen_edges.add(harbor.edge)
            if h not in tiles:
                raise BoardError(f"{where}: hex {h} is not on the board")
            harbors.append(harbor)

        robber = _optional_hex(data.get("robber"), "robber", tiles)
        pirate = _optional_hex(data.get("pirate"), "pirate", tiles, allow_off_board=True)

        pieces: list[Piece] = []
        for i, pc in enumerate(data.get("pieces") or []):
            where = f"pieces[{i}]"
            if not isinstance(pc, Mapping):
                raise BoardError(f"{where}: must be an object")
            pkind = pc.get("kind")
            if pkind not in PIECE_KINDS:
                raise BoardError(f"{where}.kind: {pkind!r} is not one of {', '.join(PIECE_KINDS)}")
            color = pc.get("color")
            if not isinstance(color, str) or not color:
                raise BoardError(f"{where}.color: must be a colour name")
            if pkind in ("settlement", "city"):
                pieces.append(Piece(pkind, color, vertex=_vertex_of(pc.get("vertex"), where)))
            else:
                pieces.append(Piece(pkind, color, edge=_edge_of(pc.get("edge"), where)))

        warnings = data.get("warnings") or []
        if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
            raise BoardError("warnings: must be a list of strings")
        return cls(kind, tiles, harbors, robber, pirate, pieces, list(warnings))


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_fraction(x: Any) -> bool:
    """A JSON number from 0 to 1 (a confidence)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x <= 1


def _harbor_json(h: Harbor) -> dict[str, Any]:
    d: dict[str, Any] = {"q": h.q, "r": h.r, "side": h.side, "kind": h.kind}
    if h.confidence is not None:
        d["confidence"] = round(h.confidence, 4)
    return d


def _hex_of(obj: Any, where: str) -> Hex:
    if not isinstance(obj, Mapping):
        raise BoardError(f"{where}: must be an object with q and r")
    q, r = obj.get("q"), obj.get("r")
    if not _is_int(q) or not _is_int(r):
        raise BoardError(f"{where}: q and r must be integers")
    return (q, r)


def _optional_hex(
    obj: Any, where: str, tiles: Mapping[Hex, Tile], allow_off_board: bool = False
) -> Hex | None:
    if obj is None:
        return None
    h = _hex_of(obj, where)
    if h not in tiles and not allow_off_board:
        raise BoardError(f"{where}: hex {h} is not on the board")
    return h


def _named_triple(obj: Any, where: str, names: tuple[str, ...]) -> tuple[int, int, str]:
    """Parse ``[q, r, name]`` with name one of ``names``."""
    if not (isinstance(obj, list | tuple) and len(obj) == 3):
        raise BoardError(f"{where}: must be [q, r, name]")
    q, r, name = obj
    if not _is_int(q) or not _is_int(r):
        raise BoardError(f"{where}: q and r must be integers")
    if name not in names:
        raise BoardError(f"{where}: {name!r} is not one of {', '.join(names)}")
    return q, r, name


def _vertex_of(obj: Any, where: str) -> Vertex:
    return vertex(*_named_triple(obj, f"{where}.vertex", CORNERS))


def _edge_of(obj: Any, where: str) -> Edge:
    return edge(*_named_triple(obj, f"{where}.edge", SIDES))


def iter_coast_sides(board: Board) -> Iterator[tuple[Hex, str]]:
    """Every (land hex, side) whose other side is sea or the frame: where harbours can lie."""
    for h, t in board.tiles.items():
        if not t.terrain.is_land:
            continue
        for s in SIDES:
            if board.is_sea_or_off(hex_neighbour(h, s)):
                yield h, s
