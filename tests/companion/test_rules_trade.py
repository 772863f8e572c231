"""RULES.md 1.8: domestic and maritime trade (and the trade-before-build order of 1.5.1)."""

import pytest
from conftest import (
    FOUNDING_3,
    E,
    V,
    build_roads,
    build_settlement,
    corner_path,
    found,
    hand,
    new_game,
    pass_turns_until,
    refusal,
    roll,
    set_hand,
)

from companion.actions import BuildCity, Cards, DomesticTrade, MaritimeTrade
from companion.board import Resource
from companion.game import Game, Rules

ORE, WOOL, GRAIN, BRICK, LUMBER = (
    Resource.ORE,
    Resource.WOOL,
    Resource.GRAIN,
    Resource.BRICK,
    Resource.LUMBER,
)

#: Two players; red founds on the 2:1 ore harbour (2,-1,N) and the 3:1 harbour (-2,2,S).
HARBOUR_FOUNDING = (
    (V(2, -1, "N"), E(2, -1, "NE")),
    (V(1, 0, "S"), E(1, 0, "SE")),
    (V(-1, 2, "N"), E(-1, 2, "NE")),
    (V(-2, 2, "S"), E(-2, 2, "SE")),
)


@pytest.fixture
def harbours() -> Game:
    g = new_game(("red", "blue"))
    found(g, HARBOUR_FOUNDING)
    for c in g.players:
        set_hand(g, c)
    roll(g, 12)  # grain 12 (-1,-1): nobody builds there
    return g


def test_domestic_trade_moves_cards_between_the_two_players_only(started: Game) -> None:
    roll(started, 12)
    set_hand(started, "red", ore=2, wool=1)
    set_hand(started, "white", grain=3)
    bank = list(started.bank)
    started.apply(DomesticTrade("red", "white", Cards.of(ore=2), Cards.of(grain=1)))
    # 1.8.1: as often as the hands allow
    started.apply(DomesticTrade("red", "white", Cards.of(wool=1), Cards.of(grain=2)))
    assert hand(started, "red") == {"grain": 3}
    assert hand(started, "white") == {"ore": 2, "wool": 1}
    assert started.bank == bank


def test_only_the_active_player_trades(started: Game) -> None:
    roll(started, 12)
    set_hand(started, "blue", ore=1)
    set_hand(started, "white", wool=1)
    # 1.8.2: non-active players may not trade with each other
    trade = DomesticTrade("blue", "white", Cards.of(ore=1), Cards.of(wool=1))
    assert refusal(started, trade).rule == "1.8.2"
    assert refusal(started, MaritimeTrade("blue", ORE, WOOL)).rule == "1.8.3"


@pytest.mark.parametrize(
    ("give", "get", "why"),
    [
        (Cards.of(ore=1), Cards(), "a gift"),
        (Cards(), Cards.of(grain=1), "a gift the other way"),
        (Cards.of(ore=1, grain=1), Cards.of(grain=1), "identical resources swapped"),
        (Cards.of(ore=3), Cards.of(grain=1), "more than red holds"),
        (Cards.of(ore=1), Cards.of(grain=5), "more than white holds"),
        (Cards.of(ore=1), Cards.of(wool=1), "a card white does not hold"),
    ],
)
def test_bad_domestic_trades_are_refused(started: Game, give: Cards, get: Cards, why: str) -> None:
    roll(started, 12)
    set_hand(started, "red", ore=2, grain=1)
    set_hand(started, "white", grain=3)
    assert refusal(started, DomesticTrade("red", "white", give, get)).rule == "1.8.2", why


def test_no_trade_with_oneself_or_a_stranger(started: Game) -> None:
    roll(started, 12)
    set_hand(started, "red", ore=1, grain=1)
    assert (
        refusal(started, DomesticTrade("red", "red", Cards.of(ore=1), Cards.of(grain=1))).rule
        == "1.8.2"
    )
    stranger = DomesticTrade("red", "green", Cards.of(ore=1), Cards.of(grain=1))
    assert refusal(started, stranger).rule == "1.1.6"


def test_trade_comes_after_the_roll(started: Game) -> None:
    set_hand(started, "red", ore=4)
    set_hand(started, "blue", wool=1)
    assert refusal(started, MaritimeTrade("red", ORE, WOOL)).rule == "1.5.1"
    trade = DomesticTrade("red", "blue", Cards.of(ore=1), Cards.of(wool=1))
    assert refusal(started, trade).rule == "1.5.1"


def test_by_default_trade_comes_before_building(started: Game) -> None:
    roll(started, 12)
    build_roads(started, "red", [E(0, -1, "E")])
    set_hand(started, "red", ore=4)
    set_hand(started, "blue", wool=1)
    # 1.5.1 (strict order, the default of the GAP): no trade after a build
    assert refusal(started, MaritimeTrade("red", ORE, WOOL)).rule == "1.5.1"
    trade = DomesticTrade("red", "blue", Cards.of(ore=1), Cards.of(wool=1))
    assert refusal(started, trade).rule == "1.5.1"
    assert not [a for a in started.legal_actions() if isinstance(a, MaritimeTrade)]


def test_the_mixed_order_option_allows_trade_after_building() -> None:
    g = new_game(rules=Rules(trade_after_build=True))
    found(g, FOUNDING_3)
    roll(g, 12)
    build_roads(g, "red", [E(0, -1, "E")])
    set_hand(g, "red", ore=4)
    g.apply(MaritimeTrade("red", ORE, WOOL))
    assert hand(g, "red") == {"wool": 1}


def test_four_to_one_without_a_harbour(harbours: Game) -> None:
    pass_turns_until(harbours, "blue", total=12)
    roll(harbours, 12)
    set_hand(harbours, "blue", grain=7)
    bank = list(harbours.bank)
    events = harbours.apply(MaritimeTrade("blue", GRAIN, ORE))
    assert hand(harbours, "blue") == {"grain": 3, "ore": 1}
    assert harbours.bank[3] == bank[3] + 4 and harbours.bank[4] == bank[4] - 1
    assert events[0]["give"] == {"grain": 4}
    assert refusal(harbours, MaritimeTrade("blue", GRAIN, ORE)).rule == "1.8.3"


def test_harbours_give_their_rates(harbours: Game) -> None:
    # 1.8.3: red has the 2:1 ore harbour and a 3:1 harbour
    set_hand(harbours, "red", ore=2, wool=3, grain=2)
    harbours.apply(MaritimeTrade("red", ORE, BRICK))
    harbours.apply(MaritimeTrade("red", WOOL, LUMBER))
    assert hand(harbours, "red") == {"brick": 1, "lumber": 1, "grain": 2}
    # grain goes at 3:1, not 2:1: the 2:1 harbour is for ore only
    assert refusal(harbours, MaritimeTrade("red", GRAIN, ORE)).rule == "1.8.3"
    listed = {(a.give, a.get) for a in harbours.legal_actions() if isinstance(a, MaritimeTrade)}
    assert listed == set()


def test_a_harbour_reached_by_a_new_settlement_counts_at_once(started: Game) -> None:
    # Blue walks from (1,0,S) to the wool harbour corner (1,2,N) and settles there.
    pass_turns_until(started, "blue", total=12)
    roll(started, 12)
    build_roads(started, "blue", corner_path(V(1, 1, "N"), V(2, 0, "S"), V(1, 2, "N")))
    build_settlement(started, "blue", V(1, 2, "N"))
    pass_turns_until(started, "blue", total=12)
    roll(started, 12)
    set_hand(started, "blue", wool=2)
    started.apply(MaritimeTrade("blue", WOOL, ORE))
    assert hand(started, "blue") == {"ore": 1}


def test_a_city_on_a_harbour_keeps_the_harbour(harbours: Game) -> None:
    # 1.8.4 GAP (standard): cities give harbour access too.
    set_hand(harbours, "red", grain=2, ore=3)
    harbours.apply(BuildCity("red", V(2, -1, "N")))
    pass_turns_until(harbours, "red", total=12)
    roll(harbours, 12)
    set_hand(harbours, "red", ore=2)
    harbours.apply(MaritimeTrade("red", ORE, WOOL))
    assert hand(harbours, "red") == {"wool": 1}


def test_maritime_trade_needs_two_resources_and_a_bank_that_has_the_card(
    harbours: Game,
) -> None:
    set_hand(harbours, "red", ore=4)
    assert refusal(harbours, MaritimeTrade("red", ORE, ORE)).rule == "1.8.3"
    set_hand(harbours, "blue", wool=19)
    assert refusal(harbours, MaritimeTrade("red", ORE, WOOL)).rule == "1.6.5"
    gets = {a.get for a in harbours.legal_actions() if isinstance(a, MaritimeTrade)}
    assert gets == {LUMBER, BRICK, GRAIN}
