"""The Pirate Islands (RULES.md §4.7): the map, the one shipping route, warships, the pirate
fleet, the raid on a 7, fortress attacks, and a scripted game won by a capture with 10 points.

Positions come from the scenario file; shortest ways are found here by a search of our own, so
a test does not take the hook's word for what "shortest" means.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import replace
from typing import Any

import pytest
from conftest import Script, buy_card, give, hook_entry, refusal, set_hand

from companion.actions import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuildShip,
    BuyDevelopmentCard,
    Cards,
    DevCard,
    Discard,
    EndTurn,
    MovePirate,
    MoveRobber,
    PlayKnight,
    RollDice,
    action_from_json,
    action_to_json,
)
from companion.board import RESOURCES, Resource, Terrain, edge, vertex
from companion.bots import GreedyBot
from companion.game import Game, Phase
from companion.hooks.pirate_islands import (
    ArmWarship,
    AttackFortress,
    PirateIslands,
    Raid,
    RevealVictoryPoint,
    SurrenderCards,
    TakeBooty,
)
from companion.scenario import SCENARIO_DIR, load_scenario

COLORS = ["red", "blue", "white", "orange"]
#: a first roll that sends the fleet (from its start) down the ring, away from red's first ships
AWAY = (4, 5)
FILE = json.loads((SCENARIO_DIR / "pirate-islands.json").read_text())


def spec(players: int = 4) -> dict[str, Any]:
    return hook_entry(FILE["layouts"][str(players)], "pirate_islands")


def pirate_game(players: int = 4, rng: Any = None, **params: Any) -> Game:
    """A game of the scenario; ``params`` override the hook's parameters (a table's options)."""
    s = load_scenario("pirate-islands", players, seed=1)
    rules = s.rules
    if params:
        hooks = tuple({**h, **params} if h["hook"] == "pirate_islands" else h for h in rules.hooks)
        rules = replace(rules, hooks=hooks)
    return Game(s.board, COLORS[:players], rules, rng if rng is not None else Script())


def hook(game: Game) -> PirateIslands:
    return next(h for h in game.hooks if isinstance(h, PirateIslands))


def state(game: Game) -> dict[str, Any]:
    return game.hook_state["pirate_islands"]


def corner(game: Game, color: str, what: str) -> int:
    """The corner index of ``color``'s ``home``, ``mark`` or ``fortress`` (as the game's
    hook read them from its parameters)."""
    return int(getattr(hook(game).positions[game.seat(color)], what))


def east_corners(game: Game) -> set[int]:
    t = game.topology
    east = {tuple(h) for h in game.rules.areas["east"]}
    return {v for v in range(len(t.vertices)) if {t.hexes[h] for h in t.vertex_hexes[v]} & east}


def found(game: Game) -> None:
    """Every seat founds twice, on the first free corners of the eastern island (with roads)."""
    while game.phase in (Phase.FOUNDING_SETTLEMENT, Phase.FOUNDING_ROAD, Phase.CHOOSE_GOLD):
        legal = game.legal_actions()
        action = next((a for a in legal if isinstance(a, BuildRoad)), legal[0])
        game.apply(action)
    assert game.phase == Phase.ROLL


def settle_attacks(game: Game) -> None:
    """Settle whatever the fleet's attack left due (the cards drawn, a booty chosen)."""
    while state(game)["due"]:
        game.apply(game.legal_actions()[0])


def roll(game: Game, dice: tuple[int, int]) -> list[dict]:
    game.rng.dice.append(dice)
    events = game.apply(RollDice(game.current_player))
    settle_attacks(game)
    return events


def next_turn(game: Game, dice: tuple[int, int] = (1, 2)) -> None:
    """End the current turn (rolling first if needed) and leave the next player to roll."""
    if game.phase == Phase.ROLL:
        roll(game, dice)
    game.apply(EndTurn(game.current_player))


def turn_of(game: Game, color: str, dice: tuple[int, int] = (1, 2)) -> None:
    """Pass turns until ``color`` has rolled ``dice`` and may act."""
    for _ in range(len(game.players) + 1):
        if game.current_player == color:
            if game.phase == Phase.ROLL:
                roll(game, dice)
            return
        next_turn(game, dice)
    raise AssertionError(f"never {color}'s turn")


def shortest_way(game: Game, start: int, goal: int, p: int) -> list[int]:
    """Sides of a shortest free sea way from corner ``start`` to ``goal`` (our own search)."""
    t = game.topology
    prev: dict[int, tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        if v == goal:
            path = []
            while prev[v] is not None:
                u, e = prev[v]  # type: ignore[misc]
                path.append(e)
                v = u
            return path[::-1]
        if v != start and game.vertex_owner[v] not in (-1, p):
            continue
        for e in t.vertex_edges[v]:
            if game.edge_owner[e] == -1 and game.edge_sea[e]:
                a, b = t.edge_vertices[e]
                w = b if a == v else a
                if w not in prev:
                    prev[w] = (v, e)
                    queue.append(w)
    raise AssertionError("no way by sea")


def route_end(game: Game, color: str) -> int:
    return hook(game).route(game, game.seat(color))[1][-1]


def sail_to(game: Game, color: str, goal: int) -> None:
    """``color`` (to act, ships per turn unlimited) builds ships along a shortest way; where
    the fleet lies on the way (3.6.4), they wait a round for it to sail on."""
    t = game.topology
    while route_end(game, color) != goal:
        e = shortest_way(game, route_end(game, color), goal, game.seat(color))[0]
        if game.pirate is not None and e in t.hex_edges[game.pirate]:
            next_turn(game)
            turn_of(game, color)
            continue
        give(game, color, lumber=1, wool=1)
        game.apply(BuildShip(color, t.edges[e]))


def arm(game: Game, color: str, n: int) -> None:
    """``color`` (to act) buys ``n`` knights, then plays one a turn, each arming a ship; it is
    ``color``'s turn again at the end."""
    for _ in range(n):
        buy_card(game, color, DevCard.KNIGHT)
    for _ in range(n):
        next_turn(game)
        turn_of(game, color)
        game.apply(PlayKnight(color))
        game.apply(ArmWarship(color))


# -- 4.7.1-4.7.7: the set-up ----------------------------------------------------------------


def test_the_map_is_fixed_with_its_material_and_three_chipless_hexes():  # 4.7.1, 4.7.21
    a, b = load_scenario("pirate-islands", 4, seed=1), load_scenario("pirate-islands", 4, seed=9)
    assert a.board.tiles == b.board.tiles  # only the harbours may change
    assert {h.kind for h in a.board.harbors} | {h.kind for h in b.board.harbors}
    terrain = Counter(t.terrain for t in a.board.tiles.values())
    assert terrain == {
        Terrain.SEA: 19,
        Terrain.DESERT: 3,
        Terrain.GOLD: 2,
        Terrain.FIELDS: 5,
        Terrain.HILLS: 5,
        Terrain.MOUNTAINS: 5,
        Terrain.PASTURE: 5,
        Terrain.FOREST: 5,
    }
    chips = Counter(t.number for t in a.board.tiles.values() if t.number)
    assert chips == {2: 1, 3: 2, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 2, 12: 1}
    chipless = [
        h
        for h, t in a.board.tiles.items()
        if t.number is None and t.terrain not in (Terrain.SEA, Terrain.DESERT)
    ]
    assert sorted(a.board.tiles[h].terrain for h in chipless) == [
        Terrain.HILLS,
        Terrain.HILLS,
        Terrain.PASTURE,
    ]
    assert {h for h in chipless if h in a.areas["west"]} == {
        h for h in chipless if a.board.tiles[h].terrain == Terrain.HILLS
    }
    kinds = Counter(h.kind for h in a.board.harbors)
    assert kinds["3:1"] == 3 and sum(kinds.values()) == 8


def test_each_colour_starts_with_a_coastal_settlement_and_a_ship_in_the_east():  # 4.7.2
    game = pirate_game()
    for p, color in enumerate(COLORS):
        home = corner(game, color, "home")
        assert game.vertex_owner[home] == p and game.vertex_level[home] == 1
        assert home in east_corners(game)
        (ship,) = game.pieces_of[p]
        assert game.edge_kind[ship] == 2 and home in game.topology.edge_vertices[ship]
        assert game.victory_points(p) == 1
        assert game.ships_left[p] == 14


def test_fortresses_hold_three_chips_and_a_settlement_of_the_supply():  # 4.7.3
    game = pirate_game()
    assert state(game)["fortresses"] == [3, 3, 3, 3]
    for p, color in enumerate(COLORS):
        fortress = corner(game, color, "fortress")
        assert game.vertex_owner[fortress] == -1  # not theirs: no points, no production
        assert game.settlements_left[p] == 5 - 2
        assert hook(game).pieces_aside(game, p) == {"settlements": 1}


def test_three_players_leave_white_out_and_the_victory_point_cards_too():  # 4.7.4
    s = load_scenario("pirate-islands", 3, seed=1)
    assert "victory_point" not in s.rules.to_json()["dev_deck"]
    positions = [p["color"] for p in spec(3)["positions"]]
    assert positions == ["red", "blue", "orange"] and s.catan_chips == 9
    four = load_scenario("pirate-islands", 4, seed=1)
    assert four.rules.to_json()["dev_deck"]["victory_point"] == 5 and four.catan_chips == 12
    game = Game(s.board, ["red", "blue", "green"], s.rules, Script())
    orange_home = vertex(*spec(3)["positions"][2]["home"])
    assert game.vertex_owner[game.topology.vertex_index[orange_home]] == 2  # seat 3: 3rd place


def test_no_longest_road_and_no_largest_army():  # 4.7.5, 4.7.11
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    sail_to(game, "red", corner(game, "red", "mark"))
    assert game.road_lengths[0] >= 5 and game.longest_road is None
    arm(game, "red", 3)
    assert game.knights[0] == 3 and game.largest_army is None


def test_founding_is_on_the_eastern_island_with_roads_only():  # 4.7.6, S7-FOUND-EAST
    game = pirate_game()
    t = game.topology
    west = next(
        v for v in range(len(t.vertices)) if v not in east_corners(game) and game.vertex_land[v]
    )
    assert refusal(game, BuildSettlement("red", t.vertices[west])).rule == "4.7.6"
    spot = next(a for a in game.legal_actions() if isinstance(a, BuildSettlement))
    assert all(t.vertex_index[a.vertex] in east_corners(game) for a in game.legal_actions())
    game.apply(spot)
    v = t.vertex_index[spot.vertex]
    coast = [e for e in t.vertex_edges[v] if game.edge_sea[e]]
    for e in coast:
        assert refusal(game, BuildShip("red", t.edges[e])).rule == "4.7.8"
    assert not any(isinstance(a, BuildShip) for a in game.legal_actions())
    found(game)
    assert all(len(game.buildings_of[p]) == 3 for p in range(4))  # 4.7.6: three each


def test_the_fleet_starts_on_x_and_there_is_no_robber_to_move():  # 4.7.7
    s = load_scenario("pirate-islands", 4, seed=1)
    assert s.board.pirate == tuple(FILE["layouts"]["4"]["pirate"].values())
    assert s.board.tiles[s.board.robber].terrain == Terrain.DESERT  # parked, never moved
    game = pirate_game()
    found(game)
    game.rng.dice.append((3, 4))
    game.apply(RollDice("red"))
    settle_attacks(game)
    assert not any(isinstance(a, MoveRobber | MovePirate) for a in game.legal_actions())
    parked = game.topology.hexes[game.robber]
    land = next(h for h, tile in sorted(game.board.tiles.items()) if tile.terrain.is_land)
    assert land != parked
    assert refusal(game, MoveRobber("red", land)).rule == "4.7.15"


# -- 4.7.8: the one shipping route ----------------------------------------------------------


def test_a_ship_continues_the_open_end_of_the_one_route_only():  # 4.7.8
    game = pirate_game()
    found(game)
    turn_of(game, "red", AWAY)
    t = game.topology
    home = corner(game, "red", "home")
    first = hook(game).positions[0].ship
    branch = next(
        e
        for e in t.vertex_edges[home]
        if e != first and game.edge_sea[e] and game.edge_owner[e] == -1
    )
    give(game, "red", lumber=1, wool=1)
    assert refusal(game, BuildShip("red", t.edges[branch])).rule == "4.7.8"
    legal = [a for a in game.legal_actions() if isinstance(a, BuildShip)]
    end = route_end(game, "red")
    assert legal and all(end in t.edge_vertices[t.edge_index[a.edge]] for a in legal)


def test_the_route_takes_the_shortest_way_to_the_mark_then_the_fortress():  # 4.7.8
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red", AWAY)
    t = game.topology
    mark, fortress = corner(game, "red", "mark"), corner(game, "red", "fortress")
    end = route_end(game, "red")
    best = len(shortest_way(game, end, mark, 0))
    for e in t.vertex_edges[end]:
        if game.edge_owner[e] != -1 or not game.edge_sea[e]:
            continue
        a, b = t.edge_vertices[e]
        far = b if a == end else a
        give(game, "red", lumber=1, wool=1)
        if len(shortest_way(game, far, mark, 0)) == best - 1:
            assert game.is_legal(BuildShip("red", t.edges[e]))
        else:
            assert refusal(game, BuildShip("red", t.edges[e])).rule == "4.7.8"
    sail_to(game, "red", mark)
    assert route_end(game, "red") == mark
    sail_to(game, "red", fortress)  # then on to the fortress
    assert route_end(game, "red") == fortress
    give(game, "red", lumber=1, wool=1)
    assert not any(isinstance(a, BuildShip) for a in game.legal_actions())  # not past it


def test_a_ship_that_would_block_another_route_is_refused():  # 4.7.8
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    pirates = hook(game)
    t = game.topology
    blue_fort = corner(game, "blue", "fortress")
    ways_in = [e for e in t.vertex_edges[blue_fort] if game.edge_sea[e]]
    assert pirates._still_open(game, 1, blocked=-1)
    # A constructed position: every way into blue's fortress but one holds a ship of orange's.
    last, *walls = ways_in
    for e in walls:
        game.edge_owner[e], game.edge_kind[e] = 3, 2
    assert pirates._still_open(game, 1, blocked=-1)
    assert not pirates._still_open(game, 1, blocked=last)  # taking the last way blocks blue


def test_one_ship_a_turn_by_default_and_any_number_as_an_option():  # 4.7.8 GAP
    game = pirate_game()
    found(game)
    turn_of(game, "red", AWAY)
    t = game.topology
    way = shortest_way(game, route_end(game, "red"), corner(game, "red", "mark"), 0)
    give(game, "red", lumber=2, wool=2)
    game.apply(BuildShip("red", t.edges[way[0]]))
    err = refusal(game, BuildShip("red", t.edges[way[1]]))
    assert err.rule == "4.7.8" and "one ship per turn" in err.reason
    free = pirate_game(ships_per_turn=None)
    found(free)
    turn_of(free, "red", AWAY)
    give(free, "red", lumber=2, wool=2)
    free.apply(BuildShip("red", t.edges[way[0]]))
    free.apply(BuildShip("red", t.edges[way[1]]))


# -- 4.7.9-4.7.11: warships -------------------------------------------------------------------


def test_a_knight_arms_the_ordinary_ship_nearest_home():  # 4.7.9, 4.7.11
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    sail_to(game, "red", corner(game, "red", "mark"))
    buy_card(game, "red", DevCard.KNIGHT)
    buy_card(game, "red", DevCard.KNIGHT)
    next_turn(game)
    turn_of(game, "red")
    sides, _ = hook(game).route(game, 0)
    game.apply(PlayKnight("red"))
    assert game.phase == Phase.MOVE_ROBBER
    assert game.legal_actions() == [ArmWarship("red")]  # no robber, no pirate to move
    assert refusal(game, EndTurn("red")).rule == "4.7.9"
    events = game.apply(ArmWarship("red"))
    assert events[0]["edge"] == list(game.topology.edges[sides[0]])
    assert state(game)["warships"][0] == 1 and game.phase == Phase.MAIN
    next_turn(game)
    turn_of(game, "red")
    game.apply(PlayKnight("red"))
    events = game.apply(ArmWarship("red"))
    assert events[0]["edge"] == list(game.topology.edges[sides[1]])


def test_a_knight_with_every_ship_armed_arms_nothing():  # 4.7.9
    game = pirate_game()
    found(game)
    turn_of(game, "red")
    buy_card(game, "red", DevCard.KNIGHT)
    buy_card(game, "red", DevCard.KNIGHT)
    next_turn(game)
    turn_of(game, "red")
    game.apply(PlayKnight("red"))
    game.apply(ArmWarship("red"))  # the pre-placed ship
    next_turn(game)
    turn_of(game, "red")
    game.apply(PlayKnight("red"))
    events = game.apply(ArmWarship("red"))
    assert "edge" not in events[0] and events[0]["warships"] == 1


def test_with_four_players_a_victory_point_card_arms_a_ship_and_is_spent():  # 4.7.4, 4.7.9
    game = pirate_game()
    found(game)
    turn_of(game, "red")
    buy_card(game, "red", DevCard.VICTORY_POINT)
    assert game.victory_points(0) == 4
    assert RevealVictoryPoint("red") not in game.legal_actions()  # bought this turn
    next_turn(game)
    turn_of(game, "red")
    events = game.apply(RevealVictoryPoint("red"))
    assert events[0]["card"] == "victory_point" and state(game)["warships"][0] == 1
    assert game.victory_points(0) == 3 and game.turn.played_card
    three = pirate_game(players=3)
    found(three)
    assert refusal(three, RevealVictoryPoint("red")).rule == "4.7.4"


def test_the_deck_once_empty_stays_empty():  # 4.7.10
    game = pirate_game(players=3)
    found(game)
    turn_of(game, "red")
    for card, n in game.rules.dev_deck:
        for _ in range(n):
            buy_card(game, "red", card)
    assert sum(game.deck) == 0
    give(game, "red", wool=1, grain=1, ore=1)
    assert refusal(game, BuyDevelopmentCard("red")).rule == "1.10.6"


# -- 4.7.12-4.7.15: the pirate fleet and the 7 --------------------------------------------------


def fleet_at(game: Game) -> tuple[int, int]:
    return game.topology.hexes[game.pirate]


def test_the_fleet_sails_clockwise_by_the_lower_die_before_production():  # 4.7.12-4.7.13
    game = pirate_game()
    found(game)
    path = [tuple(h) for h in spec()["fleet_path"]]
    start = path.index(fleet_at(game))
    game.rng.dice.append((5, 3))
    events = game.apply(RollDice("red"))
    assert fleet_at(game) == path[(start + 3) % len(path)]
    assert events[0]["type"] == "rolled" and events[1]["type"] == "pirate_fleet"
    assert events[1]["strength"] == 3
    settle_attacks(game)
    game.apply(EndTurn("red"))
    game.rng.dice.append((4, 4))  # a double: the value of either die
    game.apply(RollDice("blue"))
    assert fleet_at(game) == path[(start + 7) % len(path)]
    # Clockwise: east along the top row of the ring, then down its eastern side.
    (q0, r0), (q1, r1), (_, r2) = path[0], path[1], path[2]
    assert (q1 - q0, r1 - r0) == (1, 0) and r2 == r1 + 1


def _fleet_hex_next_to(game: Game, v: int) -> tuple[int, int]:
    """A hex of the fleet's path with corner ``v``; the fleet is sent there by the dice."""
    t = game.topology
    path = [tuple(h) for h in spec(len(game.players))["fleet_path"]]
    return next(h for h in path if v in t.hex_vertices[t.hex_index[h]])


def sail_fleet_to(game: Game, target: tuple[int, int], armed_against: int | None = None) -> list:
    """Roll (as the current player, not a 7) so that the fleet stops on ``target``: the lower
    die is the distance along the path; if more than 6, the fleet first sails on."""
    path = [tuple(h) for h in spec(len(game.players))["fleet_path"]]
    while True:
        steps = (path.index(target) - path.index(fleet_at(game))) % len(path)
        if 1 <= steps <= 6:
            die = steps
            game.rng.dice.append((die, 6 if die != 1 else 5))
            return game.apply(RollDice(game.current_player))
        game.rng.dice.append((6, 6))
        game.apply(RollDice(game.current_player))
        settle_attacks(game)
        game.apply(EndTurn(game.current_player))


def test_the_fleet_plunders_a_weaker_defender_one_card_and_one_per_city():  # 4.7.14
    game = pirate_game()
    found(game)
    t = game.topology
    turn_of(game, "red")
    home = corner(game, "red", "home")
    give(game, "red", grain=2, ore=3)
    game.apply(BuildCity("red", t.vertices[home]))
    game.apply(EndTurn("red"))
    target = _fleet_hex_next_to(game, home)
    owners = {game.vertex_owner[v] for v in t.hex_vertices[t.hex_index[target]]} - {-1}
    set_hand(game, "red", ore=3, grain=2, wool=2)
    events = sail_fleet_to(game, target)
    fleet = next(e for e in events if e["type"] == "pirate_fleet")
    assert {a["player"] for a in fleet["attacks"]} == {game.players[o] for o in owners}
    red_attack = next(a for a in fleet["attacks"] if a["player"] == "red")
    assert red_attack["result"] == "plundered" and red_attack["cards"] == 2  # 1 + 1 city
    while state(game)["due"][0]["seat"] != 0:  # the others, each on their own (GAP)
        game.apply(game.legal_actions()[0])
    assert game.legal_actions() == [SurrenderCards("red")]
    held = state(game)["due"][0]["hand"]  # red's hand when the dice fell
    absent = next(r for r, n in zip(RESOURCES, held, strict=True) if n == 0)
    drawn = [r for r, n in zip(RESOURCES, held, strict=True) for _ in range(n)][:2]
    # Cards red did not hold when the fleet came are refused; the table's draw is accepted.
    assert refusal(game, SurrenderCards("red", Cards.from_list([absent] * 2))).rule == "4.7.14"
    assert refusal(game, SurrenderCards("red", Cards.from_list(drawn[:1]))).rule == "4.7.14"
    assert refusal(game, EndTurn(game.current_player)).rule == "4.7.14"
    before = sum(game.hands[0])
    game.apply(SurrenderCards("red", Cards.from_list(drawn)))
    assert sum(game.hands[0]) == before - 2


def test_the_engine_draws_the_plundered_cards_from_the_hand_before_the_roll():  # 4.7.14
    game = pirate_game(rng=Script(picks=[]))
    found(game)
    home = corner(game, "red", "home")
    target = _fleet_hex_next_to(game, home)
    set_hand(game, "red", wool=1)
    events = sail_fleet_to(game, target)
    while state(game)["due"] and state(game)["due"][0]["seat"] != 0:
        game.apply(game.legal_actions()[0])
    red_attack = next(a for a in events[1]["attacks"] if a["player"] == "red")
    assert red_attack["cards"] == 1
    give(game, "red", brick=5)  # as if the roll's production had brought them
    # The scripted draw takes the first card it may: brick, were the whole hand drawn from.
    resolved = game.resolve(SurrenderCards("red"))
    assert resolved == SurrenderCards("red", Cards.of(wool=1))


def sail_fleet_to_just_before(game, target):  # noqa: ANN001, ANN201
    """Play whole turns rolling a 1 for the fleet until it stands one hex before ``target``."""
    path = [tuple(h) for h in spec()["fleet_path"]]
    while (path.index(target) - path.index(fleet_at(game))) % len(path) != 1:
        game.rng.dice.append((1, 3))
        game.apply(RollDice(game.current_player))
        settle_attacks(game)
        game.apply(EndTurn(game.current_player))


def test_a_defender_with_more_warships_takes_booty_and_a_tie_does_nothing():  # 4.7.14
    game = pirate_game()
    found(game)
    turn_of(game, "red")
    arm(game, "red", 1)  # one warship: a fleet of strength 1 ties
    home = corner(game, "red", "home")
    target = _fleet_hex_next_to(game, home)
    game.apply(EndTurn("red"))
    sail_fleet_to_just_before(game, target)  # then a 1 brings it there
    game.rng.dice.append((1, 2))
    events = game.apply(RollDice(game.current_player))
    red_attack = next(a for a in events[1]["attacks"] if a["player"] == "red")
    assert red_attack["result"] == "tie"
    assert all(d["seat"] != 0 for d in state(game)["due"])


def test_a_repelled_fleet_pays_booty_of_the_defenders_choice():  # 4.7.14
    game = pirate_game()
    found(game)
    turn_of(game, "red", AWAY)
    give(game, "red", lumber=1, wool=1)
    way = shortest_way(game, route_end(game, "red"), corner(game, "red", "mark"), 0)
    game.apply(BuildShip("red", game.topology.edges[way[0]]))
    arm(game, "red", 2)  # two warships beat a fleet of strength 1
    assert state(game)["warships"][0] == 2
    home = corner(game, "red", "home")
    target = _fleet_hex_next_to(game, home)
    game.apply(EndTurn("red"))
    sail_fleet_to_just_before(game, target)
    game.rng.dice.append((1, 4))
    events = game.apply(RollDice(game.current_player))
    red_attack = next(a for a in events[1]["attacks"] if a["player"] == "red")
    assert red_attack["result"] == "repelled"
    while state(game)["due"][0]["seat"] != 0:
        game.apply(game.legal_actions()[0])
    legal = game.legal_actions()
    assert {a.resource for a in legal} == set(RESOURCES) and all(a.player == "red" for a in legal)
    ore = game.hands[0][4]
    game.apply(TakeBooty("red", Resource.ORE))
    assert game.hands[0][4] == ore + 1


def test_a_seven_raids_any_player_after_the_discards():  # 4.7.15
    game = pirate_game()
    found(game)
    for c in COLORS:
        set_hand(game, c)
    set_hand(game, "orange", brick=2)  # even if the fleet plunders orange, a brick is left
    set_hand(game, "blue", wool=9)
    game.rng.dice.append((3, 4))
    game.apply(RollDice("red"))
    settle_attacks(game)
    assert game.phase == Phase.DISCARD
    assert refusal(game, Raid("red", "orange")).rule == "4.7.15"
    game.apply(Discard("blue", Cards.of(wool=4)))
    assert set(game.legal_actions()) == {Raid("red", "orange"), Raid("red", "blue")}
    assert refusal(game, Raid("red")).rule == "4.7.15"  # someone holds cards: choose
    events = game.apply(Raid("red", "orange"))
    assert events[0]["stolen"] == "brick" and game.hands[0][1] == 1  # no adjacency needed
    assert game.phase == Phase.MAIN


def test_the_fleets_plunder_comes_before_the_discards_of_a_seven():  # 4.7.13
    game = pirate_game()
    found(game)
    for c in COLORS:
        set_hand(game, c)
    home = corner(game, "red", "home")
    target = _fleet_hex_next_to(game, home)
    path = [tuple(h) for h in spec()["fleet_path"]]
    while not 1 <= (path.index(target) - path.index(fleet_at(game))) % len(path) <= 3:
        game.rng.dice.append((6, 6))
        game.apply(RollDice(game.current_player))
        settle_attacks(game)
        game.apply(EndTurn(game.current_player))
    steps = (path.index(target) - path.index(fleet_at(game))) % len(path)
    set_hand(game, "red", ore=8)  # 8 cards: must discard 4... unless the fleet takes one
    game.rng.dice.append((steps, 7 - steps))
    game.apply(RollDice(game.current_player))
    while state(game)["due"] and state(game)["due"][0]["seat"] != 0:
        game.apply(game.legal_actions()[0])
    assert game.to_discard.get(0) == 4
    game.apply(SurrenderCards("red"))
    assert sum(game.hands[0]) == 7 and 0 not in game.to_discard


# -- 4.7.16-4.7.20: pirate islands, fortresses, the end ---------------------------------------


def test_on_a_pirate_island_only_the_own_mark_is_built_on():  # 4.7.16
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    t = game.topology
    mark, fortress = corner(game, "red", "mark"), corner(game, "red", "fortress")
    reach_fortress(game, "red")
    _, corners = hook(game).route(game, 0)
    unmarked = [
        v
        for v in corners
        if game.vertex_land[v]
        and v not in east_corners(game)
        and v not in (mark, fortress)
        and game._settlement_spot_error(0, v, False) is not None
        and game._settlement_spot_error(0, v, False).rule == "4.7.16"
    ]
    assert unmarked  # the route runs along the pirate island's coast
    give(game, "red", lumber=1, brick=1, wool=1, grain=1)
    assert refusal(game, BuildSettlement("red", t.vertices[unmarked[0]])).rule == "4.7.16"
    assert refusal(game, BuildSettlement("red", t.vertices[fortress])).rule == "4.7.16"
    game.apply(BuildSettlement("red", t.vertices[mark]))
    assert game.vertex_owner[mark] == 0
    give(game, "red", grain=2, ore=3)
    game.apply(BuildCity("red", t.vertices[mark]))  # and it may become a city


def reach_fortress(game: Game, color: str) -> None:
    sail_to(game, color, corner(game, color, "mark"))
    sail_to(game, color, corner(game, color, "fortress"))


def test_an_attack_needs_the_route_at_the_fortress_and_the_die_may_come_from_the_table():
    game = pirate_game(ships_per_turn=None)  # 4.7.17
    found(game)
    turn_of(game, "red")
    assert refusal(game, AttackFortress("red")).rule == "4.7.17"
    reach_fortress(game, "red")
    assert AttackFortress("red") in game.legal_actions()
    assert refusal(game, AttackFortress("red", die=7)).rule == "4.7.17"
    assert action_from_json(action_to_json(AttackFortress("red", 4))) == AttackFortress("red", 4)


@pytest.mark.parametrize(
    ("warships", "die", "strength", "lost"),
    [(3, 2, 2, 0), (2, 2, 3, 1), (1, 2, 3, 2)],
    ids=["more warships: a chip off", "equal: one ship lost", "fewer: two ships lost"],
)
def test_a_fortress_attack_and_its_three_outcomes(warships, die, strength, lost):  # 4.7.17-18
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    reach_fortress(game, "red")
    sides, _ = hook(game).route(game, 0)
    state(game)["warships"][0] = warships  # as if armed by as many knights (tested above)
    ships = game.ships_left[0]
    events = game.apply(AttackFortress("red", die=die))
    assert events[0]["type"] == "fortress_attack"
    assert state(game)["fortresses"][0] == strength
    assert game.ships_left[0] == ships + lost
    assert [game.edge_owner[e] for e in sides[len(sides) - lost :]] == [-1] * lost
    assert game.current_player == "blue"  # 4.7.18: the attack ended red's turn
    if lost:  # the route must be rebuilt before the next attack
        turn_of(game, "red")
        assert refusal(game, AttackFortress("red")).rule == "4.7.17"


def test_capturing_gives_the_fortress_settlement_with_its_point_and_production():  # 4.7.19
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    reach_fortress(game, "red")
    arm(game, "red", 4)
    fortress = corner(game, "red", "fortress")
    vp = game.victory_points(0)
    for attack in range(3):
        if attack:
            turn_of(game, "red")
        events = game.apply(AttackFortress("red", die=1))
        assert state(game)["fortresses"][0] == 2 - attack
    assert any(e["type"] == "fortress_captured" for e in events)
    assert game.vertex_owner[fortress] == 0 and game.victory_points(0) == vp + 1
    assert hook(game).pieces_aside(game, 0) == {}
    t = game.topology
    h = next(h for h in t.vertex_hexes[fortress] if game.hex_resource[h] >= 0)
    number = game.board.tiles[t.hexes[h]].number
    set_hand(game, "red")  # nothing for the fleet to plunder
    low = max(1, number - 6)
    roll(game, (low, number - low))
    assert game.hands[0][game.hex_resource[h]] >= 1


def test_ten_points_win_only_with_the_own_fortress_captured():  # 4.7.20
    game = pirate_game(ships_per_turn=None)
    found(game)
    turn_of(game, "red")
    for _ in range(5):
        buy_card(game, "red", DevCard.VICTORY_POINT)
    for v in sorted(game.buildings_of[0])[:2]:
        give(game, "red", grain=2, ore=3)
        game.apply(BuildCity("red", game.topology.vertices[v]))
    assert game.victory_points(0) == 10 and game.phase != Phase.GAME_OVER
    assert not hook(game).may_win(game, 0)
    game.apply(EndTurn("red"))
    assert game.winner is None


def test_the_fleet_leaves_when_every_fortress_is_captured():  # 4.7.20
    game = pirate_game(players=3, ships_per_turn=None)
    found(game)
    # A constructed position: red's and blue's fortresses fell (as captured above); white's,
    # on the third position, has one chip left.
    state(game)["fortresses"] = [0, 0, 1]
    turn_of(game, "white")
    reach_fortress(game, "white")
    arm(game, "white", 2)
    events = game.apply(AttackFortress("white", die=1))
    assert {"type": "fleet_removed"} in events and game.pirate is None
    next_turn(game)
    game.rng.dice.append((2, 3))
    events = game.apply(RollDice(game.current_player))
    assert not any(e["type"] == "pirate_fleet" for e in events)


# -- a whole game --------------------------------------------------------------------------------


def test_a_scripted_game_won_by_capturing_the_fortress_with_ten_points():
    """Red sails its route one ship a turn, settles its mark, arms four warships, builds cities,
    keeps a victory point card and takes its fortress in three attacks: the third wins.

    Every roll is a 12, which no building touches: nobody's hand grows but red's, as scripted.
    """
    game = pirate_game(rng=Script())
    found(game)
    t = game.topology
    quiet = (6, 6)
    mark, fortress = corner(game, "red", "mark"), corner(game, "red", "fortress")
    turns = 0
    while route_end(game, "red") != fortress:
        turn_of(game, "red", quiet)
        goal = fortress if mark in hook(game).route(game, 0)[1] else mark
        e = shortest_way(game, route_end(game, "red"), goal, 0)[0]
        set_hand(game, "red", lumber=1, wool=1)
        if game.is_legal(BuildShip("red", t.edges[e])):  # unless the fleet lies there (3.6.4)
            game.apply(BuildShip("red", t.edges[e]))
        if route_end(game, "red") == mark:
            set_hand(game, "red", lumber=1, brick=1, wool=1, grain=1)
            game.apply(BuildSettlement("red", t.vertices[mark]))
        next_turn(game, quiet)
        turns += 1
        assert turns < 40
    # four knights, one a turn, each arming the ship nearest home
    turn_of(game, "red", quiet)
    for _ in range(4):
        set_hand(game, "red", wool=1, grain=1, ore=1)
        game.apply(BuyDevelopmentCard("red", DevCard.KNIGHT))
    for _ in range(4):
        next_turn(game, quiet)
        turn_of(game, "red", quiet)
        game.apply(PlayKnight("red"))
        game.apply(ArmWarship("red"))
    assert state(game)["warships"][0] == 4
    for v in sorted(game.buildings_of[0]):
        set_hand(game, "red", grain=2, ore=3)
        game.apply(BuildCity("red", t.vertices[v]))
    set_hand(game, "red", wool=1, grain=1, ore=1)
    game.apply(BuyDevelopmentCard("red", DevCard.VICTORY_POINT))
    for attack in range(3):
        if attack:
            turn_of(game, "red", quiet)
        assert game.winner is None
        events = game.apply(AttackFortress("red", die=attack + 1))  # 4 warships beat 1, 2, 3
    assert game.phase == Phase.GAME_OVER and game.winner_color == "red"
    # The score, counted from the board and the cards, not from the engine's tally.
    snap = game.snapshot()
    mine = [b for b in snap["buildings"] if b[1] == "red"]
    score = sum(2 if kind == "city" else 1 for _, _, kind in mine) + snap["dev_hands"]["red"][1]
    assert len(mine) == 5 and [list(t.vertices[fortress]), "red", "settlement"] in mine
    assert score == 4 * 2 + 1 + 1 == 10
    won = next(e for e in events if e["type"] == "won")
    assert won["victory_points"] == score


def test_pirate_islands_survive_the_journal(tmp_path):
    from companion.journal import JournaledGame

    s = load_scenario("pirate-islands", 4, seed=4)
    jg = JournaledGame.create(tmp_path / "pi.sqlite", s.board, COLORS, s.rules, seed=4)
    bot = GreedyBot(seed=4)
    kinds = set()
    while jg.game.phase != Phase.GAME_OVER:
        action = bot.choose(jg.game)
        kinds.add(action.type)
        jg.apply(action)
    assert {"attack_fortress", "arm_warship", "surrender_cards", "raid"} <= kinds
    jg.close()
    again = JournaledGame.open(tmp_path / "pi.sqlite")
    assert again.damage is None and again.game.snapshot() == jg.game.snapshot()
    again.close()


def test_the_panel_shows_the_fleet_fortresses_and_warships():
    game = pirate_game()
    found(game)
    panels = game.public_view()["scenario"]["panels"]
    panel = next(p for p in panels if p["hook"] == "pirate_islands")
    titles = [s["title"] for s in panel["sections"]]
    assert titles == [
        "Pirate fleet",
        "Fortresses (Catan chips left)",
        "Warships",
        "Routes: mark, then fortress",
    ]
    assert [i["value"] for i in panel["sections"][1]["items"]] == [3, 3, 3, 3]
    red = panel["sections"][3]["items"][0]
    assert red["value"] == "1 ships"  # the pre-placed one
    fortress = game.board.tiles[(2, -3)]  # red's fortress (2, -3, N) stands by this one hex
    assert f"fortress by the {fortress.terrain.value} {fortress.number} (2, -3, 'N')" in red["text"]


# -- §7.4: the set-up checks of a board at the table -----------------------------------------


def _board_with_pieces(players: int = 4) -> tuple[Any, Any]:
    """The scenario's board with every position set out as the diagram shows."""
    from companion.board import Piece

    s = load_scenario("pirate-islands", players, seed=2)
    pieces = []
    for pos, color in zip(spec(players)["positions"], COLORS, strict=False):
        pieces.append(Piece("settlement", color, vertex=vertex(*pos["home"])))
        pieces.append(Piece("ship", color, edge=edge(*pos["ship"])))
        pieces.append(Piece("settlement", color, vertex=vertex(*pos["fortress"])))
    return replace(s.board, pieces=pieces), s.setup


def _rules_broken(board: Any, setup: Any, players: int = 4) -> set[str]:
    from companion.setup_check import check_board

    return {v.rule for v in check_board(board, setup, players).violations}


def test_the_scenario_board_set_out_as_the_diagram_passes_every_check(tmp_path):
    from companion.cli import main

    board, setup = _board_with_pieces()
    assert {"S7-FIXED", "S7-PREPLACED", "S7-NO-SPECIAL-CARDS", "S7-FOUND-EAST"} <= set(setup.rules)
    assert _rules_broken(board, setup) == set()
    path = tmp_path / "pirates.json"
    board.save(path)
    assert main(["check-setup", str(path), "--scenario", "pirate-islands", "--players", "4"]) == 0


def test_s7_fixed_a_moved_chip_breaks_the_diagram():
    board, setup = _board_with_pieces()
    tiles = dict(board.tiles)
    nine = next(h for h, t in sorted(tiles.items()) if t.number == 9)
    ten = next(h for h, t in sorted(tiles.items()) if t.number == 10)
    tiles[nine], tiles[ten] = replace(tiles[nine], number=10), replace(tiles[ten], number=9)
    assert "S7-FIXED" in _rules_broken(replace(board, tiles=tiles), setup)


def test_s7_preplaced_a_missing_ship_or_a_wrong_fortress_colour_is_reported():
    board, setup = _board_with_pieces()
    no_ship = [p for p in board.pieces if not (p.kind == "ship" and p.color == "blue")]
    assert _rules_broken(replace(board, pieces=no_ship), setup) == {"S7-PREPLACED"}
    blue_fortress = vertex(*spec()["positions"][1]["fortress"])
    swapped = [replace(p, color="orange") if p.vertex == blue_fortress else p for p in board.pieces]
    assert "S7-PREPLACED" in _rules_broken(replace(board, pieces=swapped), setup)


def test_s7_3p_the_unused_position_stays_empty():
    from companion.board import Piece

    board, setup = _board_with_pieces(players=3)
    assert _rules_broken(board, setup, 3) == set()
    white = next(p for p in spec(4)["positions"] if p["color"] == "white")
    intruder = Piece("settlement", "white", vertex=vertex(*white["home"]))
    crowded = replace(board, pieces=[*board.pieces, intruder])
    assert "S7-3P" in _rules_broken(crowded, setup, 3)


def test_s7_no_special_cards_no_robber_but_where_it_is_parked():
    board, setup = _board_with_pieces()
    assert _rules_broken(replace(board, robber=None), setup) == set()
    elsewhere = next(h for h, t in sorted(board.tiles.items()) if t.terrain == Terrain.FOREST)
    assert _rules_broken(replace(board, robber=elsewhere), setup) == {"S7-NO-SPECIAL-CARDS"}


def test_s7_found_east_no_settlement_off_the_eastern_island_but_marks_and_fortresses():
    from companion.board import Piece

    board, setup = _board_with_pieces()
    red = spec()["positions"][0]
    on_mark = Piece("settlement", "red", vertex=vertex(*red["mark"]))
    assert _rules_broken(replace(board, pieces=[*board.pieces, on_mark]), setup) == set()
    s = load_scenario("pirate-islands", 4, seed=2)
    west = next(iter(sorted(s.areas["west"])))
    stray = Piece("settlement", "red", vertex=vertex(west[0], west[1], "S"))
    assert "S7-FOUND-EAST" in _rules_broken(replace(board, pieces=[*board.pieces, stray]), setup)


def test_lost_warships_go_back_to_the_supply_too():  # 4.7.18 GAP
    """A home-made map whose red fortress lies three sides from home: every ship is armed, a 6
    beats the three warships and the two ships nearest the fortress sink, warships or not."""
    base = pirate_game()
    t = base.topology
    red = spec()["positions"][0]
    home = t.vertex_index[vertex(*red["home"])]
    first = t.edge_index[edge(*red["ship"])]
    a, b = t.edge_vertices[first]
    corners = [home, b if a == home else a]
    while len(corners) < 4:  # two more sea sides straight on, away from home
        v = corners[-1]
        nxt = next(
            w
            for e in t.vertex_edges[v]
            if base.edge_sea[e] and base.edge_owner[e] == -1
            for w in t.edge_vertices[e]
            if w not in corners and all(base.vertex_owner[x] == -1 for x in t.vertex_neighbours[w])
        )
        corners.append(nxt)
    mark, fortress = (list(t.vertices[v]) for v in corners[2:])
    positions = [{**red, "mark": mark, "fortress": fortress}, *spec()["positions"][1:]]
    game = pirate_game(positions=positions, ships_per_turn=None)
    found(game)
    turn_of(game, "red", AWAY)
    reach_fortress(game, "red")
    assert len(hook(game).route(game, 0)[0]) == 3
    arm(game, "red", 3)
    assert state(game)["warships"][0] == 3
    ships = game.ships_left[0]
    events = game.apply(AttackFortress("red", die=6))
    assert events[0]["result"] == "lost" and game.ships_left[0] == ships + 2
    assert state(game)["warships"][0] == 1


def test_more_players_than_positions_is_refused():
    s = load_scenario("pirate-islands", 3, seed=1)
    with pytest.raises(ValueError, match="4 players but the map has 3 positions"):
        Game(s.board, COLORS, s.rules, Script())


def test_a_computer_player_takes_the_hooks_word_only_where_it_gives_one():
    game = pirate_game()
    found(game)
    bot = GreedyBot(seed=1)
    t = game.topology
    way = shortest_way(game, route_end(game, "red"), corner(game, "red", "mark"), 0)
    assert bot.score(game, BuildShip("red", t.edges[way[0]])) == 60  # the route: the hook's
    assert bot.score(game, EndTurn("red")) == 5  # the base game's own rule of thumb
    assert bot.score(game, AttackFortress("red")) < 5  # no warships yet: not worth it


def test_the_fleet_bars_ships_from_its_sides_unless_the_table_says_not():  # 3.6.4 here
    blocking, free = pirate_game(), pirate_game(fleet_blocks_ships=False)
    assert free.pirate is None and state(free)["fleet"] == list(blocking.board.pirate)
    for game in (blocking, free):
        found(game)
        turn_of(game, "red", (1, 2))  # one hex on: beside red's pre-placed ship
    assert state(free)["fleet"] == list(fleet_at(blocking))
    t = blocking.topology
    fleet = t.hex_index[fleet_at(blocking)]
    end = route_end(blocking, "red")
    mark = corner(blocking, "red", "mark")
    best = len(shortest_way(blocking, end, mark, 0))
    beside = [
        e
        for e in t.vertex_edges[end]
        if e in t.hex_edges[fleet]
        and blocking.edge_owner[e] == -1
        and len(shortest_way(blocking, next(v for v in t.edge_vertices[e] if v != end), mark, 0))
        == best - 1
    ]
    assert beside  # the fleet lies on red's way
    for game in (blocking, free):
        give(game, "red", lumber=1, wool=1)
    assert refusal(blocking, BuildShip("red", t.edges[beside[0]])).rule == "3.6.4"
    free.apply(BuildShip("red", t.edges[beside[0]]))
