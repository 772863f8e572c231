"""RULES.md 1.7: rolling a 7, discards, moving the robber and stealing.

Buildings next to the hexes used here (FOUNDING_3 on the fixed board):
(0,-1) brick 6: red twice; (1,0) lumber 3: blue and white; (0,1) grain 4: blue twice;
(2,-2) lumber 9: nobody.
"""

from conftest import (
    buy_card,
    hand,
    pass_turns_until,
    refusal,
    roll,
    set_hand,
)

from companion.actions import (
    Cards,
    DevCard,
    Discard,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    RollDice,
)
from companion.board import Resource
from companion.game import Game, Phase


def test_a_seven_pays_nobody_and_without_big_hands_goes_straight_to_the_robber(
    started: Game,
) -> None:
    set_hand(started, "red", ore=3, brick=4)
    set_hand(started, "blue", grain=7)
    bank = list(started.bank)
    events = roll(started, 7)
    # 1.7.1 no production; 1.7.2 nobody above 7 cards
    assert hand(started, "red") == {"ore": 3, "brick": 4}
    assert hand(started, "blue") == {"grain": 7}
    assert started.bank == bank
    assert events[0]["must_discard"] == {}
    assert started.phase == Phase.MOVE_ROBBER


def test_everyone_above_seven_cards_discards_half_rounded_down(started: Game) -> None:
    set_hand(started, "red", ore=9)  # the roller too
    set_hand(started, "blue", grain=4, wool=4)
    set_hand(started, "white", lumber=7)
    events = roll(started, 7)
    assert events[0]["must_discard"] == {"red": 4, "blue": 4}
    assert started.phase == Phase.DISCARD
    # 1.7.3 comes after the discards
    assert refusal(started, MoveRobber("red", (2, -2))).rule == "1.7.2"
    assert refusal(started, Discard("white", Cards.of(lumber=3))).rule == "1.7.2"
    started.apply(Discard("blue", Cards.of(grain=3, wool=1)))
    assert hand(started, "blue") == {"grain": 1, "wool": 3}
    started.apply(Discard("red", Cards.of(ore=4)))
    assert started.phase == Phase.MOVE_ROBBER
    assert started.bank[3] == 19 - 1 and started.bank[4] == 19 - 5


def test_players_seated_before_the_roller_discard_too(started: Game) -> None:
    roll(started, 2)
    started.apply(EndTurn("red"))
    set_hand(started, "red", ore=5, grain=5)  # red sits before blue, the roller
    set_hand(started, "white", wool=8)
    roll(started, 7)
    assert started.current_player == "blue"
    assert started.to_discard == {0: 5, 2: 4}
    # any order: white (after the roller) first, then red (before the roller)
    started.apply(Discard("white", Cards.of(wool=4)))
    assert started.phase == Phase.DISCARD
    assert refusal(started, Discard("red", Cards.of(ore=5, grain=1))).rule == "1.7.2"
    started.apply(Discard("red", Cards.of(ore=2, grain=3)))
    assert hand(started, "red") == {"ore": 3, "grain": 2}
    assert started.phase == Phase.MOVE_ROBBER and started.current_player == "blue"


def test_bad_discards_are_refused(started: Game) -> None:
    set_hand(started, "red", ore=8)
    set_hand(started, "blue", wool=3)
    roll(started, 7)
    assert refusal(started, Discard("red", Cards.of(ore=3))).rule == "1.7.2"
    assert refusal(started, Discard("red", Cards.of(ore=5))).rule == "1.7.2"
    assert refusal(started, Discard("red", Cards.of(ore=2, wool=2))).rule == "1.7.2"
    assert refusal(started, Discard("blue", Cards.of(wool=1))).rule == "1.7.2"
    assert refusal(started, EndTurn("red")).rule == "1.7.2"
    started.apply(Discard("red", Cards.of(ore=4)))
    assert refusal(started, Discard("red", Cards.of(ore=4))).rule == "1.7.2"


def test_every_choice_of_discard_is_listed(started: Game) -> None:
    # 1.7.2 the player chooses: 4 of (ore 4, wool 4) can be split 5 ways.
    set_hand(started, "red", ore=4, wool=4)
    roll(started, 7)
    listed = {a.cards for a in started.legal_actions()}
    assert listed == {Cards.of(ore=k, wool=4 - k) for k in range(5)}


def test_development_cards_do_not_count_towards_the_discard(started: Game) -> None:
    roll(started, 2)
    buy_card(started, "red", DevCard.KNIGHT)
    set_hand(started, "red", grain=7)
    started.apply(EndTurn("red"))
    roll(started, 7)
    assert started.to_discard == {}
    assert started.phase == Phase.MOVE_ROBBER


def test_the_robber_must_move_to_another_land_hex(started: Game) -> None:
    roll(started, 7)
    assert refusal(started, MoveRobber("red", (0, 0))).rule == "1.7.3"  # where it stands
    assert refusal(started, MoveRobber("red", (5, 5))).rule == "1.7.3"  # off the island
    assert refusal(started, MoveRobber("blue", (2, -2))).rule == "1.5.3"
    listed = {a.hex for a in started.legal_actions()}
    assert listed == set(started.board.land_hexes()) - {(0, 0)}
    started.apply(MoveRobber("red", (2, -2)))
    assert started.robber == started.topology.hex_index[(2, -2)]
    # 1.7.5 the turn goes on with trading
    assert started.phase == Phase.MAIN
    set_hand(started, "red", ore=4)
    started.apply(MaritimeTrade("red", Resource.ORE, Resource.WOOL))


def test_the_desert_is_a_legal_destination(started: Game) -> None:
    roll(started, 7)
    started.apply(MoveRobber("red", (2, -2)))
    pass_turns_until(started, "blue")
    roll(started, 7)
    started.apply(MoveRobber("blue", (0, 0)))
    assert started.robber == started.topology.hex_index[(0, 0)]


def test_the_roller_steals_one_card_from_the_chosen_victim(started: Game) -> None:
    set_hand(started, "blue", wool=2, ore=1)
    set_hand(started, "white", grain=1)
    roll(started, 7)
    # 1.7.4: two opponents on (1, 0): the roller must choose
    assert refusal(started, MoveRobber("red", (1, 0))).rule == "1.7.4"
    victims = {a.victim for a in started.legal_actions() if a.hex == (1, 0)}
    assert victims == {"blue", "white"}
    started.rng.picks.append(4)  # type: ignore[attr-defined]  # the draw lands on the ore
    bank = list(started.bank)
    events = started.apply(MoveRobber("red", (1, 0), "blue"))
    assert events[0]["stolen"] == "ore"
    assert hand(started, "blue") == {"wool": 2}
    assert hand(started, "red") == {"ore": 1}
    assert started.bank == bank


def test_only_opponents_holding_cards_can_be_robbed(started: Game) -> None:
    set_hand(started, "white", grain=1)  # blue holds nothing
    roll(started, 7)
    assert refusal(started, MoveRobber("red", (1, 0), "blue")).rule == "1.7.4"
    victims = {a.victim for a in started.legal_actions() if a.hex == (1, 0)}
    assert victims == {"white"}
    # (0, 1) has only blue's buildings and blue has no cards: the robber moves, nothing stolen
    moves = [a for a in started.legal_actions() if a.hex == (0, 1)]
    assert moves == [MoveRobber("red", (0, 1))]
    assert refusal(started, MoveRobber("red", (0, 1), "blue")).rule == "1.7.4"
    started.apply(MoveRobber("red", (0, 1)))
    assert hand(started, "red") == {}


def test_nobody_is_robbed_on_a_hex_without_opponents(started: Game) -> None:
    set_hand(started, "red", ore=2)
    roll(started, 7)
    # (0, -1) holds only red's own settlements; (2, -2) holds none
    assert refusal(started, MoveRobber("red", (0, -1), "red")).rule == "1.7.4"
    assert refusal(started, MoveRobber("red", (2, -2), "white")).rule == "1.7.4"
    assert refusal(started, MoveRobber("red", (2, -2), None, Resource.ORE)).rule == "1.7.4"
    started.apply(MoveRobber("red", (0, -1)))
    assert hand(started, "red") == {"ore": 2}


def test_a_named_stolen_card_must_be_in_the_victims_hand(started: Game) -> None:
    set_hand(started, "white", grain=1)
    roll(started, 7)
    assert refusal(started, MoveRobber("red", (1, 0), "white", Resource.ORE)).rule == "1.7.4"
    started.apply(MoveRobber("red", (1, 0), "white", Resource.GRAIN))
    assert hand(started, "red") == {"grain": 1}


def test_no_roll_while_the_robber_waits(started: Game) -> None:
    roll(started, 7)
    assert refusal(started, RollDice("red", (3, 4))).rule == "1.7.3"
    assert refusal(started, PlayKnight("red")).rule == "1.7.3"
