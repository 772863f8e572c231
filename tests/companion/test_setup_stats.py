"""Board statistics on a small hand-made board whose figures are worked out by hand."""

from __future__ import annotations

import json

from companion.board import Board, Piece, Terrain, Tile, Vertex
from companion.layouts import random_board
from companion.stats import board_stats

V = Vertex(0, 0, "N")  # between (0, 0), (0, -1) and (1, -1)
W = Vertex(1, 0, "N")  # between (1, 0), (1, -1) and (2, -1)


def small_board(**kw: object) -> Board:
    tiles = {
        (0, 0): Tile(Terrain.FOREST, 6),  # 5 pips
        (0, -1): Tile(Terrain.HILLS, 4),  # 3 pips
        (1, -1): Tile(Terrain.GOLD, 9),  # 4 pips
        (1, 0): Tile(Terrain.PASTURE, 2),  # 1 pip
        (2, -1): Tile(Terrain.DESERT),
    }
    return Board("seafarers", tiles, **kw)  # type: ignore[arg-type]


def test_pips_per_resource_and_corner():
    s = board_stats(small_board())
    assert s["pips_per_resource"] == {
        "lumber": 5,
        "brick": 3,
        "wool": 1,
        "grain": 0,
        "ore": 0,
        "any": 4,
    }
    assert s["hexes_per_resource"]["any"] == 1 and s["hexes_per_resource"]["ore"] == 0
    best = s["corners"][0]
    assert best["vertex"] == [0, 0, "N"] and best["pips"] == 12
    assert best["resources"] == {"any": 4, "brick": 3, "lumber": 5}
    assert [c["pips"] for c in s["corners"]] == sorted(
        (c["pips"] for c in s["corners"]), reverse=True
    )


def test_expected_cards_per_player_with_city_and_robber():
    pieces = [
        Piece("settlement", "blue", vertex=V),
        Piece("city", "red", vertex=W),
        Piece("road", "red", edge=None),
    ]
    s = board_stats(small_board(pieces=pieces), players=4)
    blue, red = s["players"]["blue"], s["players"]["red"]
    assert blue["cards_per_roll"] == {
        "any": round(4 / 36, 4),
        "brick": round(3 / 36, 4),
        "lumber": round(5 / 36, 4),
    }
    assert blue["total_per_round"] == round(4 * 12 / 36, 4)
    assert red["cities"] == 1 and red["settlements"] == 0
    assert red["total_per_round"] == round(4 * 2 * (4 + 1) / 36, 4)  # a city counts twice

    robbed = board_stats(small_board(pieces=pieces, robber=(1, -1)), players=4)
    assert robbed["players"]["blue"]["total_per_round"] == round(4 * 8 / 36, 4)
    assert robbed["pips_per_resource"]["any"] == 4  # the board's figures ignore the robber


def test_best_openings_skip_taken_corners_and_their_neighbours():
    board = random_board(4, seed=8)
    free = board_stats(board)
    top = free["best_openings"][0]["vertex"]
    taken = Vertex(top[0], top[1], top[2])
    board.pieces = [Piece("settlement", "orange", vertex=taken)]
    after = board_stats(board)
    topo = board.topology
    near = {topo.vertices[i] for i in topo.vertex_neighbours[topo.vertex_index[taken]]}
    for c in after["best_openings"]:
        v = Vertex(c["vertex"][0], c["vertex"][1], c["vertex"][2])
        assert v != taken and v not in near
    assert len(after["best_openings"]) == 10
    assert after["rolls_per_round"] == 1  # one colour on the board and no player count given


def test_stats_are_json_safe_and_harbours_are_named():
    board = random_board(4, seed=9)
    s = board_stats(board, players=3)
    assert json.loads(json.dumps(s)) == s
    listed = {tuple(c["vertex"]): c["harbor"] for c in s["corners"]}
    harbour_at = {tuple(v): hb.kind for hb in board.harbors for v in hb.vertices}
    # Every producing corner names its harbour, and only harbour corners name one.
    for v, kind in listed.items():
        assert kind == harbour_at.get(v)
    assert sum(1 for v in harbour_at if v in listed) >= len(board.harbors)
