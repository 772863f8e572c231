"""RULES.md 1.13 (and 1.10.5): victory points and the end of the game."""

from conftest import (
    BLUE_INLAND,
    COAST,
    FOUNDING_3,
    LR_FOUNDING,
    V,
    build_city,
    build_roads,
    build_settlement,
    buy_card,
    coast,
    corner_path,
    found,
    new_game,
    pass_turns_until,
    refusal,
    roll,
    walk,
)
from test_rules_largest_army import play_knight

from companion.actions import DevCard, EndTurn, PlayKnight, RollDice
from companion.game import Game, Phase

RED_FIRST, RED_SECOND = FOUNDING_3[0][0], FOUNDING_3[5][0]
#: A third settlement spot for red, two roads from its first settlement.
RED_THIRD_ROADS = corner_path(V(1, -2, "S"), V(1, -1, "N"), V(2, -2, "S"))
RED_THIRD = V(2, -2, "S")


def red_at_nine(with_settlement: bool) -> Game:
    """Red's first turn with 9 VP: two cities (4) and then either 4 VP cards and a third
    settlement (5), or 5 VP cards (5)."""
    g = new_game()
    found(g)
    roll(g, 12)
    build_city(g, "red", RED_FIRST)
    build_city(g, "red", RED_SECOND)
    for _ in range(4):
        buy_card(g, "red", DevCard.VICTORY_POINT)
    if with_settlement:
        build_roads(g, "red", RED_THIRD_ROADS)
        build_settlement(g, "red", RED_THIRD)
    else:
        buy_card(g, "red", DevCard.VICTORY_POINT)
    assert g.victory_points(0) == 9 and g.phase == Phase.MAIN
    return g


def test_victory_points_come_from_buildings_cards_and_special_cards(started: Game) -> None:
    roll(started, 12)
    assert started.victory_points(0) == 2  # two settlements
    build_city(started, "red", RED_FIRST)
    assert started.victory_points(0) == 3  # city 2 + settlement 1
    buy_card(started, "red", DevCard.VICTORY_POINT)
    assert started.victory_points(0) == 4 and started.public_victory_points(0) == 3
    buy_card(started, "red", DevCard.KNIGHT)
    assert started.victory_points(0) == 4


def test_ten_points_on_ones_own_turn_win_at_once() -> None:
    g = red_at_nine(with_settlement=False)
    build_roads(g, "red", RED_THIRD_ROADS)
    events = build_settlement(g, "red", RED_THIRD)
    assert {"type": "won", "player": "red", "victory_points": 10} in events
    assert (g.phase, g.winner_color) == (Phase.GAME_OVER, "red")
    assert g.public_view()["winner"] == "red"


def test_a_bought_victory_point_card_wins_at_once() -> None:
    # 1.10.5: the card bought this turn counts; no play is needed
    g = red_at_nine(with_settlement=True)
    events = buy_card(g, "red", DevCard.VICTORY_POINT)
    assert events[-1] == {"type": "won", "player": "red", "victory_points": 10}
    assert g.winner_color == "red"


def test_nothing_happens_after_the_game_is_over() -> None:
    g = red_at_nine(with_settlement=True)
    buy_card(g, "red", DevCard.VICTORY_POINT)
    assert g.legal_actions() == []
    assert refusal(g, EndTurn("red")).rule == "1.13.2"
    assert refusal(g, RollDice("blue", (1, 2))).rule == "1.13.2"


def test_a_knight_before_the_roll_can_win_with_largest_army() -> None:
    g = new_game()
    found(g)
    roll(g, 12)
    build_city(g, "red", RED_FIRST)
    build_city(g, "red", RED_SECOND)
    for card in [DevCard.VICTORY_POINT] * 4 + [DevCard.KNIGHT] * 3:
        buy_card(g, "red", card)
    for _ in range(2):
        pass_turns_until(g, "red")
        play_knight(g, "red")
        roll(g, 12)
    pass_turns_until(g, "red")
    assert g.victory_points(0) == 8
    g.apply(PlayKnight("red"))
    assert g.winner_color == "red" and g.phase == Phase.GAME_OVER


def test_ten_points_reached_on_anothers_turn_win_at_the_start_of_ones_own() -> None:
    # White climbs to 8 points, with a 6-road chain behind red's 7; blue's cut of red's road
    # hands white Longest Road during blue's turn (1.13.2: no win then); white wins when its
    # own turn starts (1.13.3).
    g = new_game()
    found(g, LR_FOUNDING)
    roll(g, 12)
    build_roads(g, "red", walk(19, 13))
    pass_turns_until(g, "white")
    roll(g, 12)
    build_roads(g, "white", walk(1, 5) + coast(0, 29))
    build_city(g, "white", COAST[0])
    build_city(g, "white", COAST[26])
    for _ in range(4):
        buy_card(g, "white", DevCard.VICTORY_POINT)
    assert g.victory_points(2) == 8 and g.longest_road == 0
    pass_turns_until(g, "blue")
    roll(g, 12)
    build_roads(g, "blue", corner_path(BLUE_INLAND, COAST[18]))
    build_settlement(g, "blue", COAST[18])
    assert g.longest_road == 2 and g.victory_points(2) == 10
    assert g.phase == Phase.MAIN and g.winner is None  # not white's turn
    events = g.apply(EndTurn("blue"))
    assert events[-1] == {"type": "won", "player": "white", "victory_points": 10}
    assert g.winner_color == "white" and g.current_player == "white"
