"""RULES.md 1.10: development cards (buying, hiding, playing, each card's effect)."""

import pytest
from conftest import (
    V,
    build_roads,
    buy_card,
    corner_path,
    dev_count,
    found,
    give,
    hand,
    new_game,
    pass_turns_until,
    refusal,
    roll,
    set_hand,
)

from companion.actions import (
    DEV_CARDS,
    BuildRoad,
    BuyDevelopmentCard,
    DevCard,
    EndTurn,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
)
from companion.board import Resource
from companion.game import Game, Phase, Rules

KNIGHT, VP, ROADS, PLENTY, MONOPOLY = DEV_CARDS


@pytest.fixture
def red_main(started: Game) -> Game:
    roll(started, 12)
    return started


def holding(card: DevCard, *cards: DevCard) -> Game:
    """Red's second turn before the roll, holding ``card`` (and ``cards``) bought last turn.

    Every hand is empty.
    """
    g = new_game()
    found(g)
    for c in g.players:
        set_hand(g, c)
    roll(g, 12)
    for c in (card, *cards):
        buy_card(g, "red", c)
    pass_turns_until(g, "red", total=12)
    for c in g.players:
        set_hand(g, c)
    return g


def test_the_deck_is_14_knights_5_points_and_2_of_each_progress_card(game: Game) -> None:
    assert dict(zip(DEV_CARDS, game.deck, strict=True)) == {
        KNIGHT: 14,
        VP: 5,
        ROADS: 2,
        PLENTY: 2,
        MONOPOLY: 2,
    }


def test_buying_takes_a_card_drawn_from_the_deck_and_keeps_it_hidden(red_main: Game) -> None:
    set_hand(red_main, "red", ore=1, wool=1, grain=1)
    red_main.rng.picks.append(1)  # type: ignore[attr-defined]  # the draw lands on a VP card
    events = red_main.apply(BuyDevelopmentCard("red"))
    assert events[0]["card"] == "victory_point"
    assert hand(red_main, "red") == {}
    assert red_main.deck[1] == 4 and dev_count(red_main, "red", VP) == 1
    # 1.10.1 hidden: the table sees a count, only red sees which card
    public = red_main.public_view()
    assert public["players"][0]["development_count"] == 1
    assert all("development_cards" not in p for p in public["players"])
    assert public["players"][0]["victory_points"] == 2
    mine = red_main.private_view("red")["you"]
    assert mine["development_cards"] == {"victory_point": 1}
    assert mine["victory_points"] == 3
    assert red_main.private_view("blue")["you"]["development_cards"] == {}


def test_a_named_card_must_still_be_in_the_deck(red_main: Game) -> None:
    for _ in range(2):
        buy_card(red_main, "red", MONOPOLY)
    set_hand(red_main, "red", ore=1, wool=1, grain=1)
    assert refusal(red_main, BuyDevelopmentCard("red", MONOPOLY)).rule == "1.1.5"


def test_an_empty_deck_sells_nothing() -> None:
    g = new_game(rules=Rules(victory_points=40))
    found(g)
    roll(g, 12)
    for card, n in zip(DEV_CARDS, list(g.deck), strict=True):
        for _ in range(n):
            buy_card(g, "red", card)
    assert sum(g.deck) == 0 and sum(g.dev_hands[0]) == 25
    set_hand(g, "red", ore=1, wool=1, grain=1)
    assert refusal(g, BuyDevelopmentCard("red")).rule == "1.10.6"
    assert not [a for a in g.legal_actions() if isinstance(a, BuyDevelopmentCard)]


def test_a_card_bought_this_turn_cannot_be_played_until_the_next(red_main: Game) -> None:
    buy_card(red_main, "red", KNIGHT)
    assert refusal(red_main, PlayKnight("red")).rule == "1.10.2"
    assert PlayKnight("red") not in red_main.legal_actions()
    pass_turns_until(red_main, "red", total=12)
    assert PlayKnight("red") in red_main.legal_actions()
    red_main.apply(PlayKnight("red"))


def test_an_older_card_of_the_same_kind_can_be_played_beside_a_new_one() -> None:
    g = holding(KNIGHT)
    roll(g, 12)
    buy_card(g, "red", KNIGHT)
    g.apply(PlayKnight("red"))
    assert dev_count(g, "red", KNIGHT) == 1


def test_one_card_per_turn() -> None:
    g = holding(KNIGHT, MONOPOLY)
    g.apply(PlayKnight("red"))
    g.apply(MoveRobber("red", (2, -2)))
    roll(g, 12)
    assert refusal(g, PlayMonopoly("red", Resource.ORE)).rule == "1.10.2"
    assert not [a for a in g.legal_actions() if isinstance(a, PlayMonopoly)]


def test_playing_needs_the_card_and_ones_own_turn(red_main: Game) -> None:
    assert refusal(red_main, PlayKnight("red")).rule == "1.10.1"
    assert refusal(red_main, PlayMonopoly("blue", Resource.ORE)).rule == "1.5.3"


def test_a_knight_before_the_roll_moves_the_robber_and_steals_without_discards() -> None:
    g = holding(KNIGHT)
    set_hand(g, "red", ore=9)
    set_hand(g, "white", wool=10)
    g.apply(PlayKnight("red"))  # 1.10.2: before the roll
    # 1.10.3: exactly as 1.7.3-1.7.4, but nobody discards
    assert g.phase == Phase.MOVE_ROBBER and g.to_discard == {}
    assert refusal(g, MoveRobber("red", (0, 0))).rule == "1.7.3"
    g.apply(MoveRobber("red", (1, 0), "white"))
    assert hand(g, "red") == {"wool": 1, "ore": 9}
    assert g.knights[0] == 1 and dev_count(g, "red", KNIGHT) == 0
    assert g.phase == Phase.ROLL  # the turn goes on where it was: the roll is still due
    assert g.public_view()["players"][0]["knights_played"] == 1


def test_road_building_places_two_free_roads() -> None:
    g = holding(ROADS)
    roll(g, 12)
    bank = list(g.bank)
    g.apply(PlayRoadBuilding("red"))
    assert g.phase == Phase.ROAD_BUILDING
    path = corner_path(V(1, -2, "S"), V(1, -1, "N"), V(2, -2, "S"))
    assert refusal(g, EndTurn("red")).rule == "1.10.4"
    far = corner_path(V(2, -2, "N"), V(2, -2, "NE"))[0]
    assert refusal(g, BuildRoad("red", far)).rule == "1.9.3"  # 1.9.3 still applies
    for e in path:
        g.apply(BuildRoad("red", e))
    assert g.phase == Phase.MAIN and g.bank == bank and g.roads_left[0] == 11


def test_road_building_before_the_roll_returns_to_the_roll() -> None:
    g = holding(ROADS)
    g.apply(PlayRoadBuilding("red"))
    for e in corner_path(V(1, -2, "S"), V(1, -1, "N"), V(2, -2, "S")):
        g.apply(BuildRoad("red", e))
    assert g.phase == Phase.ROLL


def test_road_building_with_one_road_left_places_one() -> None:
    g = new_game(rules=Rules(victory_points=40))
    found(g)
    roll(g, 12)
    buy_card(g, "red", ROADS)
    while g.roads_left[0] > 1:
        build_roads(g, "red", g.road_spots("red")[:1])
    pass_turns_until(g, "red", total=12)
    roll(g, 12)
    g.apply(PlayRoadBuilding("red"))
    g.apply(BuildRoad("red", g.road_spots("red")[0]))
    assert g.roads_left[0] == 0
    assert g.phase == Phase.MAIN  # the second free road is forfeit, the turn goes on
    g.apply(EndTurn("red"))


def test_road_building_cannot_be_played_without_a_road_left() -> None:
    g = new_game(rules=Rules(victory_points=40))
    found(g)
    roll(g, 12)
    buy_card(g, "red", ROADS)
    while g.roads_left[0]:
        build_roads(g, "red", g.road_spots("red")[:1])
    pass_turns_until(g, "red", total=12)
    assert refusal(g, PlayRoadBuilding("red")).rule == "1.10.4"
    assert PlayRoadBuilding("red") not in g.legal_actions()


@pytest.mark.parametrize("take", [(Resource.ORE, Resource.BRICK), (Resource.WOOL, Resource.WOOL)])
def test_year_of_plenty_takes_any_two_cards_from_the_bank(take: tuple[Resource, ...]) -> None:
    g = holding(PLENTY)
    roll(g, 12)
    set_hand(g, "red")
    g.apply(PlayYearOfPlenty("red", take))
    want: dict[str, int] = {}
    for r in take:
        want[r.value] = want.get(r.value, 0) + 1
    assert hand(g, "red") == want
    assert dev_count(g, "red", PLENTY) == 0


def test_year_of_plenty_needs_two_cards_the_bank_has() -> None:
    g = holding(PLENTY)
    roll(g, 12)
    assert refusal(g, PlayYearOfPlenty("red", (Resource.ORE,))).rule == "1.10.4"
    assert refusal(g, PlayYearOfPlenty("red", (Resource.ORE,) * 3)).rule == "1.10.4"
    set_hand(g, "blue", ore=18)
    assert refusal(g, PlayYearOfPlenty("red", (Resource.ORE,) * 2)).rule == "1.10.4"
    g.apply(PlayYearOfPlenty("red", (Resource.ORE, Resource.GRAIN)))


def test_year_of_plenty_with_one_card_in_the_bank_takes_that_one() -> None:
    g = holding(PLENTY)
    roll(g, 12)
    set_hand(g, "red")
    set_hand(g, "blue", lumber=19, brick=19, wool=19, grain=19, ore=18)
    assert [a for a in g.legal_actions() if isinstance(a, PlayYearOfPlenty)] == [
        PlayYearOfPlenty("red", (Resource.ORE,))
    ]
    g.apply(PlayYearOfPlenty("red", (Resource.ORE,)))
    assert hand(g, "red") == {"ore": 1}


def test_monopoly_takes_every_opponents_cards_of_one_resource() -> None:
    g = holding(MONOPOLY)
    roll(g, 12)
    set_hand(g, "red", ore=1)
    set_hand(g, "blue", ore=3, wool=1)
    set_hand(g, "white", ore=2)
    bank = list(g.bank)
    events = g.apply(PlayMonopoly("red", Resource.ORE))
    assert hand(g, "red") == {"ore": 6}
    assert hand(g, "blue") == {"wool": 1} and hand(g, "white") == {}
    assert events[0]["taken"] == {"blue": 3, "white": 2}
    assert g.bank == bank


def test_victory_point_cards_are_never_played_and_count_while_held() -> None:
    g = holding(VP)
    assert not [a for a in g.legal_actions() if "Play" in type(a).__name__]
    assert g.victory_points(0) == 3 and g.public_victory_points(0) == 2


def test_progress_cards_leave_the_game() -> None:
    g = holding(MONOPOLY)
    deck = list(g.deck)
    roll(g, 12)
    g.apply(PlayMonopoly("red", Resource.ORE))
    assert g.deck == deck and sum(g.dev_hands[0]) == 0


def test_buy_needs_the_main_phase(started: Game) -> None:
    give(started, "red", ore=1, wool=1, grain=1)
    assert refusal(started, BuyDevelopmentCard("red", KNIGHT)).rule == "1.5.1"
