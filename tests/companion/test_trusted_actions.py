"""What ``Game.apply`` judges again: an action ``legal_actions`` has just listed is trusted only
as the very object listed, in the very state it was listed in; everything else is checked."""

from __future__ import annotations

import pytest
from conftest import V, dice_for, give, refusal, roll

from companion.actions import BuildCity, BuildRoad, EndTurn, RollDice
from companion.game import Game, Phase, Rules
from companion.layouts import random_board


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The actions the full check is run on, in order."""
    seen: list[object] = []
    check = Game._check

    def spy(self: Game, action: object) -> None:
        seen.append(action)
        check(self, action)

    monkeypatch.setattr(Game, "_check", spy)
    return seen


def test_the_listed_object_is_not_judged_again(started: Game, judged: list[object]) -> None:
    listed = started.legal_actions()
    started.rng.dice.append(dice_for(2))  # type: ignore[attr-defined]
    started.apply(listed[0])
    assert isinstance(listed[0], RollDice) and started.phase == Phase.MAIN
    assert judged == []


def test_an_equal_action_made_elsewhere_is_judged_in_full(
    started: Game, judged: list[object]
) -> None:
    roll(started, 2)
    listed = started.legal_actions()
    same = EndTurn("red")
    assert same in listed and not any(a is same for a in listed)
    started.apply(same)
    assert judged[-1] is same


def test_a_listed_action_is_judged_again_once_the_state_changed(started: Game) -> None:
    roll(started, 2)
    give(started, "red", lumber=1, brick=1)
    listed = started.legal_actions()
    first, second = [a for a in listed if isinstance(a, BuildRoad)][:2]
    started.apply(first)
    # Listed a moment ago, but red has spent the cards for it.
    assert refusal(started, second).rule == "1.9.1"


def test_an_action_slipped_into_the_returned_list_is_judged(started: Game) -> None:
    roll(started, 2)
    listed = started.legal_actions()
    city = BuildCity("red", V(0, -1, "N"))
    listed.append(city)
    assert refusal(started, city).rule == "1.9.1"


def test_with_scenario_hooks_points_are_counted_after_every_action() -> None:
    # Hooks may give points at any step (a scenario's own rules), so no action is assumed to
    # leave the points as they were: red, given 10 points by such a rule, wins on its roll.
    rules = Rules(
        areas={"north": [[0, -2]]},
        hooks=({"hook": "robber_forbidden", "areas": ["north"]},),
    )
    game = Game(random_board(4, seed=3), ["red", "blue", "white"], rules, rng=1)
    while game.phase != Phase.ROLL:
        game.apply(game.legal_actions()[0])
    game.special_vp[game.current] += 10 - game.victory_points(game.current)
    events = game.apply(RollDice(game.current_player))
    assert events[-1]["type"] == "won" and game.phase == Phase.GAME_OVER
