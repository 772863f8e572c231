"""The dice game at the table: held dice, the journal and its resume, the Table, the tower."""

from __future__ import annotations

import itertools
import json
import queue
import sqlite3
from pathlib import Path

import pytest
from conftest import WAIT_S

from companion.dice_bot import DiceBot
from companion.dice_host import DiceTableHost
from companion.dice_table import (
    Hold,
    JournaledDiceGame,
    RollFree,
    TableDiceGame,
    open_or_create_dice,
    table_action_from_json,
)
from companion.dice_tower import CONNECTED, DiceTowerLink
from companion.dicegame import FACES, Build, EndTurn, ExchangeGold, UseJoker
from companion.game import IllegalAction
from companion.journal import JournaledGame, JournalError
from companion.layouts import random_board
from companion.table import ApplyAction, Table
from firmware_bridge.driver import DiceTower
from firmware_bridge.protocol import DiceKind
from firmware_bridge.simulator import sim_device

SETTLE = ("brick", "lumber", "wool", "grain", "ore", "ore")
_names = itertools.count()


def rolled(game: TableDiceGame, faces: tuple[str, ...], player: str = "ann") -> None:
    game.apply_at_table(RollFree(player, "manual", faces))


def test_held_dice_keep_their_faces_and_the_free_ones_take_the_throw_by_position() -> None:
    game = TableDiceGame(["ann"])
    rolled(game, ("brick", "lumber", "gold", "gold", "ore", "wool"))
    game.apply_at_table(Hold("ann", (4, 0)))
    thrown = ("grain", "grain", "grain", "grain", "grain", "grain")
    events, record = game.apply_at_table(RollFree("ann", "tower", thrown))
    assert game.turn.dice == ["brick", "grain", "grain", "grain", "ore", "grain"]
    assert events[0]["held"] == [0, 4] and events[0]["source"] == "tower"
    # The journal keeps what was thrown (four free dice) and which dice were held.
    assert record == {
        "type": "roll", "player": "ann", "keep": [0, 4], "faces": ["grain"] * 4,
        "source": "tower",
    }  # fmt: skip


def test_held_dice_stay_held_for_the_third_roll_and_are_freed_by_the_next_turn() -> None:
    game = TableDiceGame(["ann", "ben"])
    rolled(game, ("gold",) * 6)
    game.apply_at_table(Hold("ann", (1,)))
    rolled(game, ("ore",) * 6)
    assert game.public_view()["dice"]["held"] == [1]
    rolled(game, ("wool",) * 6)
    assert game.turn.dice == ["wool", "gold", "wool", "wool", "wool", "wool"]
    game.apply_at_table(EndTurn("ann"))
    assert game.public_view()["dice"]["held"] == []


def test_building_fixes_the_result_and_frees_the_held_dice() -> None:
    game = TableDiceGame(["ann"])
    rolled(game, SETTLE)
    game.apply_at_table(Hold("ann", (0, 1)))
    game.apply_at_table(Build("ann", "settlement", 0))
    view = game.public_view()["dice"]
    assert view["held"] == [] and view["rolls_left"] == 0


@pytest.mark.parametrize(
    ("before", "hold", "rule"),
    [
        ([], Hold("ann", (0,)), "6.2.1"),  # nothing rolled yet
        ([RollFree("ann", "manual", SETTLE)], Hold("ben", (0,)), "6.2"),  # not ben's turn
        ([RollFree("ann", "manual", SETTLE)], Hold("ann", (0, 1, 2, 3, 4, 5)), "6.2.1"),
        ([RollFree("ann", "manual", SETTLE)], Hold("ann", (6,)), "6.2.1"),
        ([RollFree("ann", "manual", SETTLE)], Hold("ann", (1, 1)), "6.2.1"),
        ([RollFree("ann", "manual", SETTLE)], Hold("ann", (True,)), "6.2.1"),
        (
            [RollFree("ann", "manual", SETTLE), Build("ann", "settlement", 0)],
            Hold("ann", ()),
            "6.2.1",
        ),
        ([RollFree("ann", "manual", SETTLE)] * 3, Hold("ann", (0,)), "6.2.1"),  # no roll left
    ],
)
def test_refused_holds_change_nothing(before: list, hold: Hold, rule: str) -> None:
    game = TableDiceGame(["ann", "ben"])
    for action in before:
        game.apply_at_table(action)
    view = json.dumps(game.public_view())
    written: list[dict] = []
    with pytest.raises(IllegalAction) as refused:
        game.apply_at_table(hold, journal=written.append)
    assert refused.value.rule == rule
    assert json.dumps(game.public_view()) == view and written == []


def test_a_tower_throw_of_too_few_faces_or_a_bad_face_is_refused() -> None:
    game = TableDiceGame(["ann"])
    with pytest.raises(IllegalAction):
        rolled(game, ("ore",) * 5)
    with pytest.raises(IllegalAction) as refused:
        rolled(game, ("ore",) * 5 + ("sheep",))
    assert refused.value.rule == "6.1.1"
    assert game.turn.rolls == 0


def test_the_page_may_not_post_a_roll_of_its_own_faces() -> None:
    with pytest.raises(ValueError, match="/api/dice/roll"):
        table_action_from_json({"type": "roll", "player": "ann", "faces": ["ore"] * 6})
    with pytest.raises(ValueError, match="hold"):
        table_action_from_json({"type": "hold", "player": "ann", "dice": 3})
    assert table_action_from_json({"type": "hold", "player": "a", "dice": [2]}) == Hold("a", (2,))


def test_the_view_shows_the_plus_ramp_and_bonuses() -> None:
    game = TableDiceGame(["ann", "ben"], "plus")
    view = game.public_view()
    assert view["dice"]["count"] == 3 and view["ramp"] == [3, 4, 5, 6]
    assert view["goal"] == 10 and view["rounds"] is None
    assert [p["color"] for p in view["players"]] == ["ann", "ben"]


# -- the journal ------------------------------------------------------------------------------


def play(jg: JournaledDiceGame, steps: int) -> None:
    """``steps`` actions of the demo's computer player (host rolls)."""
    bot = DiceBot()
    for _ in range(steps):
        if jg.game.over:
            return
        jg.apply(bot.choose(jg.game))


def test_a_reopened_journal_rebuilds_the_same_game_with_held_dice(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    jg = JournaledDiceGame.create(path, ["ann", "ben", "cy"], "plus", seed=4)
    play(jg, 120)
    if jg.game.turn.rolls == 0:
        jg.apply(RollFree(jg.game.current_player))
    view = jg.game.public_view()
    # Not closed: as after a kill, what was acknowledged is on disk already.
    again = JournaledDiceGame.open(path)
    assert again.damage is None
    assert again.game.public_view() == view
    assert again.history == jg.history
    assert len(again.history) == again.journal.length


def test_a_resumed_seeded_game_does_not_roll_its_first_dice_again(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    jg = JournaledDiceGame.create(path, ["ann"], seed=9)
    first = jg.apply(RollFree("ann"))[0]["dice"]
    jg.apply(EndTurn("ann"))
    jg.close()
    again = JournaledDiceGame.open(path)
    assert again.apply(RollFree("ann"))[0]["dice"] != first


def test_an_action_refused_by_the_rules_is_not_journaled(tmp_path: Path) -> None:
    jg = JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann"])
    with pytest.raises(IllegalAction):
        jg.apply(Build("ann", "road", 1))  # before rolling
    assert jg.journal.length == 0 and jg.history == []


def test_a_damaged_row_is_reported_and_the_actions_before_it_recovered(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    jg = JournaledDiceGame.create(path, ["ann"])
    jg.apply(RollFree("ann", "manual", SETTLE))
    jg.apply(Build("ann", "settlement", 0))
    jg.apply(EndTurn("ann"))
    jg.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE actions SET body = replace(body, 'settlement', 'city') WHERE seq = 2")
    again = open_or_create_dice(path, ["ann"], "basic", None)  # resumes after the damage
    assert len(again.history) == 1 and again.game.turn.rolls == 1
    assert again.damage is None and len(list(tmp_path.glob("dice.sqlite.damaged*"))) >= 1


def test_each_journal_kind_refuses_the_other(tmp_path: Path) -> None:
    dice = tmp_path / "dice.sqlite"
    JournaledDiceGame.create(dice, ["ann"]).close()
    with pytest.raises(JournalError, match="dice game"):
        JournaledGame.open(dice)
    board = tmp_path / "board.sqlite"
    JournaledGame.create(board, random_board(4, seed=1), ["red", "blue", "white"]).close()
    with pytest.raises(JournalError, match="board game"):
        JournaledDiceGame.open(board)


def test_a_new_game_with_bad_players_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    with pytest.raises(ValueError, match="players"):
        JournaledDiceGame.create(path, ["ann"], "plus")  # Plus needs two
    assert not path.exists()


def test_undo_is_refused_at_a_dice_table(tmp_path: Path) -> None:
    jg = JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann"])
    with pytest.raises(IllegalAction):
        jg.undo()


# -- the Table and the tower ----------------------------------------------------------------


@pytest.fixture
def rig(tmp_path: Path):
    table = Table(JournaledDiceGame.create(tmp_path / "j.sqlite", ["red", "blue"]))
    table.start()
    url = f"sim://dice-{next(_names)}?seed=5"
    device = sim_device(url)
    tower = DiceTower(url, timeout=2.0).open()
    link = DiceTowerLink(table, tower)
    link.start()
    yield table, device, link
    link.stop()
    tower.close()
    table.stop()


def next_events(sub, kind: str):
    """The next update whose first event is ``kind`` (each wait is bounded; no sleeping)."""
    for _ in range(50):
        update = sub.get(timeout=WAIT_S)
        assert update is not None, "no update from the table"
        if update.get("type") == "events" and update["events"][0]["type"] == kind:
            return update
    raise AssertionError(f"no {kind} event came")


def test_the_button_rolls_only_the_free_dice_and_the_tower_shows_the_turns_dice(rig) -> None:
    table, device, link = rig
    throws: queue.Queue[tuple[str, ...]] = queue.Queue()  # what the tower threw, all six
    link.tower.subscribe(
        lambda e: throws.put(e.roll.faces) if type(e).__name__ == "DiceRolled" else None
    )
    sub = table.subscribe()
    device.press_button()
    first = next_events(sub, "rolled")["events"][0]
    assert first["player"] == "red" and first["source"] == "button"
    assert first["dice"] == list(throws.get(timeout=WAIT_S))
    table.call(ApplyAction(Hold("red", (0, 2, 5))))
    device.press_button()
    update = next_events(sub, "rolled")
    second, thrown = update["events"][0]["dice"], throws.get(timeout=WAIT_S)
    assert second == [first["dice"][i] if i in (0, 2, 5) else thrown[i] for i in range(6)]
    # Then the link shows the turn's dice: the held ones with the faces they kept.
    assert link.wait_shown(update["version"], WAIT_S)
    assert device.state.shown == (DiceKind.RESOURCE, tuple(FACES.index(f) for f in second))


def test_the_pages_roll_goes_through_the_tower(rig) -> None:
    table, device, link = rig
    future = link.roll()
    assert future is not None
    events = future.result(WAIT_S)
    assert events[0]["source"] == "tower"
    assert tuple(FACES.index(f) for f in events[0]["dice"]) == device.state.shown[1]
    assert table.jgame.history[-1]["source"] == "tower"


def test_a_throw_at_the_wrong_moment_changes_nothing_and_the_page_says_why(rig) -> None:
    table, device, link = rig
    for _ in range(3):
        link.roll().result(WAIT_S)
    dice = table.state()["dice"]
    sub = table.subscribe()
    refused = link.roll()
    with pytest.raises(IllegalAction):
        refused.result(WAIT_S)
    update = sub.get(timeout=WAIT_S)
    assert update is not None and update["type"] == "parts"
    assert "did not count: three rolls are the most" in update["parts"]["tower"]["detail"]
    assert table.state()["dice"] == dice and table.jgame.journal.length == 3
    # The next good throw clears the message.
    table.call(ApplyAction(EndTurn("red")))
    link.roll().result(WAIT_S)
    assert sub.get(timeout=WAIT_S)["type"] == "events"  # the end of the turn
    assert sub.get(timeout=WAIT_S)["type"] == "events"  # blue's throw
    assert sub.get(timeout=WAIT_S)["parts"]["tower"]["detail"] == CONNECTED


def test_the_turn_light_follows_the_turn(rig) -> None:
    table, device, link = rig
    assert device.state.player == 0
    link.roll().result(WAIT_S)
    update = table.call(ApplyAction(EndTurn("red")))
    assert update[-1] == {"type": "turn", "player": "blue"}
    assert link.wait_shown(table.state()["version"], WAIT_S)
    assert device.state.player == 1


def test_the_display_keeps_the_throw_past_a_short_plus_turn() -> None:
    link = DiceTowerLink(table=None, tower=None)  # type: ignore[arg-type]  # no I/O here
    link._throw = ("ore", "ore", "ore", "wool", "gold", "brick")
    shown = link.display_of(["grain", "grain", "lumber"])
    assert shown == tuple(
        FACES.index(f) for f in ("grain", "grain", "lumber", "wool", "gold", "brick")
    )
    link._throw = None
    assert link.display_of(["grain"] * 3) is None


def test_computer_players_hold_use_jokers_and_gold_and_finish_their_games() -> None:
    bot = DiceBot()
    kinds: set[type] = set()
    for seed in range(4):
        game = TableDiceGame(["ann", "ben"], "basic", rng=seed)
        while not game.over:
            action = bot.choose(game)
            kinds.add(type(action))
            game.apply_at_table(action)
        assert all(len(game.sheets[p].track) == 15 for p in game.players)
    assert {RollFree, Hold, Build, UseJoker, ExchangeGold, EndTurn} <= kinds


def test_resuming_keeps_the_journals_players_and_variant(tmp_path: Path) -> None:
    path = tmp_path / "dice.sqlite"
    JournaledDiceGame.create(path, ["ann", "ben"], "basic").close()
    resumed = open_or_create_dice(path, ["cy", "dee"], "plus", None)
    assert resumed.game.players == ("ann", "ben") and resumed.game.variant.value == "basic"


def test_the_hosts_computer_players_play_a_game_to_its_end_with_the_tower(tmp_path: Path) -> None:
    jg = JournaledDiceGame.create(tmp_path / "dice.sqlite", ["ann"])
    host = DiceTableHost(jg, tower_url=f"sim://dice-bots-{next(_names)}")  # type: ignore[arg-type]
    host.start()
    sub = host.table.subscribe()
    try:
        host.play_with_bots(pace=0.001)
        over = next_events_until(sub, lambda e: e["type"] == "game_over")
        assert over["winners"] == ["ann"]
    finally:
        host.stop()
    rolls = [r for r in jg.history if r["type"] == "roll"]
    assert rolls and {r["source"] for r in rolls} == {"tower"}
    assert len(jg.game.sheets["ann"].track) == 15


def next_events_until(sub, predicate, limit: int = 2000):
    """The first event satisfying ``predicate`` (each wait bounded; no sleeping)."""
    for _ in range(limit):
        update = sub.get(timeout=WAIT_S)
        assert update is not None, "no update from the table"
        for event in update.get("events", ()):
            if predicate(event):
                return event
    raise AssertionError("the event never came")
