"""The physical material of the base game and its 5-6 extension, and where harbours lie.

These tables are the components of RULES.md 1.1 and 2.1 in the coordinates of
:mod:`companion.board`. The setup checker and board generator build on them.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations

from companion.board import (
    NEIGHBOUR_OFFSET,
    Board,
    Harbor,
    Hex,
    Resource,
    Terrain,
    Tile,
    base_frame,
    edge,
    edge_midpoint,
    extension_frame,
    hex_neighbour,
    hex_neighbours,
)

#: RULES.md 1.1.1
BASE_TERRAINS: Counter[Terrain] = Counter(
    {
        Terrain.FOREST: 4,
        Terrain.PASTURE: 4,
        Terrain.FIELDS: 4,
        Terrain.HILLS: 3,
        Terrain.MOUNTAINS: 3,
        Terrain.DESERT: 1,
    }
)

#: RULES.md 1.1.3
BASE_CHIPS: Counter[int] = Counter({2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1})

#: RULES.md 2.1.5
EXTENSION_TERRAINS: Counter[Terrain] = Counter(
    {
        Terrain.FOREST: 6,
        Terrain.PASTURE: 6,
        Terrain.FIELDS: 6,
        Terrain.HILLS: 5,
        Terrain.MOUNTAINS: 5,
        Terrain.DESERT: 2,
    }
)

#: RULES.md 2.1.3
EXTENSION_CHIPS: Counter[int] = Counter(
    {2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2}
)

#: RULES.md 1.1.2 (standard): 4 generic + one 2:1 per resource.
BASE_HARBOR_KINDS: tuple[str, ...] = ("3:1",) * 4 + tuple(r.value for r in Resource)

#: RULES.md 2.2.1 (standard): 5 generic + 6 special, wool twice.
EXTENSION_HARBOR_KINDS: tuple[str, ...] = (
    ("3:1",) * 5 + tuple(r.value for r in Resource) + (Resource.WOOL.value,)
)

#: The nine harbour sides of the base frame, clockwise from the east: (land hex, side).
BASE_HARBOR_SITES: tuple[tuple[Hex, str], ...] = (
    ((2, 0), "E"),
    ((1, 1), "SE"),
    ((-1, 2), "SE"),
    ((-2, 2), "SW"),
    ((-2, 1), "W"),
    ((-1, -1), "W"),
    ((0, -2), "NW"),
    ((1, -2), "NE"),
    ((2, -1), "NE"),
)

#: Eleven harbour sides of the 5-6 frame, clockwise from the east.
EXTENSION_HARBOR_SITES: tuple[tuple[Hex, str], ...] = (
    ((2, 0), "E"),
    ((1, 1), "SE"),
    ((0, 2), "SE"),
    ((-2, 3), "SE"),
    ((-3, 3), "SW"),
    ((-3, 2), "W"),
    ((-3, 0), "W"),
    ((-2, -1), "NW"),
    ((-1, -2), "NW"),
    ((1, -3), "NE"),
    ((2, -2), "E"),
)

#: How many coast sides one of the base frame's six parts spans (30 in all).
_PART_SIDES = 5


def base_frame_layouts() -> list[frozenset[tuple[Hex, str]]]:
    """Every set of harbour sides the base frame can show, its six parts laid in any order
    (RULES.md 1.3.4), in the frame's own coordinates and the rulebook's orientation.

    Each part spans five coast sides, from a corner hex's middle coast side on (clockwise:
    the joints of the real frame lie there, vieja_E_6 of boards-dev shows them; its
    layouts E and F, labelled in :data:`vision.bench.HARBOUR_LABELS`, are two orders of
    such parts). The rulebook's picture (:data:`BASE_HARBOR_SITES`) lays three parts of two
    harbours and three of one alternately; any order of them is a frame.

    >>> layouts = base_frame_layouts()
    >>> len(layouts), frozenset(BASE_HARBOR_SITES) in layouts
    (20, True)
    """
    ring = _coast_ring(base_frame())
    # A corner hex's middle coast side has the same hex's sides on both hands.
    start = next(
        n for n, (h, _) in enumerate(ring) if ring[n - 1][0] == h == ring[(n + 1) % len(ring)][0]
    )
    ring = ring[start:] + ring[:start]
    rulebook = set(BASE_HARBOR_SITES)
    parts = [
        tuple(ring[p + i] in rulebook for i in range(_PART_SIDES))
        for p in range(0, len(ring), _PART_SIDES)
    ]
    kinds = sorted(set(parts))
    many = Counter(parts)[kinds[0]]
    out: list[frozenset[tuple[Hex, str]]] = []
    for slots in combinations(range(len(parts)), many):
        order = [kinds[0] if n in slots else kinds[1] for n in range(len(parts))]
        out.append(
            frozenset(
                ring[p * _PART_SIDES + i]
                for p, part in enumerate(order)
                for i, harbour in enumerate(part)
                if harbour
            )
        )
    return out


def _coast_ring(frame: list[Hex]) -> list[tuple[Hex, str]]:
    """The frame's coast sides (a hex's side whose other hex is off the frame) clockwise,
    by the angle of their midpoints about the frame's centre hex (0, 0)."""
    hexes = set(frame)
    sides = [(h, s) for h in frame for s in NEIGHBOUR_OFFSET if hex_neighbour(h, s) not in hexes]

    def angle(site: tuple[Hex, str]) -> float:
        x, y = edge_midpoint(edge(site[0][0], site[0][1], site[1]))
        return math.atan2(y, x)

    return sorted(sides, key=angle)


RED_NUMBERS = frozenset({6, 8})


def red_pairs(tiles: dict[Hex, Tile]) -> list[tuple[Hex, Hex]]:
    """Pairs of adjacent hexes that both carry a red number (RULES.md 1.3.7)."""
    pairs = []
    for h, t in tiles.items():
        if t.number in RED_NUMBERS:
            for n in hex_neighbours(h):
                if n > h and n in tiles and tiles[n].number in RED_NUMBERS:
                    pairs.append((h, n))
    return pairs


def random_board(players: int = 4, seed: int | random.Random | None = None) -> Board:
    """A random legal board for 3-4 (19 hexes) or 5-6 players (30 hexes).

    Terrain and harbours are shuffled; chips are shuffled until no two red numbers touch
    (rejection sampling, so every legal placement is equally likely). The robber starts on
    the (first) desert.

    >>> b = random_board(4, seed=1)
    >>> len(b.tiles), sum(b.chip_counts().values()), len(b.harbors)
    (19, 18, 9)
    """
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    if players <= 4:
        frame, terrains, chips = base_frame(), BASE_TERRAINS, BASE_CHIPS
        sites, kinds, kind = BASE_HARBOR_SITES, BASE_HARBOR_KINDS, "base"
    else:
        frame, terrains, chips = extension_frame(), EXTENSION_TERRAINS, EXTENSION_CHIPS
        sites, kinds, kind = EXTENSION_HARBOR_SITES, EXTENSION_HARBOR_KINDS, "5-6"
    pool = list(terrains.elements())
    rng.shuffle(pool)
    land = [h for h, t in zip(frame, pool, strict=True) if t != Terrain.DESERT]
    chip_pool = list(chips.elements())
    while True:
        rng.shuffle(chip_pool)
        numbers = dict(zip(land, chip_pool, strict=True))
        tiles = {h: Tile(t, numbers.get(h)) for h, t in zip(frame, pool, strict=True)}
        if not red_pairs(tiles):
            break
    harbor_kinds = list(kinds)
    rng.shuffle(harbor_kinds)
    harbors = [Harbor(h[0], h[1], s, k) for (h, s), k in zip(sites, harbor_kinds, strict=True)]
    robber = next(h for h, t in tiles.items() if t.terrain == Terrain.DESERT)
    return Board(kind, tiles, harbors, robber=robber)
