"""RULES.md 1.6: production, and the bank shortage rule 1.6.5.

Who sits where (FOUNDING_3 on the fixed board, see conftest):

    red    (0,-1,N): brick 6, ore 10, wool 2      (-1,0,N): lumber 11, grain 12, brick 6
    blue   (1,0,S):  lumber 3, grain 4, wool 5     (-1,2,N): wool 6, ore 3, grain 4
    white  (-2,1,N): lumber 8, grain 9, lumber 11  (2,-1,S): brick 10, lumber 3, ore 8
"""

import pytest
from conftest import FOUNDING_3, build_city, buy_card, hand, pass_turns_until, roll, set_hand

from companion.actions import DevCard, EndTurn, MoveRobber, PlayKnight
from companion.game import Game, Phase

RED_FIRST = FOUNDING_3[0][0]


@pytest.mark.parametrize(
    ("total", "gains"),
    [
        # 1.6.3: two settlements on the same hex pay separately.
        (6, {"red": {"brick": 2}, "blue": {"wool": 1}}),
        # one hex pays two players; another pays the second player's other settlement
        (3, {"blue": {"lumber": 1, "ore": 1}, "white": {"lumber": 1}}),
        (4, {"blue": {"grain": 2}}),
        (11, {"red": {"lumber": 1}, "white": {"lumber": 1}}),
        (5, {"blue": {"wool": 1}}),
        (9, {"white": {"grain": 1}}),
        (2, {"red": {"wool": 1}}),
    ],
)
def test_every_building_on_a_rolled_hex_earns_one_card(
    started: Game, total: int, gains: dict[str, dict[str, int]]
) -> None:
    events = roll(started, total)
    for c in started.players:
        assert hand(started, c) == gains.get(c, {})
    assert events[0]["gains"] == gains
    assert started.phase == Phase.MAIN


def test_a_city_earns_two_cards(started: Game) -> None:
    roll(started, 8)
    build_city(started, "red", RED_FIRST)
    set_hand(started, "red")
    set_hand(started, "white")
    started.apply(EndTurn("red"))
    roll(started, 10)  # blue rolls; ore 10 pays red's city twice, brick 10 pays white once
    assert hand(started, "red") == {"ore": 2}
    assert hand(started, "white") == {"brick": 1}


def test_the_robber_blocks_its_hex_and_stays(started: Game) -> None:
    # Red plays a knight to put the robber on brick 6 (0, -1), where only red has buildings.
    roll(started, 8)
    buy_card(started, "red", DevCard.KNIGHT)
    pass_turns_until(started, "red")
    started.apply(PlayKnight("red"))
    started.apply(MoveRobber("red", (0, -1)))
    assert started.phase == Phase.ROLL
    set_hand(started, "red")
    set_hand(started, "blue")
    events = roll(started, 6)
    # 1.7.6: (0, -1) pays nothing; the other 6, wool (-1, 2), still pays blue.
    assert events[0]["blocked"] == [[0, -1]]
    assert hand(started, "red") == {}
    assert hand(started, "blue") == {"wool": 1}
    # the robber stays: the next 6 is blocked as well
    pass_turns_until(started, "red")
    set_hand(started, "red")
    set_hand(started, "blue")
    roll(started, 6)
    assert hand(started, "red") == {}
    assert hand(started, "blue") == {"wool": 1}


def test_shortage_with_one_owed_player_pays_what_is_left(started: Game) -> None:
    # 1.6.5 exception: red alone is owed brick (2 on a 6) but the bank holds only 1.
    set_hand(started, "white", brick=18)
    events = roll(started, 6)
    assert hand(started, "red") == {"brick": 1}
    assert started.bank[1] == 0
    assert hand(started, "blue") == {"wool": 1}  # other resources are paid as usual
    assert events[0]["shortage"] == ["brick"]


def test_shortage_with_one_owed_player_and_an_empty_bank_pays_nothing(started: Game) -> None:
    set_hand(started, "white", brick=19)
    roll(started, 6)
    assert hand(started, "red") == {}
    assert hand(started, "blue") == {"wool": 1}


def test_shortage_with_several_owed_players_pays_none_of_them(started: Game) -> None:
    # 1.6.5: on a 3, blue and white are owed one lumber each; the bank has one.
    set_hand(started, "red", lumber=18)
    events = roll(started, 3)
    assert hand(started, "blue") == {"ore": 1}  # ore is paid as usual
    assert hand(started, "white") == {}
    assert started.bank[0] == 1
    assert events[0]["shortage"] == ["lumber"]


def test_a_bank_that_can_pay_exactly_everyone_pays(started: Game) -> None:
    set_hand(started, "red", lumber=17)
    events = roll(started, 3)
    assert hand(started, "blue") == {"lumber": 1, "ore": 1}
    assert hand(started, "white") == {"lumber": 1}
    assert started.bank[0] == 0
    assert events[0]["shortage"] == []


def test_the_desert_has_no_number_and_never_produces(started: Game) -> None:
    desert = started.topology.hex_index[(0, 0)]
    assert all(desert not in hexes for hexes in started.hexes_by_number.values())
