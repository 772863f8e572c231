"""RULES.md 1.4: the founding phase (and the parts of 1.9 that apply in it)."""

from collections import Counter

from conftest import (
    FOUNDING_3,
    LAYOUT,
    E,
    V,
    hand,
    new_game,
    refusal,
)

from companion.actions import BuildRoad, BuildSettlement, EndTurn, MaritimeTrade, RollDice
from companion.board import RESOURCES, Resource, Terrain, vertex_edges, vertex_hexes
from companion.game import Game, Phase


def _resources_around(v) -> dict[str, int]:
    """What 1.4.3 pays for corner ``v``: one card per producing land hex (from the layout)."""
    got: Counter[str] = Counter()
    for h in vertex_hexes(v):
        if h in LAYOUT and LAYOUT[h][0].resource is not None:
            got[LAYOUT[h][0].resource.value] += 1
    return dict(got)


def test_settlements_go_in_snake_order_and_the_start_player_then_rolls(game: Game) -> None:
    # 1.4.1 clockwise from the start player, 1.4.2 back counter-clockwise, 1.4.4 start player.
    order = []
    for v, e in FOUNDING_3:
        order.append(game.current_player)
        assert game.phase == Phase.FOUNDING_SETTLEMENT
        game.apply(BuildSettlement(game.current_player, v))
        assert game.phase == Phase.FOUNDING_ROAD
        game.apply(BuildRoad(game.current_player, e))
    assert order == ["red", "blue", "white", "white", "blue", "red"]
    assert (game.current_player, game.phase, game.turn_number) == ("red", Phase.ROLL, 1)


def test_four_players_snake_the_same_way() -> None:
    g = new_game(("red", "blue", "white", "orange"))
    spots = [
        (V(0, -1, "N"), E(0, -1, "NE")),
        (V(1, 0, "S"), E(1, 0, "SE")),
        (V(-2, 1, "N"), E(-2, 1, "NW")),
        (V(2, -1, "S"), E(2, -1, "SE")),
        (V(-1, 2, "N"), E(-1, 2, "NE")),
        (V(-1, 0, "N"), E(-1, 0, "NW")),
        (V(0, 2, "S"), E(0, 2, "SE")),
        (V(2, -2, "N"), E(2, -2, "NE")),
    ]
    order = []
    for v, e in spots:
        order.append(g.current_player)
        g.apply(BuildSettlement(g.current_player, v))
        g.apply(BuildRoad(g.current_player, e))
    assert order == ["red", "blue", "white", "orange", "orange", "white", "blue", "red"]
    assert g.current_player == "red" and g.phase == Phase.ROLL


def test_only_the_second_settlement_pays_starting_resources(game: Game) -> None:
    # 1.4.3: the first round pays nothing.
    for v, e in FOUNDING_3[:3]:
        game.apply(BuildSettlement(game.current_player, v))
        game.apply(BuildRoad(game.current_player, e))
    assert all(sum(h) == 0 for h in game.hands)
    assert game.bank == [19] * 5
    for v, e in FOUNDING_3[3:]:
        who = game.current_player
        game.apply(BuildSettlement(who, v))
        assert hand(game, who) == _resources_around(v)
        game.apply(BuildRoad(who, e))
    total = [sum(h[i] for h in game.hands) for i in range(len(RESOURCES))]
    assert [b + t for b, t in zip(game.bank, total, strict=True)] == [19] * 5


def test_desert_and_sea_give_no_starting_resources() -> None:
    # 1.4.3: (0, 0, N) touches the desert; (-1, -1, N) sits on the coast (one hex is sea).
    g = new_game(("red", "blue"))
    desert = V(0, 0, "N")
    coast = V(-1, -1, "N")
    assert sum(1 for h in vertex_hexes(coast) if h not in LAYOUT) == 1
    assert LAYOUT[(0, 0)][0] == Terrain.DESERT
    g.apply(BuildSettlement("red", V(2, -1, "S")))
    g.apply(BuildRoad("red", E(2, -1, "SE")))
    g.apply(BuildSettlement("blue", V(-1, 2, "N")))
    g.apply(BuildRoad("blue", E(-1, 2, "NE")))
    g.apply(BuildSettlement("blue", desert))
    assert sum(g.hands[1]) == 2 and hand(g, "blue") == _resources_around(desert)
    g.apply(BuildRoad("blue", vertex_edges(desert)[0]))
    g.apply(BuildSettlement("red", coast))
    assert sum(g.hands[0]) == 2 and hand(g, "red") == _resources_around(coast)


def test_the_road_must_follow_the_settlement_just_placed(game: Game) -> None:
    v, _ = FOUNDING_3[0]
    game.apply(BuildSettlement("red", v))
    # 1.4.1: a second settlement, ending the turn or rolling are all refused until the road.
    assert refusal(game, BuildSettlement("red", V(2, 0, "S"))).rule == "1.4.1"
    assert refusal(game, EndTurn("red")).rule == "1.4.1"
    assert refusal(game, RollDice("red", (3, 4))).rule == "1.4.1"
    far = E(2, 0, "SE")
    assert refusal(game, BuildRoad("red", far)).rule == "1.4.1"
    allowed = {a.edge for a in game.legal_actions()}
    assert allowed == set(vertex_edges(v))


def test_second_road_must_touch_the_second_settlement_not_the_first(game: Game) -> None:
    found_first_round = FOUNDING_3[:5]
    for v, e in found_first_round:
        game.apply(BuildSettlement(game.current_player, v))
        game.apply(BuildRoad(game.current_player, e))
    first_v, _ = FOUNDING_3[0]
    game.apply(BuildSettlement("red", FOUNDING_3[5][0]))
    # This side touches red's first settlement but not the one just placed (1.4.2).
    beside_first = next(e for e in vertex_edges(first_v) if e != FOUNDING_3[0][1])
    assert refusal(game, BuildRoad("red", beside_first)).rule == "1.4.1"


def test_founding_settlements_obey_the_distance_rule_but_need_no_road(game: Game) -> None:
    v, e = FOUNDING_3[0]
    game.apply(BuildSettlement("red", v))
    game.apply(BuildRoad("red", e))
    # 1.9.5 applies in the founding phase: next to red's settlement, or on it.
    neighbour = V(0, -1, "NW")
    assert refusal(game, BuildSettlement("blue", neighbour)).rule == "1.9.5"
    assert refusal(game, BuildSettlement("blue", v)).rule == "1.9.5"
    # 1.9.4 does not apply: blue has no road at all, and the settlement is free.
    game.apply(BuildSettlement("blue", FOUNDING_3[1][0]))
    assert game.bank == [19] * 5


def test_founding_spots_listed_are_exactly_the_free_land_corners_two_steps_apart(
    game: Game,
) -> None:
    t = game.topology
    assert len(game.legal_actions()) == len(t.vertices)
    v, e = FOUNDING_3[0]
    game.apply(BuildSettlement("red", v))
    game.apply(BuildRoad("red", e))
    listed = {a.vertex for a in game.legal_actions()}
    blocked = {v} | {t.vertices[n] for n in t.vertex_neighbours[t.vertex_index[v]]}
    assert listed == set(t.vertices) - blocked


def test_out_of_turn_off_board_and_unknown_players_are_refused(game: Game) -> None:
    assert refusal(game, BuildSettlement("blue", FOUNDING_3[1][0])).rule == "1.5.3"
    assert refusal(game, BuildSettlement("red", V(5, 5, "N"))).rule == "0.3"
    assert refusal(game, BuildSettlement("green", FOUNDING_3[1][0])).rule == "1.1.6"


def test_no_trade_during_the_founding_phase(game: Game) -> None:
    assert refusal(game, MaritimeTrade("red", Resource.ORE, Resource.WOOL)).rule == "1.4.1"
