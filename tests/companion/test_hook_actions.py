"""The engine's extension point for scenario actions: a hook's own actions and decisions.

A toy hook stands in for a scenario: after every settlement built in the main phase, its
builder owes the bank one card of their choice (``PayToll``) before play goes on.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from conftest import (
    Script,
    V,
    build_roads,
    buy_card,
    corner_path,
    fixed_board,
    found,
    give,
    refusal,
    roll,
)

from companion import hooks
from companion.actions import (
    ACTION_TYPES,
    Action,
    BuildSettlement,
    DevCard,
    EndTurn,
    MoveRobber,
    action_from_json,
    action_to_json,
    register_action,
)
from companion.board import RESOURCES, Resource
from companion.game import Event, Game, IllegalAction, Phase, Rules
from companion.hooks.base import Hook
from companion.journal import JournaledGame


@dataclass(frozen=True)
class PayToll(Action):
    type: ClassVar[str] = "test_pay_toll"
    resource: Resource


class Toll(Hook):
    name = "test_toll"
    actions = (PayToll,)

    def after_settlement(self, game: Game, p: int, v: int, founding: bool) -> list[Event]:
        if not founding:
            game.hook_state.setdefault(self.name, {"owed": []})["owed"].append(p)
        return []

    def _owed(self, game: Game) -> list[int]:
        return game.hook_state.get(self.name, {}).get("owed", [])

    def pending(self, game: Game) -> IllegalAction | None:
        owed = self._owed(game)
        if owed:
            return IllegalAction("T.1", "{} must pay the toll first", game.players[owed[0]])
        return None

    def generate(self, game: Game, out: list[Action]) -> None:
        owed = self._owed(game)
        if owed:
            p = owed[0]
            hand = game.hands[p]
            out.extend(PayToll(game.players[p], r) for i, r in enumerate(RESOURCES) if hand[i] > 0)

    def check(self, game: Game, p: int, action: Action) -> None:
        assert isinstance(action, PayToll)
        owed = self._owed(game)
        if not owed or owed[0] != p:
            raise IllegalAction("T.1", "{} owes no toll", game.players[p])
        if game.hands[p][RESOURCES.index(action.resource)] == 0:
            raise IllegalAction("T.2", "{} has no {}", game.players[p], action.resource.value)

    def execute(self, game: Game, p: int, action: Action) -> list[Event]:
        assert isinstance(action, PayToll)
        i = RESOURCES.index(action.resource)
        game.hands[p][i] -= 1
        game.bank[i] += 1
        self._owed(game).pop(0)
        return [{"type": "toll", "player": action.player, "card": action.resource.value}]


@pytest.fixture(autouse=True)
def toll_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(hooks.HOOKS, Toll.name, Toll)
    monkeypatch.setitem(ACTION_TYPES, PayToll.type, PayToll)


def toll_game(rng: Any = None) -> Game:
    rules = Rules.for_players(3)
    rules = Rules.from_json({**rules.to_json(), "hooks": [{"hook": "test_toll"}]})
    return Game(fixed_board(), ["red", "blue", "white"], rules, rng or Script())


def settle_red(game: Game) -> None:
    """Red (to move, main phase) builds a road pair and a settlement: the toll is then owed."""
    found(game)
    roll(game, 12)
    give(game, "red", lumber=3, brick=3, wool=2, grain=1)
    build_roads(game, "red", corner_path(V(1, -2, "S"), V(1, -1, "N"), V(2, -2, "S")))
    game.apply(BuildSettlement("red", V(2, -2, "S")))


def test_a_pending_decision_is_the_only_legal_action() -> None:
    game = toll_game()
    settle_red(game)
    legal = game.legal_actions()
    assert legal and all(isinstance(a, PayToll) and a.player == "red" for a in legal)
    held = {r for r, n in zip(RESOURCES, game.hands[0], strict=True) if n > 0}
    assert {a.resource for a in legal} == held and Resource.ORE not in held


def test_base_actions_are_refused_with_the_hooks_reason_and_change_nothing() -> None:
    game = toll_game()
    settle_red(game)
    before = game.snapshot()
    err = refusal(game, EndTurn("red"))
    assert err.rule == "T.1" and "red must pay the toll first" in str(err)
    assert game.snapshot() == before


def test_a_hook_action_is_checked_by_its_hook() -> None:
    game = toll_game()
    settle_red(game)
    before = game.snapshot()
    assert refusal(game, PayToll("red", Resource.ORE)).rule == "T.2"
    assert refusal(game, PayToll("blue", Resource.WOOL)).rule == "T.1"
    assert game.snapshot() == before


def test_executing_the_decision_lets_play_go_on() -> None:
    game = toll_game()
    settle_red(game)
    wool = game.hands[0][RESOURCES.index(Resource.WOOL)]
    events = game.apply(PayToll("red", Resource.WOOL))
    assert events == [{"type": "toll", "player": "red", "card": "wool"}]
    assert game.hands[0][RESOURCES.index(Resource.WOOL)] == wool - 1
    assert EndTurn("red") in game.legal_actions()


def test_an_action_no_hook_of_the_game_claims_is_refused() -> None:
    game = Game(fixed_board(), ["red", "blue", "white"], rng=Script())
    with pytest.raises(IllegalAction, match="PayToll is not an action of this game"):
        game.apply(PayToll("red", Resource.WOOL))


def test_hook_actions_travel_as_json_and_through_the_journal(tmp_path: Any) -> None:
    action = PayToll("red", Resource.GRAIN)
    assert action_from_json(action_to_json(action)) == action

    path = tmp_path / "toll.sqlite"
    rules = toll_game().rules
    jgame = JournaledGame.create(path, fixed_board(), ["red", "blue", "white"], rules, seed=5)
    chooser = random.Random(5)
    tolls = 0
    while tolls < 2 and jgame.game.winner is None:
        action = chooser.choice(jgame.game.legal_actions())
        jgame.apply(action)
        tolls += isinstance(action, PayToll)
    assert tolls == 2
    jgame.journal.close()
    reopened = JournaledGame.open(path)
    assert reopened.damage is None
    assert reopened.game.snapshot() == jgame.game.snapshot()


def test_register_action_refuses_a_taken_name() -> None:
    @dataclass(frozen=True)
    class Impostor(Action):
        type: ClassVar[str] = "end_turn"

    with pytest.raises(ValueError, match="already taken"):
        register_action(Impostor)


def test_views_carry_the_scenario_panel_only_in_a_game_with_hooks() -> None:
    plain = Game(fixed_board(), ["red", "blue", "white"], rng=Script())
    assert "scenario" not in plain.public_view()
    assert "scenario" not in plain.private_view("red")["you"]
    game = toll_game()
    # The toy hook shows nothing of its own, but its action is named for the page's buttons.
    assert game.public_view()["scenario"] == {
        "panels": [],
        "actions": {"test_pay_toll": "Test pay toll"},
    }
    assert game.private_view("blue")["you"]["scenario"] == {"panels": []}


class Lenient(Hook):
    """A toy hook: the robber may always spare everyone; every move is reported."""

    name = "test_lenient"

    def may_spare(self, game: Game, p: int, h: int) -> bool:
        return True

    def after_robber(self, game: Game, p: int, h: int, victim: int | None) -> list[Event]:
        return [{"type": "noticed", "hex": list(game.topology.hexes[h]), "victim": victim}]


def test_a_hook_may_let_the_robber_spare_everyone_and_hears_of_every_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(hooks.HOOKS, Lenient.name, Lenient)
    rules = Rules.from_json({**Rules.for_players(3).to_json(), "hooks": [{"hook": Lenient.name}]})
    game = Game(fixed_board(), ["red", "blue", "white"], rules, Script())
    found(game)
    roll(game, 7)
    spare = MoveRobber("red", (1, 0))  # blue's settlement is on it, with cards to rob
    assert (
        spare in game.legal_actions() and MoveRobber("red", (1, 0), "blue") in game.legal_actions()
    )
    events = game.apply(spare)
    assert events[-1] == {"type": "noticed", "hex": [1, 0], "victim": None}
    assert sum(game.hands[1]) == 3  # blue kept the cards of their second settlement


def test_without_such_a_hook_the_robber_must_rob_someone() -> None:
    game = Game(fixed_board(), ["red", "blue", "white"], rng=Script())
    found(game)
    roll(game, 7)
    assert refusal(game, MoveRobber("red", (1, 0))).rule == "1.7.4"
    assert MoveRobber("red", (1, 0)) not in game.legal_actions()


# -- the hook points of victory ----------------------------------------------------------------


class OreGoal(Hook):
    """A toy goal: holding ``ore`` ore wins; ``points`` says whether the points may win."""

    name = "test_ore_goal"

    def goal_reached(self, game: Game, p: int) -> bool:
        return game.hands[p][RESOURCES.index(Resource.ORE)] >= self.params["ore"]

    def may_win(self, game: Game, p: int) -> bool:
        return self.params["points"]


def goal_game(target: int, points: bool, monkeypatch: pytest.MonkeyPatch) -> Game:
    monkeypatch.setitem(hooks.HOOKS, OreGoal.name, OreGoal)
    spec = {"hook": OreGoal.name, "ore": 3, "points": points}
    rules = Rules.from_json({**Rules.for_players(3).to_json(), "victory_points": target})
    rules = Rules.from_json({**rules.to_json(), "hooks": [spec]})
    game = Game(fixed_board(), ["red", "blue", "white"], rules, Script())
    found(game)
    return game


def test_a_goal_reached_wins_below_the_points_target_on_ones_own_turn(monkeypatch) -> None:
    game = goal_game(10, True, monkeypatch)
    roll(game, 12)
    game.apply(EndTurn("red"))
    give(game, "red", ore=3)  # in blue's turn: nobody wins outside their own turn (3.8.2)
    roll(game, 2)
    game.apply(EndTurn("blue"))
    assert game.winner is None
    roll(game, 2)
    events = game.apply(EndTurn("white"))
    # 1.13.3: the goal reached outside red's turn wins at the start of it
    assert game.winner_color == "red" and game.phase == Phase.GAME_OVER
    assert {"type": "won", "player": "red", "victory_points": 2} in events


def test_may_win_holds_back_a_win_by_points_but_not_a_goal_reached(monkeypatch) -> None:
    # two founding settlements and a victory point card reach a target of 3
    vetoed = goal_game(3, False, monkeypatch)
    roll(vetoed, 12)
    buy_card(vetoed, "red", DevCard.VICTORY_POINT)
    assert vetoed.victory_points(0) == 3
    assert vetoed.winner is None and vetoed.phase == Phase.MAIN
    give(vetoed, "red", ore=3)
    vetoed.apply(EndTurn("red"))  # seen at the start of red's next turn
    for color in ("blue", "white"):
        assert vetoed.winner is None
        roll(vetoed, 2)
        vetoed.apply(EndTurn(color))
    assert vetoed.winner_color == "red"
    allowed = goal_game(3, True, monkeypatch)
    roll(allowed, 12)
    buy_card(allowed, "red", DevCard.VICTORY_POINT)
    assert allowed.winner_color == "red"
