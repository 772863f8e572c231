"""RULES.md 1.9: costs, supplies, roads, settlements, the distance rule and cities.

Red's pieces (FOUNDING_3): settlements (0,-1,N) and (-1,0,N); road (0,-1,N)-(1,-2,S).
White's settlement (2,-1,S) is four sides down the chain (1,-2,S)-(1,-1,N)-(2,-2,S)-(1,0,N).
"""

import pytest
from conftest import (
    FOUNDING_3,
    E,
    V,
    build_roads,
    corner_path,
    found,
    give,
    hand,
    new_game,
    refusal,
    roll,
    set_hand,
)

from companion.actions import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevelopmentCard,
    DevCard,
)
from companion.game import Game, Rules

RED_FIRST, RED_SECOND = FOUNDING_3[0][0], FOUNDING_3[5][0]
TO_WHITE = corner_path(V(1, -2, "S"), V(1, -1, "N"), V(2, -2, "S"), V(1, 0, "N"), V(2, -1, "S"))


@pytest.fixture
def red_main(started: Game) -> Game:
    """Red's first turn, after a roll of 12 (one grain for red)."""
    roll(started, 12)
    return started


@pytest.mark.parametrize(
    ("action", "cost"),
    [
        (BuildRoad("red", TO_WHITE[0]), {"lumber": 1, "brick": 1}),
        (BuildCity("red", RED_FIRST), {"ore": 3, "grain": 2}),
        (BuyDevelopmentCard("red", DevCard.MONOPOLY), {"ore": 1, "wool": 1, "grain": 1}),
    ],
)
def test_each_piece_costs_exactly_its_price_paid_to_the_bank(
    red_main: Game, action: object, cost: dict[str, int]
) -> None:
    # 1.9.1, 1.9.2: short of one card of the cost is refused
    for short in cost:
        set_hand(red_main, "red", **{r: n - (r == short) for r, n in cost.items()})
        assert refusal(red_main, action).rule == "1.9.1"
    extra = {"lumber": 1} if "wool" in cost else {"wool": 1}  # a card the price leaves alone
    set_hand(red_main, "red", **cost, **extra)
    bank = dict(zip(("lumber", "brick", "wool", "grain", "ore"), red_main.bank, strict=True))
    red_main.apply(action)  # type: ignore[arg-type]
    assert hand(red_main, "red") == extra
    after = dict(zip(("lumber", "brick", "wool", "grain", "ore"), red_main.bank, strict=True))
    assert after == {r: n + cost.get(r, 0) for r, n in bank.items()}


def test_a_settlement_costs_brick_lumber_wool_and_grain(red_main: Game) -> None:
    build_roads(red_main, "red", TO_WHITE[:2])
    spot = V(2, -2, "S")
    set_hand(red_main, "red", brick=1, lumber=1, wool=1)
    assert refusal(red_main, BuildSettlement("red", spot)).rule == "1.9.1"
    give(red_main, "red", grain=1)
    red_main.apply(BuildSettlement("red", spot))
    assert hand(red_main, "red") == {}
    assert red_main.victory_points(0) == 3


def test_no_building_before_the_roll(started: Game) -> None:
    set_hand(started, "red", brick=1, lumber=1)
    assert refusal(started, BuildRoad("red", TO_WHITE[0])).rule == "1.5.1"


def test_a_road_must_connect_to_own_road_or_building(red_main: Game) -> None:
    set_hand(red_main, "red", brick=2, lumber=2)
    taken = FOUNDING_3[1][1]  # blue's founding road
    assert refusal(red_main, BuildRoad("red", taken)).rule == "1.9.3"
    assert refusal(red_main, BuildRoad("red", FOUNDING_3[0][1])).rule == "1.9.3"  # red's own
    far = corner_path(V(2, -2, "N"), V(2, -2, "NE"))[0]
    assert refusal(red_main, BuildRoad("red", far)).rule == "1.9.3"
    assert refusal(red_main, BuildRoad("red", E(9, 9, "E"))).rule == "0.3"
    # from the settlement alone (the side not yet used) is fine
    red_main.apply(BuildRoad("red", corner_path(RED_FIRST, V(0, -1, "NW"))[0]))


def test_an_opponents_settlement_blocks_the_way_through(red_main: Game) -> None:
    build_roads(red_main, "red", TO_WHITE)
    beyond = corner_path(V(2, -1, "S"), V(1, 1, "N"))[0]
    give(red_main, "red", brick=1, lumber=1)
    assert refusal(red_main, BuildRoad("red", beyond)).rule == "1.9.3"
    assert beyond not in red_main.road_spots("red")


def test_settlements_need_an_own_road_and_two_sides_of_distance(red_main: Game) -> None:
    set_hand(red_main, "red", brick=3, lumber=3, wool=2, grain=2)
    # 1.9.4: no red road reaches (2,-2,N)
    assert refusal(red_main, BuildSettlement("red", V(2, -2, "N"))).rule == "1.9.4"
    build_roads(red_main, "red", TO_WHITE[:1])
    # 1.9.5: (1,-2,S) is next to red's own settlement
    assert refusal(red_main, BuildSettlement("red", V(1, -2, "S"))).rule == "1.9.5"
    assert refusal(red_main, BuildSettlement("red", RED_FIRST)).rule == "1.9.5"
    build_roads(red_main, "red", TO_WHITE[1:2])
    red_main.apply(BuildSettlement("red", V(2, -2, "S")))
    assert red_main.settlement_spots("red") == []
    build_roads(red_main, "red", TO_WHITE[2:3])
    # (1,0,N) is next to white's (2,-1,S) and to red's new (2,-2,S)
    assert refusal(red_main, BuildSettlement("red", V(1, 0, "N"))).rule == "1.9.5"


def test_a_city_replaces_an_own_settlement_which_returns_to_the_supply(red_main: Game) -> None:
    set_hand(red_main, "red", ore=6, grain=4)
    white = FOUNDING_3[2][0]
    assert refusal(red_main, BuildCity("red", white)).rule == "1.9.6"
    assert refusal(red_main, BuildCity("red", V(2, -2, "N"))).rule == "1.9.6"
    vp = red_main.victory_points(0)
    red_main.apply(BuildCity("red", RED_FIRST))
    assert red_main.victory_points(0) == vp + 1
    assert (red_main.settlements_left[0], red_main.cities_left[0]) == (4, 3)
    assert refusal(red_main, BuildCity("red", RED_FIRST)).rule == "1.9.6"
    assert [b for b in red_main.snapshot()["buildings"] if b[2] == "city"] == [
        [list(RED_FIRST), "red", "city"]
    ]


def _grow(game: Game, color: str, settlements: int) -> None:
    """Build roads (first listed spot) and settlements until ``settlements`` are left."""
    p = game.seat(color)
    while game.settlements_left[p] > settlements:
        spots = game.settlement_spots(color)
        if spots:
            give(game, color, brick=1, lumber=1, wool=1, grain=1)
            game.apply(BuildSettlement(color, spots[0]))
        else:
            build_roads(game, color, game.road_spots(color)[:1])


@pytest.fixture
def big() -> Game:
    """Red's first turn with a victory target out of reach, so that supplies run out first."""
    g = new_game(rules=Rules(victory_points=40))
    found(g)
    for c in g.players:
        set_hand(g, c)
    roll(g, 12)
    return g


def test_five_settlements_then_no_more_until_a_city_frees_one(big: Game) -> None:
    _grow(big, "red", 0)
    while not big.settlement_spots("red"):
        build_roads(big, "red", big.road_spots("red")[:1])
    spot = big.settlement_spots("red")[0]
    set_hand(big, "red", brick=1, lumber=1, wool=1, grain=1, ore=3)
    assert refusal(big, BuildSettlement("red", spot)).rule == "1.9.2"  # 1.1.6: 5 settlements
    assert BuildSettlement("red", spot) not in big.legal_actions()
    give(big, "red", grain=2)
    big.apply(BuildCity("red", RED_FIRST))
    big.apply(BuildSettlement("red", spot))  # 1.9.6: the settlement came back
    assert big.settlements_left[0] == 0


def test_four_cities_at_most(big: Game) -> None:
    _grow(big, "red", 0)
    owned = big.city_spots("red")
    assert len(owned) == 5
    for v in owned[:4]:
        give(big, "red", grain=2, ore=3)
        big.apply(BuildCity("red", v))
    give(big, "red", grain=2, ore=3)
    assert refusal(big, BuildCity("red", owned[4])).rule == "1.9.2"
    assert not [a for a in big.legal_actions() if isinstance(a, BuildCity)]


def test_fifteen_roads_at_most(big: Game) -> None:
    while big.roads_left[0]:
        build_roads(big, "red", big.road_spots("red")[:1])
    assert sum(1 for o in big.edge_owner if o == 0) == 15
    spot = big.road_spots("red")[0]
    give(big, "red", brick=1, lumber=1)
    assert refusal(big, BuildRoad("red", spot)).rule == "1.9.2"
    assert not [a for a in big.legal_actions() if isinstance(a, BuildRoad)]


def test_listed_builds_are_the_spots_the_player_can_pay_for(red_main: Game) -> None:
    set_hand(red_main, "red", brick=1)
    assert not [a for a in red_main.legal_actions() if isinstance(a, BuildRoad)]
    give(red_main, "red", lumber=1)
    listed = {a.edge for a in red_main.legal_actions() if isinstance(a, BuildRoad)}
    assert listed == set(red_main.road_spots("red"))
    assert TO_WHITE[0] in listed
