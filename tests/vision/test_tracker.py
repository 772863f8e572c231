"""The tracker on scripted synthetic videos: one case per kind of occlusion and disturbance."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from companion.board import Board, Edge, Piece, Vertex, edge_midpoint, hex_center, vertex_position
from companion.layouts import random_board
from vision.capture import SceneStep, SyntheticGameSource
from vision.synth.render import Conditions
from vision.tracker import Observation, Tracker, _plane_rotation

CAMERA = Conditions(tilt_deg=15.0, rotation_deg=12.0)
BOARD = random_board(4, seed=3)
SETTLEMENT = Piece("settlement", "red", vertex=Vertex(0, 0, "N"))
ROAD = Piece("road", "blue", edge=Edge(-1, 1, "SE"))


def at(piece: Piece) -> tuple[float, float]:
    return vertex_position(piece.vertex) if piece.vertex else edge_midpoint(piece.edge)


def with_pieces(*pieces: Piece) -> Board:
    return replace(BOARD, pieces=list(pieces))


def play(
    steps: list[SceneStep], turn_on_bump: int = 0, **kw: object
) -> tuple[list[tuple[float, Observation]], Tracker, SyntheticGameSource]:
    """Run a tracker over a script; its registrar reads the truth (turned by
    ``turn_on_bump`` x 60 degrees after the first time, as a new registration may be)."""
    src = SyntheticGameSource(steps, width=480, height=360, fps=10, seed=2, conditions=CAMERA, **kw)  # type: ignore[arg-type]
    calls = []

    def registrar(frame: np.ndarray) -> SimpleNamespace:
        assert src.truth is not None
        turn = _plane_rotation(turn_on_bump if calls else 0)
        calls.append(1)
        return SimpleNamespace(
            homography=src.truth.homography @ turn,
            hexes=list(BOARD.tiles),
            sea_fraction={},
            kind="base",
        )

    tracker = Tracker(registrar=registrar, stable_s=0.4)
    seen = []
    for t, frame in src:
        obs = tracker.update(t, frame)
        if obs is not None:
            seen.append((t, obs))
    return seen, tracker, src


def pieces_of(obs: Observation) -> set[tuple[str, str, object]]:
    return {(p.kind, p.color, p.vertex or p.edge) for p in obs.pieces}


def test_piece_placed_by_a_hand_is_reported_once_when_stable() -> None:
    steps = [
        SceneStep(BOARD, duration_s=0.5),
        SceneStep(with_pieces(SETTLEMENT), reach=at(SETTLEMENT), duration_s=2.5),
    ]
    seen, tracker, _ = play(steps, reach_s=0.8)
    assert len(seen) == 1
    t, obs = seen[0]
    assert pieces_of(obs) == {("settlement", "red", Vertex(0, 0, "N"))}
    assert obs.changed == (tuple(Vertex(0, 0, "N")),)
    # Not before the hand has gone (0.5 + 0.8 s) and the site stayed the same for stable_s.
    assert 0.5 + 0.8 + 0.4 <= t <= 0.5 + 0.8 + 1.0
    assert tracker.status.registrations == 1


def test_hand_passing_over_the_board_reports_nothing() -> None:
    board = with_pieces(SETTLEMENT, ROAD)
    steps = [
        SceneStep(board, duration_s=0.5),
        SceneStep(board, reach=at(SETTLEMENT), duration_s=1.5),
        SceneStep(board, reach=at(ROAD), duration_s=1.5),
    ]
    seen, tracker, _ = play(steps, reach_s=1.0)
    assert seen == []
    assert tracker.status.reads < tracker.status.frames


def test_glare_shadow_and_lamp_drift_report_nothing() -> None:
    board = with_pieces(SETTLEMENT, ROAD)
    steps = [
        SceneStep(board, duration_s=0.5),
        SceneStep(board, glare=True, duration_s=1.5),
        SceneStep(board, shadow=True, duration_s=1.5),
        SceneStep(board, duration_s=1.0),
    ]
    seen, _, _ = play(steps, drift=0.3)
    assert seen == []


def test_piece_taken_away_is_reported() -> None:
    steps = [
        SceneStep(with_pieces(SETTLEMENT, ROAD), duration_s=0.5),
        SceneStep(with_pieces(SETTLEMENT), reach=at(ROAD), duration_s=2.0),
    ]
    seen, _, _ = play(steps, reach_s=0.6)
    assert [pieces_of(o) for _, o in seen] == [{("settlement", "red", Vertex(0, 0, "N"))}]


def test_settlement_upgraded_to_a_city() -> None:
    city = Piece("city", "red", vertex=SETTLEMENT.vertex)
    steps = [
        SceneStep(with_pieces(SETTLEMENT), duration_s=0.5),
        SceneStep(with_pieces(city), reach=at(city), duration_s=2.0),
    ]
    seen, _, _ = play(steps, reach_s=0.6)
    assert [pieces_of(o) for _, o in seen] == [{("city", "red", Vertex(0, 0, "N"))}]


@pytest.mark.parametrize("turn", [0, 2])
def test_bumped_board_is_found_again_with_the_same_names(turn: int) -> None:
    steps = [
        SceneStep(with_pieces(SETTLEMENT), duration_s=0.5),
        SceneStep(with_pieces(SETTLEMENT), bump=True, duration_s=1.0),
        SceneStep(with_pieces(SETTLEMENT, ROAD), reach=at(ROAD), duration_s=2.0),
    ]
    seen, tracker, _ = play(steps, turn_on_bump=turn, reach_s=0.6)
    assert tracker.status.registrations == 2
    assert [pieces_of(o) for _, o in seen] == [
        {("settlement", "red", Vertex(0, 0, "N")), ("road", "blue", Edge(-1, 1, "SE"))}
    ]


def test_no_board_in_view_is_a_status_not_an_error() -> None:
    def registrar(frame: np.ndarray) -> object:
        raise ValueError("no board found: fewer than 6 number chips")

    tracker = Tracker(registrar=registrar, retry_s=1.0)
    frame = np.zeros((120, 160, 3), np.uint8)
    assert tracker.update(0.0, frame) is None
    assert tracker.update(0.5, frame) is None
    assert not tracker.status.registered and "no board" in tracker.status.detail
    assert tracker.pieces() == []


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="stable_s"):
        Tracker(stable_s=-1)
    with pytest.raises(ValueError, match="uint8"):
        Tracker().update(0.0, np.zeros((10, 10), np.uint8))


def test_robber_moved_reports_the_two_hexes_once() -> None:
    board = with_pieces(SETTLEMENT)
    old = board.robber
    assert old is not None
    new = next(h for h in BOARD.tiles if h != old and BOARD.tiles[h].terrain.is_land)
    moved = replace(board, robber=new)
    steps = [
        SceneStep(board, duration_s=0.5),
        SceneStep(moved, reach=hex_center(new), duration_s=2.0),
    ]
    seen, tracker, _ = play(steps, reach_s=0.6)
    assert [set(o.changed_hexes) for _, o in seen] == [{old, new}]
    assert pieces_of(seen[0][1]) == {("settlement", "red", Vertex(0, 0, "N"))}
    # Taken into the reference: later frames are not read again.
    assert tracker.status.reads < tracker.status.frames / 2
