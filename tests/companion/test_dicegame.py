"""RULES.md §6 (the Catan Dice Game and Plus) and §7.6 (the sheet checks), rule by rule.

The sheet used is :data:`BASIC_SHEET` / :data:`PLUS_SHEET`: road 0 is the start road (0-1);
road 1 is 1-2, road 2 is 1-3, road 3 is 3-4, road 4 is 4-5, road 5 is 4-6, road 6 is 5-7,
road 7 is 7-8, road 8 is 7-9. Settlements stand on crossings 1, 3, 5, 8, 11, 15 and cities on
2, 6, 9, 13.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.dicegame import (
    BASIC_SHEET,
    FACES,
    PLUS_SHEET,
    Build,
    DiceAction,
    DiceGame,
    EndTurn,
    ExchangeGold,
    Joker,
    Piece,
    Roll,
    Sheet,
    UseJoker,
    Variant,
    action_from_json,
    action_to_json,
    check_sheet,
)
from companion.game import IllegalAction, RandomSource

ROAD = ("brick", "lumber")
SETTLEMENT = ("brick", "lumber", "wool", "grain")
CITY = ("ore", "ore", "ore", "grain", "grain")
KNIGHT = ("ore", "wool", "grain")


def pad(*faces: str, n: int = 6) -> tuple[str, ...]:
    """``faces`` filled up with gold to ``n`` dice (gold builds nothing, 6.5.1)."""
    return (*faces, *("gold",) * (n - len(faces)))


def roll(game: DiceGame, *faces: str, keep: tuple[int, ...] = ()) -> None:
    game.apply(Roll(game.current_player, keep, faces))


def build(game: DiceGame, piece: str, index: int) -> list[dict[str, Any]]:
    return game.apply(Build(game.current_player, piece, index))


def turn(game: DiceGame, faces: tuple[str, ...], *builds: tuple[str, int]) -> None:
    """One turn: a single roll of ``faces``, the ``builds`` in order, end of turn."""
    roll(game, *faces)
    for piece, index in builds:
        build(game, piece, index)
    game.apply(EndTurn(game.current_player))


def refused(game: DiceGame, action: DiceAction, rule: str) -> IllegalAction:
    """The game refuses ``action`` citing ``rule``, and its state does not change."""
    before = json.dumps(game.snapshot(), sort_keys=True)
    with pytest.raises(IllegalAction) as info:
        game.apply(action)
    assert info.value.rule == rule, str(info.value)
    assert json.dumps(game.snapshot(), sort_keys=True) == before
    assert not game.is_legal(action)
    return info.value


@pytest.fixture
def solo() -> DiceGame:
    return DiceGame(["red"], rng=1)


def test_faces_are_the_towers_resource_dice() -> None:
    from firmware_bridge.protocol import RESOURCE_FACES

    assert FACES == RESOURCE_FACES


# --- 6.1 material, players --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "variant"),
    [([], "basic"), (["a"] * 5, "basic"), (["a", "a"], "basic"), (["a"], "plus")],
)
def test_player_counts_are_checked(players: list[str], variant: str) -> None:
    with pytest.raises(ValueError, match="players"):
        DiceGame(players, variant)


def test_a_face_that_is_no_resource_die_face_is_refused(solo: DiceGame) -> None:
    refused(solo, Roll("red", (), pad("sheep")), "6.1.1")


def test_the_start_road_is_marked_and_scores_nothing(solo: DiceGame) -> None:
    sheet = solo.sheets["red"]
    assert sheet.has(Piece.ROAD, 0) and sheet.count(Piece.ROAD) == 1
    assert sheet.points() == 0


# --- 6.2.1 rolling ----------------------------------------------------------------------------


def test_the_first_roll_throws_all_six_dice(solo: DiceGame) -> None:
    refused(solo, Roll("red", (0,), pad(n=5)), "6.2.1")
    refused(solo, Roll("red", (), pad(n=5)), "6.2.1")
    roll(solo, *pad("ore"))
    assert solo.turn.dice == list(pad("ore"))


def test_held_dice_stay_and_the_rest_are_thrown_again(solo: DiceGame) -> None:
    roll(solo, "ore", "wool", "gold", "gold", "grain", "gold")
    roll(solo, "brick", "lumber", "ore", keep=(0, 1, 4))
    assert solo.turn.dice == ["ore", "wool", "brick", "lumber", "grain", "ore"]


def test_the_third_roll_may_take_back_dice_held_before(solo: DiceGame) -> None:
    roll(solo, *pad("ore", "ore"))
    roll(solo, *pad(n=4), keep=(0, 1))
    # Die 0 was held at roll 2: it is thrown again now.
    roll(solo, "wool", "grain", "grain", "grain", "grain", keep=(1,))
    assert solo.turn.dice == ["wool", "ore", "grain", "grain", "grain", "grain"]


def test_three_rolls_at_most(solo: DiceGame) -> None:
    for _ in range(3):
        roll(solo, *pad())
    refused(solo, Roll("red", (), pad()), "6.2.1")


@pytest.mark.parametrize("keep", [(6,), (0, 0), (-1,), (0, 1, 2, 3, 4, 5)])
def test_held_dice_must_be_different_dice_and_not_all(solo: DiceGame, keep: tuple) -> None:
    roll(solo, *pad())
    refused(solo, Roll("red", keep, None), "6.2.1")


def test_faces_must_match_the_dice_thrown(solo: DiceGame) -> None:
    roll(solo, *pad())
    refused(solo, Roll("red", (0, 1), pad(n=3)), "6.2.1")


def test_nothing_before_the_first_roll(solo: DiceGame) -> None:
    refused(solo, EndTurn("red"), "6.2.1")
    refused(solo, Build("red", "road", 1), "6.2.1")
    assert all(isinstance(a, Roll) for a in solo.legal_actions())


@pytest.mark.parametrize("first", ["build", "joker", "exchange"])
def test_no_roll_once_the_result_is_used(first: str) -> None:
    game = DiceGame(["red"])
    turn(game, pad(*KNIGHT), ("knight", 0))
    roll(game, "brick", "lumber", "gold", "gold", "wool", "wool")
    if first == "build":
        build(game, "road", 1)
    elif first == "joker":
        game.apply(UseJoker("red", 0, 4))
    else:
        game.apply(ExchangeGold("red", (2, 3), "ore"))
    refused(game, Roll("red", (0,), pad(n=5)), "6.2.1")


def test_drawn_dice_are_reproducible_and_journaled_with_their_faces() -> None:
    a, b = DiceGame(["red"], rng=5), DiceGame(["red"], rng=RandomSource(5))
    journal: list[DiceAction] = []
    a.apply(Roll("red"), journal.append)
    b.apply(Roll("red"))
    assert a.turn.dice == b.turn.dice and len(a.turn.dice) == 6
    assert journal == [Roll("red", (), tuple(a.turn.dice))]
    a.apply(Roll("red", (0, 1)), journal.append)
    assert a.turn.dice[:2] == b.turn.dice[:2]
    last = journal[-1]
    assert isinstance(last, Roll) and last.faces is not None and len(last.faces) == 4


def test_only_the_current_player_acts() -> None:
    game = DiceGame(["red", "blue"])
    refused(game, Roll("blue", (), pad()), "6.2")


def test_an_action_of_the_board_game_is_refused(solo: DiceGame) -> None:
    from companion.actions import RollDice

    err = refused(solo, RollDice("red", (3, 4)), "6.2")  # type: ignore[arg-type]
    assert "RollDice is no action of the dice game" in str(err)


# --- 6.2.2 building with the dice ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("piece", "index", "faces"),
    [("road", 1, ROAD), ("settlement", 0, SETTLEMENT), ("city", 0, CITY), ("knight", 0, KNIGHT)],
)
def test_each_item_costs_its_dice(piece: str, index: int, faces: tuple[str, ...]) -> None:
    game = DiceGame(["red"])
    if piece == "city":
        turn(game, pad(*ROAD), ("road", 1))  # crossing 2 needs road 1
    # One die short of the cost: refused.
    roll(game, *pad(*faces[1:]))
    refused(game, Build("red", piece, index), "6.2.2")
    game.apply(EndTurn("red"))
    roll(game, *pad(*faces))
    build(game, piece, index)
    assert game.turn.spent == [True] * len(faces) + [False] * (6 - len(faces))


def test_each_item_uses_its_own_dice(solo: DiceGame) -> None:
    roll(solo, "brick", "lumber", "wool", "grain", "gold", "gold")
    build(solo, "settlement", 0)
    refused(solo, Build("red", "road", 1), "6.2.2")


def test_several_items_in_one_turn(solo: DiceGame) -> None:
    turn(solo, (*ROAD, *SETTLEMENT), ("road", 1), ("settlement", 0))
    assert solo.sheets["red"].track == [1 + 3]


def test_bad_pieces_and_indices_are_refused(solo: DiceGame) -> None:
    roll(solo, *pad())
    refused(solo, Build("red", "castle", 0), "6.2.2")
    refused(solo, Build("red", "road", 16), "6.3.5")
    err = refused(solo, Build("red", "road", 0), "6.1.2")
    assert "road 0 is marked already" in str(err)


# --- 6.2.3 / 6.2.4 scoring and the end ---------------------------------------------------------


def test_a_turn_scores_the_values_built_or_minus_two(solo: DiceGame) -> None:
    turn(solo, pad(*KNIGHT, *ROAD), ("knight", 0), ("road", 1))
    turn(solo, pad())
    assert solo.sheets["red"].track == [1 + 1, -2]
    assert solo.score("red") == 0


def test_the_game_ends_after_fifteen_turns_each() -> None:
    game = DiceGame(["red", "blue"])
    for _ in range(2 * 15 - 1):
        turn(game, pad())
    assert not game.over
    events = game.apply(Roll("blue", (), pad())) + game.apply(EndTurn("blue"))
    assert game.over and game.winners == ("red", "blue")
    assert events[-1] == {"type": "game_over", "winners": ["red", "blue"]}
    assert game.legal_actions() == []
    refused(game, Roll("red", (), pad()), "6.2.4")


# --- 6.3 building rules (basic) ----------------------------------------------------------------


def test_a_road_must_touch_a_marked_road(solo: DiceGame) -> None:
    roll(solo, *ROAD, *ROAD, "gold", "gold")
    refused(solo, Build("red", "road", 3), "6.3.1")
    # Road 2 leaves crossing 1, where settlement 3 is not built: symbols never block (6.3.1).
    build(solo, "road", 2)
    build(solo, "road", 3)


def test_settlements_in_ascending_order_with_a_road(solo: DiceGame) -> None:
    turn(solo, pad(*ROAD), ("road", 2))
    roll(solo, *pad(*SETTLEMENT))
    err = refused(solo, Build("red", "settlement", 1), "6.3.2")
    assert "settlement 4 must wait for settlement 3" in str(err)
    build(solo, "settlement", 0)
    solo.apply(EndTurn("red"))
    roll(solo, *pad(*SETTLEMENT))
    build(solo, "settlement", 1)
    solo.apply(EndTurn("red"))
    roll(solo, *pad(*SETTLEMENT))
    refused(solo, Build("red", "settlement", 2), "6.3.2")  # crossing 5: no road yet


def test_cities_in_ascending_order_with_a_road_and_no_settlement_needed(solo: DiceGame) -> None:
    roll(solo, *pad(*CITY))
    err = refused(solo, Build("red", "city", 0), "6.3.3")  # road 1 to crossing 2 is missing
    assert "city 7 needs a marked road next to it" in str(err)
    solo.apply(EndTurn("red"))
    turn(solo, (*ROAD, *ROAD, *ROAD), ("road", 1), ("road", 2), ("road", 3))
    turn(solo, pad(*ROAD), ("road", 5))
    roll(solo, *pad(*CITY))
    refused(solo, Build("red", "city", 1), "6.3.3")  # 12 before 7
    build(solo, "city", 0)
    assert not solo.sheets["red"].has(Piece.SETTLEMENT, 0)


def test_knights_in_ascending_order_without_roads(solo: DiceGame) -> None:
    roll(solo, *KNIGHT, *KNIGHT)
    err = refused(solo, Build("red", "knight", 1), "6.3.4")
    assert "knight 2 must wait for knight 1" in str(err)  # as printed: knights 1-6
    build(solo, "knight", 0)
    build(solo, "knight", 1)


# --- 6.4 jokers, 6.5 gold ------------------------------------------------------------------------


def test_a_joker_needs_its_knight_and_turns_one_die(solo: DiceGame) -> None:
    roll(solo, "ore", "wool", "grain", "wool", "wool", "gold")
    refused(solo, UseJoker("red", 0, 3), "6.4.1")
    build(solo, "knight", 0)
    # The knight built this turn unlocks its joker at once.
    refused(solo, UseJoker("red", 0, 0), "6.4.1")  # die 0 paid for the knight
    refused(solo, UseJoker("red", 0, 3, "brick"), "6.4.1")  # knight 1 shows ore
    solo.apply(UseJoker("red", 0, 3))
    assert solo.turn.dice[3] == "ore"
    assert solo.sheets["red"].jokers_used[0] == 0


def test_a_joker_is_used_once_per_game(solo: DiceGame) -> None:
    turn(solo, pad(*KNIGHT), ("knight", 0))
    roll(solo, *pad("wool", "wool"))
    solo.apply(UseJoker("red", 0, 0))
    refused(solo, UseJoker("red", 0, 1), "6.4.1")
    solo.apply(EndTurn("red"))
    roll(solo, *pad("wool"))
    refused(solo, UseJoker("red", 0, 0), "6.4.1")


def test_several_jokers_in_one_turn_and_knight_six_gives_any(solo: DiceGame) -> None:
    turn(solo, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    turn(solo, (*KNIGHT, *KNIGHT), ("knight", 2), ("knight", 3))
    turn(solo, (*KNIGHT, *KNIGHT), ("knight", 4), ("knight", 5))
    roll(solo, "gold", "gold", "gold", "wool", "lumber", "lumber")
    refused(solo, UseJoker("red", 5, 0), "6.4.1")  # "any" needs a resource named
    refused(solo, UseJoker("red", 9, 0), "6.4.1")
    solo.apply(UseJoker("red", 5, 0, "brick"))
    solo.apply(UseJoker("red", 4, 1))  # knight 5: brick
    solo.apply(UseJoker("red", 1, 2))  # knight 2: grain
    build(solo, "road", 1)
    build(solo, "settlement", 0)


def test_gold_pairs_turn_one_die_and_void_the_other(solo: DiceGame) -> None:
    roll(solo, "gold", "gold", "gold", "brick", "lumber", "wool")
    refused(solo, ExchangeGold("red", (0, 3), "grain"), "6.5.1")  # die 3 is brick
    refused(solo, ExchangeGold("red", (0, 1), "gold"), "6.5.1")
    refused(solo, ExchangeGold("red", (0, 0), "grain"), "6.5.1")
    solo.apply(ExchangeGold("red", (0, 1), "grain"))
    assert solo.turn.dice[0] == "grain" and solo.turn.void[1]
    # Die 2 has no partner left: the void die 1 counts for nothing.
    refused(solo, ExchangeGold("red", (2, 1), "ore"), "6.5.1")
    build(solo, "settlement", 0)


# --- 6.6 Plus ----------------------------------------------------------------------------------


def test_plus_dice_ramp_turn_by_turn() -> None:
    game = DiceGame(["red", "blue"], "plus")
    thrown = []
    for _ in range(5):
        thrown.append(game.dice_this_turn())
        refused(game, Roll(game.current_player, (), pad(n=thrown[-1] + 1)), "6.2.1")
        turn(game, pad(n=thrown[-1]))
    assert thrown == [3, 4, 5, 6, 6]
    assert game.sheets["red"].track == []  # Plus: no track, no -2 (6.6.1, 6.6.7)


def plus_at_six_dice() -> DiceGame:
    game = DiceGame(["red", "blue"], "plus")
    for n in (3, 4, 5, 6):
        turn(game, pad(n=n))
    return game


def test_plus_any_order_but_settlements_and_cities_need_roads() -> None:
    game = plus_at_six_dice()
    roll(game, *(*KNIGHT, *KNIGHT))
    build(game, "knight", 8)
    build(game, "knight", 3)
    game.apply(EndTurn("red"))
    turn(game, pad())
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 2), ("road", 3), ("road", 4))
    turn(game, pad())
    roll(game, *pad(*SETTLEMENT))
    refused(game, Build("red", "settlement", 3), "6.6.5")  # crossing 8: no road
    build(game, "settlement", 2)
    assert game.score("red") == 1


def test_plus_desert_joker_needs_both_knights_once() -> None:
    game = plus_at_six_dice()
    turn(game, pad(*KNIGHT), ("knight", 5))
    turn(game, pad())
    roll(game, *pad(*KNIGHT))
    refused(game, UseJoker("red", 5, 3, "ore"), "6.6.6")
    build(game, "knight", 6)
    game.apply(UseJoker("red", 5, 3, "ore"))
    refused(game, UseJoker("red", 6, 4, "ore"), "6.6.6")  # the other desert's knights
    refused(game, UseJoker("red", 5, 4, "ore"), "6.4.1")


def test_plus_largest_army_first_to_three_lost_only_to_more() -> None:
    game = plus_at_six_dice()
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    roll(game, *pad(*KNIGHT))
    events = build(game, "knight", 2)
    assert {"type": "largest_army", "player": "red", "from": None} in events
    game.apply(EndTurn("red"))
    assert game.score("red") == 2
    turn(game, pad(*KNIGHT), ("knight", 2))  # blue ties at 3: red keeps it
    assert game.army == "red"
    turn(game, pad())
    roll(game, *pad(*KNIGHT))
    events = build(game, "knight", 3)
    assert {"type": "largest_army", "player": "blue", "from": "red"} in events
    assert (game.score("red"), game.score("blue")) == (0, 2)


def test_plus_longest_road_at_the_marked_fifth_and_lost_to_a_longer_one() -> None:
    game = plus_at_six_dice()
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 2), ("road", 3), ("road", 4))
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 2), ("road", 3), ("road", 4))
    roll(game, *pad(*ROAD, *ROAD))
    build(game, "road", 5)  # a branch: still a road of 4
    assert game.road is None
    events = build(game, "road", 6)
    assert {"type": "longest_road", "player": "red", "from": None} in events
    game.apply(EndTurn("red"))
    # Blue: 0,2,3,4,6 and the branch road 1: 5 long, not longer than red's 5.
    turn(game, pad(*ROAD, *ROAD), ("road", 1), ("road", 6))
    assert game.road == "red" and game.sheets["blue"].longest_road() == 5
    turn(game, pad())
    turn(game, pad(*ROAD), ("road", 7))
    assert game.road == "blue" and (game.score("red"), game.score("blue")) == (0, 2)


def test_plus_wins_at_once_on_ten_points() -> None:
    game = plus_at_six_dice()
    # Red marks roads to the cities' crossings, three cities and a settlement: 9 VP.
    plan: list[tuple[tuple[str, ...], tuple[tuple[str, int], ...]]] = [
        ((*ROAD, *ROAD, *ROAD), (("road", 1), ("road", 2), ("road", 3))),
        ((*ROAD, *ROAD, *ROAD), (("road", 4), ("road", 5), ("road", 6))),
        ((*ROAD, *ROAD, *ROAD), (("road", 8), ("road", 7), ("road", 9))),
        ((*ROAD, *ROAD, *ROAD), (("road", 11), ("road", 12), ("road", 10))),
        (pad(*CITY), (("city", 0),)),
        (pad(*CITY), (("city", 1),)),
        (pad(*CITY), (("city", 2),)),
        (pad(*SETTLEMENT), (("settlement", 0),)),
    ]
    for faces, builds in plan:
        turn(game, faces, *builds)
        turn(game, pad())
    assert not game.over and game.score("red") == 3 * 2 + 1 + 2  # cities, settlement, road
    roll(game, *pad(*SETTLEMENT))
    events = build(game, "settlement", 4)  # crossing 11, on road 10
    assert game.over and game.winners == ("red",) and game.score("red") == 10
    assert events[-1] == {"type": "game_over", "winners": ["red"]}
    refused(game, EndTurn("red"), "6.2.4")


# --- snapshots and JSON ------------------------------------------------------------------------


def test_actions_round_trip_through_json() -> None:
    for action in (
        Roll("red", (0, 2), ("ore", "gold", "wool", "brick")),
        Roll("red"),
        Build("red", "city", 2),
        UseJoker("red", 5, 1, "ore"),
        ExchangeGold("red", (4, 5), "grain"),
        EndTurn("red"),
    ):
        data = json.loads(json.dumps(action_to_json(action)))
        assert action_from_json(data) == action


@pytest.mark.parametrize(
    "data", [{}, {"type": "trade"}, {"type": "build", "player": "red"}, {"type": "roll", "x": 1}]
)
def test_malformed_actions_are_named(data: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="action"):
        action_from_json(data)


def test_a_snapshot_resumes_the_same_game() -> None:
    game = DiceGame(["red", "blue"], "plus", rng=3)
    turn(game, pad("brick", "lumber", n=3), ("road", 2))
    roll(game, "ore", "wool", "grain", "gold")
    data = json.loads(json.dumps(game.snapshot()))
    again = DiceGame.from_snapshot(data, rng=3)
    assert again.snapshot() == game.snapshot()
    build(again, "knight", 0)
    build(game, "knight", 0)
    assert again.snapshot() == game.snapshot()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.pop("turn"), "not a dice-game snapshot"),
        (lambda d: d["sheets"].pop("blue"), "not a dice-game snapshot"),
        (lambda d: d.__setitem__("variant", "chess"), "not a dice-game snapshot"),
        (lambda d: d["sheets"]["red"]["order"].append(["road", 9]), "red's sheet fails"),
    ],
)
def test_a_damaged_snapshot_is_named(damage: Any, message: str) -> None:
    game = DiceGame(["red", "blue"])
    turn(game, pad(*ROAD), ("road", 1))
    data = json.loads(json.dumps(game.snapshot()))
    damage(data)
    with pytest.raises(ValueError, match=message):
        DiceGame.from_snapshot(data)


# --- 7.6 sheet checks ----------------------------------------------------------------------------


def played_sheet() -> Sheet:
    game = DiceGame(["red"])
    turn(game, (*ROAD, *SETTLEMENT), ("road", 1), ("settlement", 0))
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    roll(game, *pad("wool"))
    game.apply(UseJoker("red", 1, 0))
    game.apply(EndTurn("red"))
    return game.sheets["red"]


def test_a_played_sheet_passes_the_checks() -> None:
    sheet = played_sheet()
    assert check_sheet(sheet, Variant.BASIC) == []
    assert check_sheet(sheet, Variant.BASIC, finished=True) == ["DICE-TRACK"]


@pytest.mark.parametrize(
    ("tamper", "check"),
    [
        (lambda s: s.order.insert(0, (Piece.ROAD, 3)), "DICE-ROAD-CHAIN"),
        (lambda s: s.order.insert(0, (Piece.SETTLEMENT, 1)), "DICE-SETTLE-ORDER"),
        (lambda s: s.order.append((Piece.CITY, 1)), "DICE-CITY-ORDER"),
        (lambda s: s.order.append((Piece.KNIGHT, 4)), "DICE-KNIGHT-ORDER"),
        (lambda s: s.jokers_used.__setitem__(3, 2), "DICE-JOKER"),
        (lambda s: s.track.__setitem__(0, 5), "DICE-TRACK"),
    ],
)
def test_the_sheet_checks_catch_each_fault(tamper: Any, check: str) -> None:
    sheet = played_sheet()
    tamper(sheet)
    assert check in check_sheet(sheet, Variant.BASIC)


# --- scripted games to their end -----------------------------------------------------------------


def test_scripted_basic_game() -> None:
    game = DiceGame(["red"])
    expected: list[int] = []

    def scored(entry: int) -> None:
        game.apply(EndTurn("red"))
        expected.append(entry)
        assert game.sheets["red"].track == expected

    turn(game, (*ROAD, *SETTLEMENT), ("road", 1), ("settlement", 0))
    expected.append(1 + 3)
    turn(game, pad())
    expected.append(-2)
    turn(game, pad(*CITY), ("city", 0))
    expected.append(7)
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    expected.append(1 + 2)
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 2), ("road", 3), ("road", 5))
    expected.append(1 + 1 + 1)
    roll(game, "grain", "grain", "ore", "ore", "gold", "gold")
    game.apply(ExchangeGold("red", (5, 4), "ore"))
    build(game, "city", 1)
    scored(12)
    # Three rolls, holding what a settlement needs.
    roll(game, "brick", "ore", "ore", "gold", "gold", "gold")
    roll(game, "lumber", "lumber", "ore", "ore", "ore", keep=(0,))
    roll(game, "wool", "grain", "gold", "gold", keep=(0, 1))
    build(game, "settlement", 1)
    scored(4)
    roll(game, "grain", "wool", "brick", "brick", "lumber", "lumber")
    game.apply(UseJoker("red", 0, 2))
    build(game, "knight", 2)
    build(game, "road", 4)
    scored(3 + 1)
    turn(game, pad(*SETTLEMENT), ("settlement", 2))
    expected.append(5)
    turn(game, pad())
    expected.append(-2)
    turn(game, pad(*ROAD, *ROAD), ("road", 6), ("road", 7))
    expected.append(1 + 1)
    roll(game, "brick", "lumber", "wool", "ore", "gold", "gold")
    game.apply(UseJoker("red", 1, 3))
    build(game, "settlement", 3)
    scored(7)
    turn(game, pad())
    expected.append(-2)
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 3), ("knight", 4))
    expected.append(4 + 5)
    assert not game.over
    roll(game, *pad(*KNIGHT))
    refused(game, UseJoker("red", 5, 3, "ore"), "6.4.1")
    build(game, "knight", 5)
    scored(6)
    assert game.over and game.winners == ("red",)
    assert game.sheets["red"].track == expected and len(expected) == 15
    assert game.score("red") == sum(expected) == 60
    assert check_sheet(game.sheets["red"], Variant.BASIC, finished=True) == []


def test_scripted_plus_game() -> None:
    game = DiceGame(["red", "blue"], "plus")
    turn(game, ("brick", "lumber", "gold"), ("road", 2))
    turn(game, SETTLEMENT, ("settlement", 0))
    turn(game, pad(*SETTLEMENT, n=5), ("settlement", 1))
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 3), ("road", 4), ("road", 6))  # red: road
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 2), ("knight", 3))  # blue: army
    assert (game.road, game.army) == ("red", "blue")
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 0), ("knight", 1))
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 1), ("road", 2), ("road", 3))
    turn(game, (*KNIGHT, *KNIGHT), ("knight", 5), ("knight", 6))  # 4 knights tie blue's 4
    assert game.army == "blue"
    turn(game, pad())
    roll(game, "ore", "wool", "grain", "grain", "wool", "brick")
    game.apply(UseJoker("red", 5, 5, "ore"))
    build(game, "knight", 7)
    build(game, "knight", 8)
    game.apply(EndTurn("red"))
    assert game.army == "red"
    turn(game, pad(*CITY), ("city", 0))
    turn(game, (*SETTLEMENT, *ROAD), ("settlement", 2), ("road", 5))
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 4), ("road", 6), ("road", 7))  # blue: 6 long
    assert game.road == "blue"
    turn(game, pad(*CITY), ("city", 1))
    turn(game, pad(*SETTLEMENT), ("settlement", 1))
    turn(game, (*ROAD, *ROAD, *ROAD), ("road", 7), ("road", 8), ("road", 1))
    turn(game, (*SETTLEMENT, *ROAD), ("settlement", 2), ("road", 5))
    turn(game, pad(*CITY), ("city", 2))
    turn(game, pad())
    turn(game, pad(*SETTLEMENT), ("settlement", 0))
    turn(game, pad())
    assert not game.over
    roll(game, *pad(*SETTLEMENT))
    build(game, "settlement", 3)
    assert game.winners == ("red",)
    red = 4 * 1 + 2 * 2 + 2  # settlements 0-3, cities 1-2, Largest Army
    blue = 3 * 1 + 2 + 2  # settlements 0-2, city 0, Longest Road
    assert (game.score("red"), game.score("blue")) == (red, blue) == (10, 7)


# --- properties of random legal games ----------------------------------------------------------


def play_randomly(game: DiceGame, seed: int, max_actions: int = 600) -> None:
    """Random legal actions, building whenever possible, checking the scores after each."""
    pick = random.Random(seed)
    for _ in range(max_actions):
        actions = game.legal_actions()
        if not actions:
            return
        builds = [a for a in actions if isinstance(a, Build)]
        others = [a for a in actions if not isinstance(a, Build | EndTurn)]
        end = [a for a in actions if isinstance(a, EndTurn)]
        if builds and pick.random() < 0.8:
            action: DiceAction = pick.choice(builds)
        elif end and (not others or pick.random() < 0.4):
            action = end[0]
        else:
            action = pick.choice(others)
        game.apply(action)
        assert_scores_match_sheets(game)


def assert_scores_match_sheets(game: DiceGame) -> None:
    for p in game.players:
        sheet = game.sheets[p]
        assert (
            check_sheet(sheet, game.variant, finished=game.over and game.variant is Variant.BASIC)
            == []
        )
        if game.variant is Variant.BASIC:
            assert game.score(p) == sum(sheet.track)
            continue
        bonus = 2 * (game.army == p) + 2 * (game.road == p)
        assert game.score(p) == sheet.points() + bonus
        knights = {q: game.sheets[q].count(Piece.KNIGHT) for q in game.players}
        if game.army == p:
            assert knights[p] >= 3 and knights[p] == max(knights.values())
        roads = {q: game.sheets[q].longest_road() for q in game.players}
        if game.road == p:
            assert sheet.has(Piece.ROAD, PLUS_SHEET.marked_road)
            assert roads[p] == max(roads.values())
    if game.over and game.variant is Variant.PLUS:
        assert game.score(game.winners[0]) >= 10
    if game.over and game.variant is Variant.BASIC:
        assert all(len(game.sheets[p].track) == 15 for p in game.players)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(1, 4),
    variant=st.sampled_from(list(Variant)),
)
def test_random_legal_games_score_what_the_sheets_give(
    seed: int, players: int, variant: Variant
) -> None:
    names = ["red", "blue", "white", "orange"][: max(players, 2 if variant == "plus" else 1)]
    game = DiceGame(names, variant, rng=seed)
    play_randomly(game, seed, max_actions=2000)
    # A basic game always ends within its 15 turns each; random Plus play may take longer.
    assert game.over or game.variant is Variant.PLUS


def test_the_sheet_layouts_are_consistent() -> None:
    for layout in (BASIC_SHEET, PLUS_SHEET):
        crossings = {c for road in layout.roads for c in road}
        assert set(layout.settlements) | set(layout.cities) <= crossings
        assert not set(layout.settlements) & set(layout.cities)
        for joker in layout.jokers:
            assert all(0 <= k < len(layout.knight_values) for k in joker.knights)
    assert BASIC_SHEET.settlement_values == tuple(sorted(BASIC_SHEET.settlement_values))
    assert BASIC_SHEET.city_values == tuple(sorted(BASIC_SHEET.city_values))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"roads": ()}, "start road"),
        ({"settlements": (1, 3, 5, 8, 11, 99)}, "end of a road"),
        ({"city_values": (7, 12)}, "one value per symbol"),
        ({"jokers": (Joker("ore", (6,)),)}, "knights of the sheet"),
        ({"jokers": (Joker("gold", (0,)),)}, "resource must be"),
        ({"marked_road": 16}, "marked_road"),
    ],
)
def test_a_table_layout_is_checked(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(BASIC_SHEET, **change)


def test_a_table_layout_replaces_the_printed_sheet() -> None:
    # A sheet where the first settlement is worth 10 scores 10 for it.
    layout = replace(BASIC_SHEET, settlement_values=(10, 11, 12, 13, 14, 15))
    game = DiceGame(["red"], layout=layout)
    turn(game, pad(*SETTLEMENT), ("settlement", 0))
    assert game.sheets["red"].track == [10]
