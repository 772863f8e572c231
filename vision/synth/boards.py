"""Boards to render: Seafarers-like maps (the base and 5-6 boards come from companion.layouts)."""

from __future__ import annotations

import numpy as np

from companion.board import (
    CHIP_VALUES,
    Board,
    Harbor,
    Hex,
    Terrain,
    Tile,
    hex_distance,
    hex_neighbour,
)

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
