"""Road or ship on the coast: how sure the kind read at a side is."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_pieces import CAMERA, board_of

import vision.synth.render as render
from companion.board import Edge, Piece, Terrain, edge_vertices, vertex_position
from vision.pieces import (
    KIND_CERTAIN,
    PieceDetector,
    SiteReadings,
    pieces_from_states,
    state_code,
)
from vision.synth.render import render_board

COAST = Edge(1, -1, "NE")  # (1, -1) land, (2, -2) sea
OPEN_SEA = Edge(2, -2, "SE")  # both hexes sea
LAND = Edge(0, 0, "NE")  # both hexes land


class FixedTurn:
    """Stands for the renderer's generator where a ship draws its angle: always ``angle``."""

    def __init__(self, angle: float) -> None:
        self.angle = angle

    def uniform(self, low: float, high: float) -> float:
        return self.angle


def side_angle(e: Edge) -> float:
    """The direction of a side on the board plane (and the renderer's canvas), radians."""
    a, b = (np.array(vertex_position(v)) for v in edge_vertices(e))
    return math.atan2(b[1] - a[1], b[0] - a[0])


def read_coast(
    monkeypatch: pytest.MonkeyPatch, pieces: list[Piece], turns: list[float]
) -> tuple[SiteReadings, dict[Edge, int]]:
    """Pieces on a pasture board in a ring of sea, its ships drawn at ``turns`` (radians from
    their side's direction, in order), read as the tracker reads (ships played)."""
    ships = [p.edge for p in pieces if p.kind == "ship"]
    angles = iter(side_angle(e) + t for e, t in zip(ships, turns, strict=True))
    draw = render._draw_ship

    def turned(canvas, centre, s, colour, scale, rng):  # type: ignore[no-untyped-def]
        draw(canvas, centre, s, colour, scale, FixedTurn(next(angles)))

    monkeypatch.setattr(render, "_draw_ship", turned)
    board = board_of(Terrain.PASTURE, pieces, sea_ring=True)
    r = render_board(board, width=960, height=720, rng=3, conditions=CAMERA)
    sea = [h for h, t in board.tiles.items() if t.terrain == Terrain.SEA]
    det = PieceDetector(r.homography, list(board.tiles), sea, ships=True)
    read = det.read(r.image)
    return read, {e: i for i, e in enumerate(read.edges)}


def test_a_ship_along_its_coast_side_is_read_with_its_kind_in_doubt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pieces = [
        Piece("ship", "red", edge=COAST),
        Piece("ship", "red", edge=OPEN_SEA),
        Piece("road", "red", edge=LAND),
    ]
    read, at = read_coast(monkeypatch, pieces, [0.0, 0.0])
    assert read.edge_kind_conf is not None and read.edge_ship_score is not None
    assert read.edge_state[at[COAST]] > 0
    assert read.edge_kind_conf[at[COAST]] < KIND_CERTAIN
    # Where only one kind can stand, the kind is sure: a ship on open sea, a road on land.
    assert read.edge_state[at[OPEN_SEA]] == state_code(0, True)
    assert read.edge_state[at[LAND]] == state_code(0, False)
    assert read.edge_kind_conf[at[OPEN_SEA]] == 1.0 == read.edge_kind_conf[at[LAND]]
    assert np.isnan(read.edge_ship_score[at[LAND]])
    (coast,) = [p for p in read.pieces() if p.edge == COAST]
    assert coast.kind_confidence < KIND_CERTAIN and coast.confidence <= coast.kind_confidence


@pytest.mark.parametrize("kind", ["road", "ship"])
def test_a_road_along_and_a_ship_across_their_coast_side_are_sure(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    read, at = read_coast(
        monkeypatch, [Piece(kind, "white", edge=COAST)], [math.pi / 2] if kind == "ship" else []
    )
    assert read.edge_state[at[COAST]] == state_code(3, kind == "ship")
    assert read.edge_kind_conf is not None and read.edge_kind_conf[at[COAST]] >= KIND_CERTAIN


def test_pieces_from_states_carry_the_kind_confidence_of_sides() -> None:
    edges = (COAST, LAND)
    found = pieces_from_states(
        (),
        edges,
        np.zeros(0, np.int64),
        np.array([state_code(1, False), state_code(1, False)]),
        edge_conf=np.array([0.9, 0.9]),
        edge_kind_conf=np.array([0.6, 1.0]),
    )
    assert [(p.edge, p.kind_confidence, p.confidence) for p in found] == [
        (COAST, 0.6, 0.6),
        (LAND, 1.0, 0.9),
    ]


def test_read_board_is_uncertain_when_a_sides_kind_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """read-board's certainty counts the roads and ships whose kind is in doubt."""
    import vision.read_board as rb
    from companion.layouts import random_board
    from vision.pieces import DetectedPiece

    board = board_of(Terrain.FIELDS, [])
    board.tiles = dict(random_board(4, seed=31).tiles)
    r = render_board(board, width=960, height=720, rng=31, conditions=CAMERA)
    doubtful = DetectedPiece("road", "red", edge=COAST, confidence=0.6, kind_confidence=0.6)
    sure = DetectedPiece("road", "blue", edge=LAND, confidence=0.9)
    monkeypatch.setattr(rb, "detect_pieces", lambda image, reg: [sure])
    assert not any("road or a ship" in w for w in rb.read_board(r.image).warnings)
    monkeypatch.setattr(rb, "detect_pieces", lambda image, reg: [doubtful, sure])
    read = rb.read_board(r.image)
    assert (
        "uncertain: 1 piece(s) on the coast could be a road or a ship: red road at (1, -1, NE)"
        in read.warnings
    )
    assert not rb.is_certain(read)
