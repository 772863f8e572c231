"""A base board whose chips lie in the counts' order, for tests of the joint chip reading."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from companion.board import Hex, Terrain, base_frame
from vision.read_board import CHIP_COUNTS
from vision.register import Registration
from vision.terrain import TerrainReading


@dataclass(frozen=True)
class ChipBoard:
    """The desert in the middle, every land hex fields with one chip of the base counts."""

    hexes: list[Hex]
    land: list[Hex]
    values: dict[Hex, int]
    reg: Registration
    terrain: list[TerrainReading]

    def where(self, value: int) -> Hex:
        """The first hex holding ``value``."""
        return next(h for h, v in self.values.items() if v == value)


def base_chip_board() -> ChipBoard:
    hexes = base_frame()
    land = [h for h in hexes if h != (0, 0)]
    values = dict(zip(land, sorted(CHIP_COUNTS["base"].elements()), strict=True))
    assert Counter(values.values()) == CHIP_COUNTS["base"]
    terrain = [
        TerrainReading(Terrain.DESERT if h == (0, 0) else Terrain.FIELDS, 1.0, {}) for h in hexes
    ]
    return ChipBoard(
        hexes, land, values, Registration("base", hexes, np.eye(3), set(land)), terrain
    )
