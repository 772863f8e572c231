"""Reconciliation: camera observations against the engine's state."""

from __future__ import annotations

import json

import pytest
from conftest import play_random

from companion.actions import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    EndTurn,
    MoveRobber,
    MoveShip,
    RollDice,
)
from companion.board import Edge, Piece, Vertex, vertex_edges
from companion.bots import GreedyBot
from companion.game import Game, Phase
from companion.layouts import random_board
from companion.longest_route import SHIP
from companion.reconcile import Seen, game_pieces, reconcile
from companion.scenario import load_scenario

PLAYERS = ["red", "blue", "white"]


def seen_of(game: Game, **kw: object) -> Seen:
    """What a perfect camera sees of ``game`` (the pieces, robber and numbers)."""
    numbers = {h: tile.number for h, tile in game.board.tiles.items() if tile.number is not None}
    fields = {
        "pieces": game_pieces(game),
        "robber": game.topology.hexes[game.robber],
        "numbers": numbers,
    }
    fields.update(kw)
    return Seen(**fields)  # type: ignore[arg-type]


def with_pieces(seen: Seen, *extra: Piece) -> Seen:
    return Seen([*seen.pieces, *extra], seen.robber, seen.pirate, seen.numbers)


def main_phase_game(seed: int = 4) -> Game:
    """A game just past founding, in red's main phase, every hand holding plenty of cards."""
    game = Game(random_board(3, seed=seed), PLAYERS, rng=seed)
    bot = GreedyBot(seed=seed)
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD):
        game.apply(bot.choose(game))
    game.apply(RollDice(game.current_player, (2, 3)))
    for hand in game.hands:
        hand[:] = [5] * 5
    return game


def snapshot(game: Game) -> str:
    return json.dumps(game.snapshot(), sort_keys=True, default=str)


def own_road_end(game: Game) -> tuple[Edge, Vertex]:
    """A free side next to one of the current player's roads, and its far corner, such that a
    settlement there would keep the distance rule."""
    t, p = game.topology, game.current
    for e, owner in enumerate(game.edge_owner):
        if owner != p:
            continue
        for v in t.edge_vertices[e]:
            for e2 in t.vertex_edges[v]:
                if game.edge_owner[e2] != -1 or not game.edge_land[e2]:
                    continue
                far = next(x for x in t.edge_vertices[e2] if x != v)
                spot_free = game.vertex_owner[far] == -1 and game.vertex_land[far]
                if spot_free and all(game.vertex_owner[n] == -1 for n in t.vertex_neighbours[far]):
                    return t.edges[e2], t.vertices[far]
    raise AssertionError("no free road end in this game")


def test_a_camera_that_agrees_proposes_nothing() -> None:
    game = main_phase_game()
    result = reconcile(game, seen_of(game))
    assert result.agrees


def test_founding_settlement_and_its_road_in_either_order() -> None:
    game = Game(random_board(3, seed=1), PLAYERS, rng=1)
    v = Vertex(0, 0, "N")
    road = vertex_edges(v)[0]
    # Listed road first: the road is only legal once the settlement is placed.
    seen = Seen([Piece("road", "red", edge=road), Piece("settlement", "red", vertex=v)])
    result = reconcile(game, seen)
    assert [p.action for p in result.proposals] == [
        BuildSettlement("red", v),
        BuildRoad("red", road),
    ]
    assert result.discrepancies == []
    assert all(not p.confirm for p in result.proposals)


def test_road_then_settlement_at_its_end_in_main_phase() -> None:
    game = main_phase_game()
    color = game.current_player
    road, corner = own_road_end(game)
    seen = with_pieces(
        seen_of(game), Piece("settlement", color, vertex=corner), Piece("road", color, edge=road)
    )
    result = reconcile(game, seen)
    assert [p.action for p in result.proposals] == [
        BuildRoad(color, road),
        BuildSettlement(color, corner),
    ]
    assert "built a settlement" in result.proposals[1].text


def test_road_the_player_cannot_pay_for_is_a_discrepancy() -> None:
    game = main_phase_game()
    game.hands[game.current][:] = [0] * 5
    road, _ = own_road_end(game)
    result = reconcile(
        game, with_pieces(seen_of(game), Piece("road", game.current_player, edge=road))
    )
    assert result.proposals == []
    (d,) = result.discrepancies
    assert d.kind == "refused" and d.rule == "1.9.1" and "cannot pay" in d.text
    assert d.where == tuple(road)


def test_two_cities_seen_for_one_citys_cards_propose_neither() -> None:
    # A misread settlement must not take the cards of the city really built: the table says.
    game = main_phase_game()
    color = game.current_player
    game.hands[game.current][:] = [0, 0, 0, 2, 3]  # lumber, brick, wool, grain, ore: one city
    mine = [game.topology.vertices[v] for v, o in enumerate(game.vertex_owner) if o == game.current]
    assert len(mine) >= 2
    upgraded = [Piece("city", color, vertex=name) for name in mine[:2]]
    kept = [p for p in seen_of(game).pieces if p.vertex not in mine[:2]]
    before = snapshot(game)
    result = reconcile(game, Seen([*kept, *upgraded]))
    assert result.proposals == []
    assert [d.kind for d in result.discrepancies] == ["competing", "competing"]
    assert {d.where for d in result.discrepancies} == {tuple(name) for name in mine[:2]}
    assert all(color in d.text and "city" in d.text for d in result.discrepancies)
    assert snapshot(game) == before
    # With the cards for both, both are proposed.
    game.hands[game.current][:] = [0, 0, 0, 4, 6]
    result = reconcile(game, Seen([*kept, *upgraded]))
    assert sorted(str(p.action) for p in result.proposals) == sorted(
        str(BuildCity(color, name)) for name in mine[:2]
    )


def test_settlement_breaking_the_distance_rule() -> None:
    game = main_phase_game()
    t = game.topology
    built = next(v for v, o in enumerate(game.vertex_owner) if o == game.current)
    neighbour = t.vertices[t.vertex_neighbours[built][0]]
    seen = with_pieces(seen_of(game), Piece("settlement", game.current_player, vertex=neighbour))
    (d,) = reconcile(game, seen).discrepancies
    assert d.kind == "refused" and d.rule == "1.9.5" and "distance rule" in d.text


def test_out_of_turn_build_is_refused() -> None:
    game = main_phase_game()
    other = next(c for c in PLAYERS if c != game.current_player)
    p = game.seat(other)
    e = next(e for e, o in enumerate(game.edge_owner) if o == p)
    v = game.topology.edge_vertices[e][0]
    free = next(x for x in game.topology.vertex_edges[v] if game.edge_owner[x] == -1)
    seen = with_pieces(seen_of(game), Piece("road", other, edge=game.topology.edges[free]))
    (d,) = reconcile(game, seen).discrepancies
    assert d.kind == "refused" and other in d.text


def test_city_upgrade_and_city_from_nothing() -> None:
    game = main_phase_game()
    color = game.current_player
    v = next(v for v, o in enumerate(game.vertex_owner) if o == game.current)
    name = game.topology.vertices[v]
    pieces = [p for p in seen_of(game).pieces if p.vertex != name]
    result = reconcile(game, Seen([*pieces, Piece("city", color, vertex=name)]))
    assert [p.action for p in result.proposals] == [BuildCity(color, name)]
    _, free_corner = own_road_end(game)
    result = reconcile(game, with_pieces(seen_of(game), Piece("city", color, vertex=free_corner)))
    (d,) = result.discrepancies
    assert d.kind == "refused" and "no settlement" in d.text and result.proposals == []


def test_piece_that_disappeared_or_changed_colour() -> None:
    game = main_phase_game()
    t = game.topology
    v = next(v for v, o in enumerate(game.vertex_owner) if o != -1)
    owner = game.players[game.vertex_owner[v]]
    name = t.vertices[v]
    others = [p for p in seen_of(game).pieces if p.vertex != name]
    (d,) = reconcile(game, Seen(others)).discrepancies
    assert d.kind == "missing" and owner in d.text and "put" in d.fix
    stranger = next(c for c in PLAYERS if c != owner)
    (d,) = reconcile(
        game, Seen([*others, Piece("settlement", stranger, vertex=name)])
    ).discrepancies
    assert d.kind == "changed" and stranger in d.text and owner in d.fix
    e = next(e for e, o in enumerate(game.edge_owner) if o != -1)
    rest = [p for p in seen_of(game).pieces if p.edge != t.edges[e]]
    (d,) = reconcile(game, Seen(rest)).discrepancies
    assert d.kind == "missing" and "road" in d.text


def test_number_differs_from_the_game() -> None:
    game = main_phase_game()
    h, tile = next((h, t) for h, t in game.board.tiles.items() if t.number == 8)
    seen = seen_of(game)
    numbers = {**seen.numbers, h: 6}
    (d,) = reconcile(game, Seen(seen.pieces, seen.robber, None, numbers)).discrepancies
    assert d.kind == "number" and "sees a 6" in d.text and "has a 8" in d.text
    assert d.where == h


def test_robber_moved_after_a_seven_asks_who_was_robbed() -> None:
    game = main_phase_game()
    game.apply(EndTurn(game.current_player))
    for hand in game.hands:
        hand[:] = [1, 1, 1, 0, 0]  # few cards: nobody discards
    game.apply(RollDice(game.current_player, (3, 4)))
    assert game.phase == Phase.MOVE_ROBBER
    t = game.topology
    target = next(
        h
        for h in range(len(t.hexes))
        if h != game.robber
        and game.hex_land[h]
        and any(game.vertex_owner[v] not in (-1, game.current) for v in t.hex_vertices[h])
    )
    seen = seen_of(game, robber=t.hexes[target])
    (p,) = reconcile(game, seen).proposals
    assert isinstance(p.action, MoveRobber) and p.action.hex == t.hexes[target]
    assert p.confirm and p.choices and game.current_player not in p.choices
    # Completed with a victim the page chose, the engine takes it.
    game.apply(MoveRobber(game.current_player, t.hexes[target], p.choices[0]))


def test_robber_moved_without_a_seven_is_a_discrepancy() -> None:
    game = main_phase_game()
    t = game.topology
    target = next(h for h in range(len(t.hexes)) if h != game.robber and game.hex_land[h])
    result = reconcile(game, seen_of(game, robber=t.hexes[target]))
    (d,) = result.discrepancies
    assert d.kind == "robber" and "put the robber back" in d.fix and result.proposals == []


def test_unseen_robber_is_not_a_difference() -> None:
    game = main_phase_game()
    assert reconcile(game, seen_of(game, robber=None)).agrees


def test_piece_off_the_grid() -> None:
    game = main_phase_game()
    seen = with_pieces(seen_of(game), Piece("settlement", "red", vertex=Vertex(9, 9, "N")))
    (d,) = reconcile(game, seen).discrepancies
    assert d.kind == "off_grid"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reconciling_never_changes_the_game(seed: int) -> None:
    game = main_phase_game(seed)
    before = snapshot(game)
    road, corner = own_road_end(game)
    seen = with_pieces(
        Seen(list(seen_of(game).pieces)[1:]),
        Piece("road", game.current_player, edge=road),
        Piece("settlement", game.current_player, vertex=corner),
    )
    result = reconcile(game, seen)
    assert result.proposals and result.discrepancies
    assert snapshot(game) == before
    # The proposals, applied in order, are what the engine accepts.
    for p in result.proposals:
        game.apply(p.action)


def test_json_forms() -> None:
    game = main_phase_game()
    road, _ = own_road_end(game)
    result = reconcile(game, with_pieces(seen_of(game), Piece("road", "red", edge=road)))
    doc = json.loads(json.dumps([x.to_json() for x in [*result.proposals, *result.discrepancies]]))
    assert doc and all("text" in x for x in doc)


def test_a_ship_gone_or_seen_as_a_road() -> None:
    s = load_scenario("new-shores", 3, seed=1)
    game = Game(s.board, PLAYERS, s.rules, rng=2)
    ships = []
    for seed in range(100):  # random play until someone has built a ship
        play_random(game, 20, seed=seed)
        ships = [e for e, o in enumerate(game.edge_owner) if o != -1 and game.edge_kind[e] == SHIP]
        if ships:
            break
    e = ships[0]
    side, owner = game.topology.edges[e], game.players[game.edge_owner[e]]
    rest = [p for p in game_pieces(game) if p.edge != side]
    (d,) = reconcile(game, Seen(rest)).discrepancies
    assert (d.kind, d.where) == ("missing", tuple(side))
    assert d.text.startswith(f"{owner}'s ship at") and d.fix.startswith(f"put {owner}'s ship back")
    (d,) = reconcile(game, Seen([*rest, Piece("road", owner, edge=side)])).discrepancies
    assert (d.kind, d.where) == ("changed", tuple(side))
    assert f"a {owner} road at" in d.text and f"where the game has {owner}'s ship" in d.text


def test_a_ship_seen_as_a_road_where_only_a_ship_is_legal_is_asked_about() -> None:
    # Along a coast a ship and a road look alike; the engine knows which one the player could
    # have built: the camera asks the table instead of reporting a refused road.
    s = load_scenario("new-shores", 3, seed=4)
    game = Game(s.board, PLAYERS, s.rules, rng=4)
    bot = GreedyBot(seed=4)
    ships: list[BuildShip] = []
    while not ships:  # the bots' game up to a main phase where the player could build a ship
        game.apply(game.resolve(bot.choose(game)))
        if game.phase == Phase.MAIN:
            game.hands[game.current][:] = [1, 0, 1, 0, 0]  # lumber and wool: a ship, no road
            ships = [a for a in game.legal_actions() if isinstance(a, BuildShip)]
    ship = ships[0]
    road_there = with_pieces(seen_of(game), Piece("road", ship.player, edge=ship.edge))
    result = reconcile(game, road_there)
    (proposal,) = result.proposals
    assert proposal.action == ship and proposal.confirm
    assert "was it a ship?" in proposal.text and result.discrepancies == []
    # Where neither kind is legal the road stays a refused build.
    game.hands[game.current][:] = [0, 0, 0, 0, 0]
    (d,) = reconcile(game, road_there).discrepancies
    assert d.kind == "refused" and reconcile(game, road_there).proposals == []


def coast_game(seed: int = 4) -> tuple[Game, BuildRoad]:
    """A New Shores game in a main phase where the player to act, with plenty of cards, could
    build a road or a ship on the same coast side; returns it and that road."""
    s = load_scenario("new-shores", 3, seed=seed)
    game = Game(s.board, PLAYERS, s.rules, rng=seed)
    bot = GreedyBot(seed=seed)
    while True:
        game.apply(game.resolve(bot.choose(game)))
        if game.phase != Phase.MAIN:
            continue
        game.hands[game.current][:] = [5] * 5
        legal = game.legal_actions()
        ships = {a.edge for a in legal if isinstance(a, BuildShip)}
        roads = [a for a in legal if isinstance(a, BuildRoad) and a.edge in ships]
        if roads:
            return game, roads[0]


def test_a_coast_piece_of_doubtful_kind_where_both_are_legal_is_asked_about() -> None:
    # A ship lying along its coast side looks like a road: where the player could have built
    # either, the camera's reading must not go in unasked.
    game, road = coast_game()
    seen = with_pieces(seen_of(game), Piece("road", road.player, edge=road.edge))
    doubtful = Seen(seen.pieces, seen.robber, seen.pirate, seen.numbers, (road.edge,))
    before = snapshot(game)
    (proposal,) = reconcile(game, doubtful).proposals
    assert proposal.action == road and proposal.confirm
    assert proposal.choices == ("road", "ship") and proposal.asks == "kind"
    assert "road or ship?" in proposal.text
    assert proposal.to_json()["asks"] == "kind" and snapshot(game) == before
    # Read as sure, the same road is proposed to be applied at once.
    (sure,) = reconcile(game, seen).proposals
    assert sure.action == road and not sure.confirm and sure.choices == ()


def test_a_doubtful_kind_where_only_the_other_is_legal_keeps_the_ship_question() -> None:
    game, road = coast_game()
    game.hands[game.current][:] = [1, 0, 1, 0, 0]  # lumber and wool: a ship, no road
    seen = with_pieces(seen_of(game), Piece("road", road.player, edge=road.edge))
    doubtful = Seen(seen.pieces, seen.robber, seen.pirate, seen.numbers, (road.edge,))
    (proposal,) = reconcile(game, doubtful).proposals
    assert proposal.action == BuildShip(road.player, road.edge) and proposal.confirm
    assert "was it a ship?" in proposal.text and proposal.choices == ()
    # And where only the kind read is legal, it stands (nothing to ask).
    game.hands[game.current][:] = [1, 1, 0, 0, 0]  # lumber and brick: a road, no ship
    (proposal,) = reconcile(game, doubtful).proposals
    assert proposal.action == road and not proposal.confirm


def test_a_ship_move_to_a_side_in_doubt_is_asked_about() -> None:
    s = load_scenario("new-shores", 3, seed=1)
    game = Game(s.board, PLAYERS, s.rules, rng=2)
    moves: list[MoveShip] = []
    for seed in range(200):  # random play until a ship can be moved
        play_random(game, 20, seed=seed)
        if game.phase == Phase.MAIN:
            moves = [a for a in game.legal_actions() if isinstance(a, MoveShip)]
            if moves:
                break
    move = moves[0]
    rest = [p for p in game_pieces(game) if p.edge != move.edge]
    pieces = [*rest, Piece("ship", move.player, edge=move.to)]
    (sure,) = reconcile(game, Seen(pieces)).proposals
    assert sure.action == move and not sure.confirm
    (asked,) = reconcile(game, Seen(pieces, doubtful_kinds=(move.to,))).proposals
    assert asked.action == move and asked.confirm and "was it this move?" in asked.text
