"""City or settlement from one photo: by a building's size among the photo's buildings."""

from __future__ import annotations

import numpy as np
import pytest
from test_pieces import CAMERA, board_of

from companion.board import Piece, Terrain, Topology, Vertex
from vision.pieces import (
    CITY_SPREAD,
    PLASTIC_SHADES,
    PieceDetector,
    cities_by_spread,
)
from vision.synth.render import render_board


def _corners(n: int) -> list[Vertex]:
    """``n`` inner corners (three land hexes), no two neighbours, in the topology's order."""
    t = Topology.of(board_of(Terrain.PASTURE, []).tiles)
    taken: list[int] = []
    for v, hexes in enumerate(t.vertex_hexes):
        if len(hexes) == 3 and not any(u in taken for u in t.vertex_neighbours[v]):
            taken.append(v)
    step = len(taken) // n
    return [t.vertices[v] for v in taken[::step][:n]]


CORNERS = _corners(6)


def _read(pieces: list[Piece], terrain: Terrain, seed: int) -> dict[Vertex, str]:
    board = board_of(terrain, pieces)
    r = render_board(board, width=960, height=720, rng=seed, conditions=CAMERA)
    det = PieceDetector(r.homography, list(board.tiles), shades=PLASTIC_SHADES, ground=True)
    return {p.vertex: p.kind for p in det.read(r.image).pieces() if p.vertex is not None}


@pytest.mark.parametrize(("terrain", "seed"), [(Terrain.PASTURE, 1), (Terrain.MOUNTAINS, 2)])
def test_cities_among_settlements_are_read_as_cities(terrain: Terrain, seed: int) -> None:
    """The renderer's city is a quarter larger than its settlement, and flat: the colour
    classes' area called every one of these cities a settlement. A city is longer than the
    photo's settlements (its wing)."""
    kinds = ["settlement", "city", "settlement", "city", "settlement", "settlement"]
    colours = ["red", "blue", "orange", "red", "brown", "blue"]
    pieces = [Piece(k, c, vertex=v) for k, c, v in zip(kinds, colours, CORNERS, strict=True)]
    assert _read(pieces, terrain, seed) == {p.vertex: p.kind for p in pieces}


def test_a_photo_of_settlements_has_no_city() -> None:
    colours = ["red", "blue", "orange", "brown", "red", "blue"]
    pieces = [Piece("settlement", c, vertex=v) for c, v in zip(colours, CORNERS, strict=True)]
    got = _read(pieces, Terrain.PASTURE, 3)
    assert got == {v: "settlement" for v in CORNERS}


def test_the_size_is_relative_to_the_photos_buildings() -> None:
    """Pieces standing tall or a closer camera make every building larger: no city comes of
    it; and a building larger by more than CITY_SPREAD than the others is a city."""
    held = np.ones(6, bool)
    settlements = np.array([0.13, 0.14, 0.135, 0.13, 0.145, 0.14])
    assert not cities_by_spread(settlements, held).any()
    assert not cities_by_spread(settlements * 1.6, held).any()
    bigger = settlements.copy()
    bigger[2] = 0.13 * CITY_SPREAD * 1.05
    assert cities_by_spread(bigger, held).tolist() == [i == 2 for i in range(6)]
    assert cities_by_spread(bigger * 1.6, held).tolist() == [i == 2 for i in range(6)]


def test_too_few_buildings_measured_are_settlements() -> None:
    """Two buildings cannot say which one is the settlement; unmeasured and empty corners
    count for nothing."""
    spread = np.array([0.13, 0.2, np.nan, 0.13, 0.13])
    assert not cities_by_spread(spread, np.array([True, True, True, False, False])).any()
    assert cities_by_spread(spread, np.ones(5, bool)).tolist() == [
        False,
        True,
        False,
        False,
        False,
    ]
