"""RULES.md 1.5 (turn structure), with the set-up checks of 1.1 and 1.3 that a Game makes."""

from dataclasses import replace

import pytest
from conftest import PLAYERS, fixed_board, new_game, refusal, roll, set_hand

from companion.actions import BuildRoad, EndTurn, RollDice
from companion.game import Game, Phase


def test_turns_pass_clockwise_and_each_starts_with_the_roll(started: Game) -> None:
    seen = []
    for _ in range(7):
        seen.append((started.current_player, started.turn_number))
        assert started.phase == Phase.ROLL
        roll(started, 12)
        started.apply(EndTurn(started.current_player))
    # 1.5.3: the turn passes to the left neighbour, the next in seat order
    assert seen == [(PLAYERS[i % 3], i + 1) for i in range(7)]


def test_the_roll_comes_first_and_only_once(started: Game) -> None:
    # 1.5.1: the roll is a must, before trading or building, and there is one per turn
    assert refusal(started, EndTurn("red")).rule == "1.5.1"
    roll(started, 12)
    assert refusal(started, RollDice("red", (2, 3))).rule == "1.5.1"
    assert started.last_roll == (6, 6)


def test_only_the_active_player_acts(started: Game) -> None:
    assert refusal(started, RollDice("blue", (2, 3))).rule == "1.5.3"
    roll(started, 12)
    set_hand(started, "blue", lumber=1, brick=1)
    assert refusal(started, BuildRoad("blue", started.road_spots("blue")[0])).rule == "1.5.3"
    assert refusal(started, EndTurn("white")).rule == "1.5.3"


def test_the_dice_total_is_the_sum_of_both_dice(started: Game) -> None:
    started.rng.dice.append((2, 4))  # type: ignore[attr-defined]
    events = started.apply(RollDice("red"))
    assert events[0]["dice"] == [2, 4] and events[0]["total"] == 6  # 1.6.1
    assert started.last_roll == (2, 4)


def test_a_roll_from_the_table_is_taken_as_it_fell(started: Game) -> None:
    # the tower's physical roll is an outcome carried by the action: no randomness is used
    events = started.apply(RollDice("red", (5, 6)))
    assert events[0]["total"] == 11


def test_a_game_needs_different_players_and_a_robber() -> None:
    with pytest.raises(ValueError, match="players"):
        Game(fixed_board(), ["red"])
    with pytest.raises(ValueError, match="players"):
        Game(fixed_board(), ["red", "red", "blue"])
    # 1.3.6: the robber starts on the desert; a board without one cannot start
    with pytest.raises(ValueError, match="robber"):
        Game(replace(fixed_board(), robber=None), PLAYERS)


def test_the_robber_starts_where_the_board_puts_it() -> None:
    g = new_game()
    assert g.topology.hexes[g.robber] == (0, 0)
    assert g.public_view()["robber"] == [0, 0]
