"""Seafarers general rules (RULES.md §3) on a small map of our own.

The map: a seven-hex main island (centre (0, 0) and its ring), a ring of sea around it, and in
the outer ring a two-hex islet of gold (3, -2) and mountains (3, -1); the rest of the outer ring
is sea too. The pirate starts on (0, -3), the robber on the main island's desert (0, 0)::

    main island          (0,-1) fields 5   (1,-1) hills 6
                   (-1,0) forest 8  (0,0) desert   (1,0) pasture 9
                         (-1,1) mountains 4  (0,1) forest 10
    islet                (3,-2) gold 8     (3,-1) mountains 6
"""

from __future__ import annotations

import random

import pytest
from conftest import E, Script, V, dice_for, hand, refusal, set_hand

from companion.actions import (
    BuildRoad,
    BuildSettlement,
    BuildShip,
    Cards,
    ChooseGold,
    EndTurn,
    MovePirate,
    MoveRobber,
    MoveShip,
    PlayRoadBuilding,
    RollDice,
)
from companion.board import Board, Terrain, Tile, hex_distance
from companion.game import Game, IllegalAction, Phase, Rules

LAND = {
    (0, -1): (Terrain.FIELDS, 5),
    (1, -1): (Terrain.HILLS, 6),
    (-1, 0): (Terrain.FOREST, 8),
    (0, 0): (Terrain.DESERT, None),
    (1, 0): (Terrain.PASTURE, 9),
    (-1, 1): (Terrain.MOUNTAINS, 4),
    (0, 1): (Terrain.FOREST, 10),
    (3, -2): (Terrain.GOLD, 8),
    (3, -1): (Terrain.MOUNTAINS, 6),
}


def sea_board() -> Board:
    tiles = {}
    for q in range(-3, 4):
        for r in range(-3, 4):
            if hex_distance((q, r), (0, 0)) <= 3:
                terrain, number = LAND.get((q, r), (Terrain.SEA, None))
                tiles[(q, r)] = Tile(terrain, number)
    return Board("seafarers", tiles, [], robber=(0, 0), pirate=(0, -3))


def sea_game(script: Script | None = None) -> Game:
    return Game(sea_board(), ["red", "blue"], Rules(ships=15), script or Script())


# Red founds at (1, 0, N): hills 6, pasture 9 and the sea (2, -1), facing the islet. From there
# ships run (1, 0, N) -> (2, -2, S) -> (2, -1, N), the islet's corner on the gold field.
RED_HOME = V(1, 0, "N")
RED_NORTH = V(0, -1, "N")
ISLET = V(2, -1, "N")  # gold 8 and two sea hexes
SHIP_1 = E(1, -1, "E")  # home -> (2, -2, S), hills / sea
SHIP_2 = E(2, -2, "SE")  # (2, -2, S) -> islet, sea / sea
SHIP_3 = E(2, -1, "NE")  # islet -> (3, -2, S), sea / gold
BLUE_HOME = V(-2, 1, "N")  # forest 8
BLUE_SOUTH = V(-1, 2, "N")  # mountains 4, forest 10


def founded(script: Script | None = None, red_ship: bool = True) -> Game:
    game = sea_game(script)
    game.apply(BuildSettlement("red", RED_HOME))
    game.apply((BuildShip if red_ship else BuildRoad)("red", SHIP_1))
    game.apply(BuildSettlement("blue", BLUE_HOME))
    game.apply(BuildRoad("blue", E(-2, 1, "NE")))
    game.apply(BuildSettlement("blue", BLUE_SOUTH))
    game.apply(BuildRoad("blue", E(-1, 2, "NE")))
    game.apply(BuildSettlement("red", RED_NORTH))
    game.apply(BuildRoad("red", E(0, -1, "NE")))
    assert game.phase == Phase.ROLL
    return game


def main_phase(game: Game, total: int = 3) -> None:
    game.rng.dice.append(dice_for(total))
    game.apply(RollDice(game.current_player))


def next_round(game: Game) -> None:
    """End red's turn, let blue roll and end, and roll for red again."""
    game.apply(EndTurn("red"))
    main_phase(game)
    game.apply(EndTurn("blue"))
    main_phase(game)


def touches(game: Game, e, v) -> bool:
    t = game.topology
    return t.vertex_index[v] in t.edge_vertices[t.edge_index[e]]


def test_a_ship_may_replace_the_founding_road_but_only_on_the_coast():
    game = founded()
    assert [r[1:] for r in game.snapshot()["roads"] if r[2] == "ship"] == [["red", "ship"]]
    game2 = sea_game()
    game2.apply(BuildSettlement("red", RED_HOME))
    with pytest.raises(IllegalAction) as err:
        game2.apply(BuildShip("red", E(1, -1, "SE")))  # hills / pasture: land on both sides
    assert err.value.rule == "3.2.2"
    plain = Game(sea_board(), ["red", "blue"], Rules(), Script())  # no Seafarers: no ships
    plain.apply(BuildSettlement("red", RED_HOME))
    with pytest.raises(IllegalAction) as err:
        plain.apply(BuildShip("red", SHIP_1))
    assert err.value.rule == "3.2.1"


def test_ship_costs_lumber_and_wool_and_must_touch_a_ship_or_building():
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=2, wool=2)
    game.apply(BuildShip("red", SHIP_2))
    assert hand(game, "red") == {"lumber": 1, "wool": 1}
    with pytest.raises(IllegalAction) as err:
        game.apply(BuildShip("red", E(-3, 1, "E")))  # far from every red piece
    assert err.value.rule == "3.2.3"
    set_hand(game, "red", lumber=1)
    with pytest.raises(IllegalAction) as err:
        game.apply(BuildShip("red", SHIP_3))
    assert err.value.rule == "1.9.1"


def test_ships_and_roads_join_only_at_an_own_building():
    game = founded(red_ship=False)  # red's founding road runs along the coast to (2, -2, S)
    free_end = V(2, -2, "S")
    spots = game.ship_spots("red")
    assert spots and not [e for e in spots if touches(game, e, free_end)]
    assert any(touches(game, e, RED_HOME) for e in spots)


def test_only_the_open_end_ship_moves_once_per_turn_and_not_when_just_built():
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=1, wool=1)
    game.apply(BuildShip("red", SHIP_2))
    with pytest.raises(IllegalAction) as err:  # built this turn
        game.apply(MoveShip("red", SHIP_2, E(1, -1, "NE")))
    assert err.value.rule == "3.4.5"
    next_round(game)
    with pytest.raises(IllegalAction) as err:  # the inner ship is no open end
        game.apply(MoveShip("red", SHIP_1, E(1, 0, "NE")))
    assert err.value.rule == "3.4.2"
    assert MoveShip("red", SHIP_2, E(1, -1, "NE")) in game.legal_actions()
    game.apply(MoveShip("red", SHIP_2, E(1, -1, "NE")))
    with pytest.raises(IllegalAction) as err:
        game.apply(MoveShip("red", E(1, -1, "NE"), SHIP_2))
    assert err.value.rule == "3.4.5"


def test_a_closed_route_cannot_move():
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=2, wool=2, brick=1, grain=1)
    game.apply(BuildShip("red", SHIP_2))
    assert ISLET in game.settlement_spots("red")
    game.apply(BuildSettlement("red", ISLET))
    next_round(game)
    assert not [a for a in game.legal_actions() if isinstance(a, MoveShip)]
    with pytest.raises(IllegalAction) as err:
        game.apply(MoveShip("red", SHIP_2, E(1, -1, "NE")))
    assert err.value.rule == "3.4.2"


def test_the_pirate_goes_to_sea_steals_optionally_and_blocks_ships():
    game = founded()
    main_phase(game)
    game.apply(EndTurn("red"))
    set_hand(game, "red", ore=1)
    game.rng.dice.append((3, 4))
    game.apply(RollDice("blue"))
    kinds = {type(a) for a in game.legal_actions()}
    assert kinds == {MoveRobber, MovePirate}  # 3.6.6: one or the other
    with pytest.raises(IllegalAction) as err:
        game.apply(MovePirate("blue", (0, 0)))
    assert err.value.rule == "3.6.2"
    with pytest.raises(IllegalAction) as err:
        game.apply(MovePirate("blue", (0, -3)))
    assert err.value.rule == "3.6.2"
    # red's founding ship lies on a side of (2, -1): blue may rob red, or not (3.6.3)
    assert MovePirate("blue", (2, -1), "red") in game.legal_actions()
    game.apply(MovePirate("blue", (2, -1)))
    assert hand(game, "red") == {"ore": 1}
    game.apply(EndTurn("blue"))
    main_phase(game)
    set_hand(game, "red", lumber=1, wool=1)
    with pytest.raises(IllegalAction) as err:  # SHIP_2 is a side of the pirate's hex
        game.apply(BuildShip("red", SHIP_2))
    assert err.value.rule == "3.6.4"
    with pytest.raises(IllegalAction) as err:
        game.apply(MoveShip("red", SHIP_1, E(1, 0, "NE")))
    assert err.value.rule == "3.6.4"


def test_the_pirate_steals_a_card_from_a_ship_owner():
    game = founded()
    main_phase(game)
    game.apply(EndTurn("red"))
    set_hand(game, "red", ore=1)
    game.rng.dice.append((3, 4))
    game.apply(RollDice("blue"))
    blue_ore = hand(game, "blue").get("ore", 0)
    game.apply(MovePirate("blue", (2, -1), "red"))
    assert hand(game, "red") == {} and hand(game, "blue")["ore"] == blue_ore + 1


def test_gold_field_production_is_chosen_and_paid_with_the_rest():
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=2, wool=2, brick=1, grain=1)
    game.apply(BuildShip("red", SHIP_2))
    game.apply(BuildSettlement("red", ISLET))
    game.apply(EndTurn("red"))
    blue_lumber = hand(game, "blue").get("lumber", 0)
    game.rng.dice.append(dice_for(8))  # gold 8 (red) and forest 8 (blue)
    game.apply(RollDice("blue"))
    assert game.phase == Phase.CHOOSE_GOLD and game.gold_due == {game.seat("red"): 1}
    assert hand(game, "blue").get("lumber", 0) == blue_lumber  # paid once the choice is in
    with pytest.raises(IllegalAction) as err:
        game.apply(ChooseGold("red", Cards.of(ore=2)))
    assert err.value.rule == "3.7.2"
    with pytest.raises(IllegalAction) as err:
        game.apply(EndTurn("blue"))
    assert err.value.rule == "3.7.2"
    game.apply(ChooseGold("red", Cards.of(brick=1)))
    assert game.phase == Phase.MAIN
    assert hand(game, "red")["brick"] == 1
    assert hand(game, "blue")["lumber"] == blue_lumber + 1


def test_gold_in_the_founding_phase_gives_a_choice():
    game = sea_game()
    game.apply(BuildSettlement("red", RED_HOME))
    game.apply(BuildShip("red", SHIP_1))
    game.apply(BuildSettlement("blue", BLUE_HOME))
    game.apply(BuildRoad("blue", E(-2, 1, "NE")))
    game.apply(BuildSettlement("blue", BLUE_SOUTH))
    game.apply(BuildRoad("blue", E(-1, 2, "NE")))
    game.apply(BuildSettlement("red", V(3, -1, "N")))  # mountains 6 and gold 8
    assert game.phase == Phase.CHOOSE_GOLD
    game.apply(ChooseGold("red", Cards.of(grain=1)))
    assert game.phase == Phase.FOUNDING_ROAD
    assert hand(game, "red") == {"grain": 1, "ore": 1}


def test_longest_trade_route_joins_roads_and_ships_at_an_own_settlement():
    game = founded()
    red = game.seat("red")
    main_phase(game)
    set_hand(game, "red", lumber=4, wool=2, brick=2)
    game.apply(BuildShip("red", SHIP_2))
    game.apply(BuildShip("red", SHIP_3))
    game.apply(BuildRoad("red", E(1, -1, "SE")))  # home -> (1, -1, S)
    game.apply(BuildRoad("red", E(0, 0, "NE")))  # (1, -1, S) -> (0, 0, N)
    assert game.road_lengths[red] == 5  # two roads, the home settlement, three ships


def test_road_building_may_place_ships():
    game = founded()
    main_phase(game)
    red = game.seat("red")
    game.dev_hands[red][2] = 1  # a Road Building card bought in an earlier turn
    game.deck[2] -= 1
    game.apply(PlayRoadBuilding("red"))
    game.apply(BuildShip("red", SHIP_2))
    game.apply(BuildRoad("red", E(0, -1, "NW")))
    assert game.phase == Phase.MAIN
    assert game.ships_left[red] == 13 and game.roads_left[red] == 13


@pytest.mark.parametrize("seed", range(3))
def test_random_seafarers_games_keep_every_card_and_piece(seed):
    rng = random.Random(seed)
    game = Game(sea_board(), ["red", "blue", "white"], Rules(ships=15), rng=seed)
    kinds_seen = set()
    for _ in range(3000):
        if game.phase == Phase.GAME_OVER:
            break
        action = rng.choice(game.legal_actions())
        kinds_seen.add(type(action).__name__)
        game.apply(action)
        for r in range(5):
            assert game.bank[r] + sum(h[r] for h in game.hands) == 19
        for p in range(3):
            on_board = sum(
                1 for e, o in enumerate(game.edge_owner) if o == p and game.edge_kind[e] == 2
            )
            assert on_board + game.ships_left[p] == 15
    assert {"BuildShip", "MovePirate"} <= kinds_seen


def test_a_free_side_numbered_0_is_a_place_for_road_building():
    # Sides are numbered from 0: "is there a place" must not read side 0 as "no".
    game = founded()
    red = game.seat("red")
    game._road_edges = lambda p, kind=1: iter([0])  # only side 0 is free for red
    game._spots.clear()  # the open spots are kept until the board changes: judge afresh
    assert game._can_place_free_route_piece(red)
    game._road_edges = lambda p, kind=1: iter([])
    game._spots.clear()
    assert not game._can_place_free_route_piece(red)


def test_a_ship_spot_beside_the_moved_pirate_is_no_longer_listed():
    # Open spots are kept until the board changes: the pirate's move is such a change.
    game = founded()
    main_phase(game)
    set_hand(game, "red", lumber=1, wool=1)
    assert BuildShip("red", SHIP_2) in game.legal_actions()
    game.apply(EndTurn("red"))
    game.rng.dice.append((3, 4))
    game.apply(RollDice("blue"))
    game.apply(MovePirate("blue", (2, -1)))  # SHIP_2 is a side of (2, -1)
    game.apply(EndTurn("blue"))
    main_phase(game)
    assert BuildShip("red", SHIP_2) not in game.legal_actions()
    assert refusal(game, BuildShip("red", SHIP_2)).rule == "3.6.4"
