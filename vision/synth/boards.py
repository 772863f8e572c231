"""Boards to render: random base and 5-6 boards, and Seafarers-like maps.

Only :mod:`companion.board` and the frames' harbour sides of :mod:`companion.layouts` are used
(vision depends on the geometry alone); the material below is that of RULES.md 1.1 and 2.1.
Red numbers may touch: a renderer needs any layout.
"""

from __future__ import annotations

import numpy as np

from companion.board import (
    CHIP_VALUES,
    HARBOR_KINDS,
    Board,
    Harbor,
    Hex,
    Terrain,
    Tile,
    base_frame,
    extension_frame,
    hex_distance,
    hex_neighbour,
)
from companion.layouts import BASE_HARBOR_SITES, EXTENSION_HARBOR_SITES

#: Terrain, chips and harbour tokens of the base game (3-4 players) and of the 5-6 extension
#: (RULES.md 1.1.2: 4 generic and one per resource; 2.2.1: 5 generic, 6 special, wool twice).
_MATERIAL: dict[str, tuple[dict[Terrain, int], dict[int, int], tuple[str, ...]]] = {
    "base": (
        {
            Terrain.FOREST: 4,
            Terrain.PASTURE: 4,
            Terrain.FIELDS: 4,
            Terrain.HILLS: 3,
            Terrain.MOUNTAINS: 3,
            Terrain.DESERT: 1,
        },
        {2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1},
        ("3:1",) * 4 + HARBOR_KINDS[1:],
    ),
    "5-6": (
        {
            Terrain.FOREST: 6,
            Terrain.PASTURE: 6,
            Terrain.FIELDS: 6,
            Terrain.HILLS: 5,
            Terrain.MOUNTAINS: 5,
            Terrain.DESERT: 2,
        },
        {2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2},
        ("3:1",) * 5 + HARBOR_KINDS[1:] + ("wool",),
    ),
}


def standard_board(kind: str, rng: np.random.Generator) -> Board:
    """A random base or 5-6 board: shuffled terrain and chips, shuffled harbours on the frame's
    standard harbour sides.

    Raises:
        ValueError: ``kind`` is not base or 5-6.
    """
    if kind not in _MATERIAL:
        raise ValueError(f"kind must be base or 5-6, not {kind!r}")
    terrains, chips, harbor_kinds = _MATERIAL[kind]
    frame = base_frame() if kind == "base" else extension_frame()
    pool = [t for t, n in terrains.items() for _ in range(n)]
    rng.shuffle(pool)
    numbers = [v for v, n in chips.items() for _ in range(n)]
    rng.shuffle(numbers)
    tiles: dict[Hex, Tile] = {}
    it = iter(numbers)
    for h, t in zip(frame, pool, strict=True):
        tiles[h] = Tile(t, None if t == Terrain.DESERT else next(it))
    sites = BASE_HARBOR_SITES if kind == "base" else EXTENSION_HARBOR_SITES
    kinds = list(harbor_kinds)
    rng.shuffle(kinds)
    # A draw kept from when harbours were spread round the coast at a random offset: each
    # seed still gives the terrain, chips and photo conditions it gave before.
    rng.uniform()
    harbors = [Harbor(h[0], h[1], side, hk) for (h, side), hk in zip(sites, kinds, strict=True)]
    board = Board(kind, tiles, harbors)
    board.robber = next(h for h, t in tiles.items() if t.terrain == Terrain.DESERT)
    return board


#: Land material of the Seafarers-like map: islands with gold fields and a desert.
SEAFARERS_LAND: tuple[Terrain, ...] = (
    (Terrain.FOREST,) * 4
    + (Terrain.PASTURE,) * 4
    + (Terrain.FIELDS,) * 4
    + (Terrain.HILLS,) * 3
    + (Terrain.MOUNTAINS,) * 3
    + (Terrain.GOLD,) * 2
    + (Terrain.DESERT,)
)


def seafarers_frame() -> list[Hex]:
    """A hexagon of radius 3 around (0, 0): 37 hexes, as a Seafarers frame holds."""
    return [(q, r) for q in range(-3, 4) for r in range(-3, 4) if hex_distance((q, r), (0, 0)) <= 3]


def seafarers_board(rng: np.random.Generator) -> Board:
    """A random Seafarers-like map: a main island, smaller islands, sea between, gold, pirate.

    The 21 land hexes are grown from a few seeds so they form islands; every other hex of the
    frame is sea. Chips: every land hex but the desert gets one (values cycle over 2..12).
    """
    frame = seafarers_frame()
    inner = [h for h in frame if hex_distance(h, (0, 0)) <= 2]
    land: set[Hex] = set()
    seeds = [inner[int(i)] for i in rng.choice(len(inner), size=3, replace=False)]
    land.update(seeds)
    frame_set = set(frame)
    while len(land) < len(SEAFARERS_LAND):
        base = sorted(land)[int(rng.integers(len(land)))]
        side = ("NE", "E", "SE", "SW", "W", "NW")[int(rng.integers(6))]
        n = hex_neighbour(base, side)
        if n in frame_set:
            land.add(n)
    terrains = list(SEAFARERS_LAND)
    rng.shuffle(terrains)
    land_list = sorted(land)
    values = [CHIP_VALUES[i % len(CHIP_VALUES)] for i in range(len(land_list))]
    rng.shuffle(values)
    tiles: dict[Hex, Tile] = {}
    for h, t, v in zip(land_list, terrains, values, strict=True):
        tiles[h] = Tile(t, None if t == Terrain.DESERT else v)
    sea = [h for h in frame if h not in land]
    for h in sea:
        tiles[h] = Tile(Terrain.SEA)
    harbors: list[Harbor] = []
    for h in land_list:
        for side in ("NE", "E", "SE", "SW", "W", "NW"):
            if len(harbors) < 4 and hex_neighbour(h, side) in sea and rng.random() < 0.15:
                kind = ("3:1", "lumber", "brick", "wool", "grain", "ore")[len(harbors) % 6]
                harbors.append(Harbor(h[0], h[1], side, kind))
                break
    robber = next(h for h in land_list if tiles[h].terrain == Terrain.DESERT)
    pirate = sea[int(rng.integers(len(sea)))]
    return Board("seafarers", tiles, harbors, robber=robber, pirate=pirate)
