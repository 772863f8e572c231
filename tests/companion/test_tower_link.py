"""The Table and the dice tower, through the simulated tower speaking the real protocol."""

import itertools

import pytest
from conftest import WAIT_S

from companion.actions import EndTurn, RollDice
from companion.bots import GreedyBot
from companion.game import Phase
from companion.journal import JournaledGame
from companion.layouts import random_board
from companion.table import ApplyAction, Table
from companion.tower_link import PLAYER_RGB, PRODUCING_RGB, TowerLink
from firmware_bridge.driver import DiceTower
from firmware_bridge.leds import LedMap
from firmware_bridge.simulator import sim_device

_names = itertools.count()


@pytest.fixture
def rig(tmp_path):
    board = random_board(4, seed=9)
    jg = JournaledGame.create(tmp_path / "j.sqlite", board, ["red", "blue", "white"], seed=9)
    bot = GreedyBot(seed=9)
    while jg.game.phase != Phase.ROLL:  # founding, played by the bot
        jg.apply(bot.choose(jg.game))
    table = Table(jg)
    table.start()
    url = f"sim://link-{next(_names)}"
    device = sim_device(url)
    tower = DiceTower(url, timeout=2.0).open()
    led_map = LedMap.serpentine(board.tiles)
    tower.set_led_map(led_map)
    link = TowerLink(table, tower)
    link.start()
    yield table, device, tower, link, led_map
    link.stop()
    tower.close()
    table.stop()


def wait_for(sub, predicate, limit=50):
    """The next update satisfying ``predicate`` (each wait is bounded; no sleeping).

    The bound is generous (a loaded CI machine): an unplugged tower is only noticed after the
    driver's own timeout, with no update in between.
    """
    for _ in range(limit):
        update = sub.get(timeout=WAIT_S)
        assert update is not None, "no update from the table"
        if predicate(update):
            return update
    raise AssertionError("the expected update never came")


def test_the_button_rolls_for_the_current_player_and_lights_the_producing_hexes(rig):
    table, device, tower, link, led_map = rig
    sub = table.subscribe()
    device.press_button()
    update = wait_for(sub, lambda u: u.get("type") == "events")
    rolled = update["events"][0]
    assert rolled["type"] == "rolled" and rolled["player"] == "red"
    assert rolled["source"] == "button"
    history = table.jgame.history
    assert history[-1].source == "button" and list(history[-1].dice) == rolled["dice"]
    if rolled["total"] != 7:
        lit = set(led_map.leds_of([tuple(h) for h in rolled["producing"]]))
        assert link.wait_shown(update["version"], WAIT_S)  # the link lights the LEDs in its thread
        on = {i for i, rgb in enumerate(device.state.leds) if rgb == PRODUCING_RGB}
        assert on == lit


def test_a_roll_when_nobody_is_to_roll_is_ignored(rig):
    table, device, tower, link, _ = rig
    table.call(ApplyAction(link_roll(table)))
    before = len(table.jgame.history)
    assert link.apply_roll((3, 4), "button") is None
    assert len(table.jgame.history) == before


def link_roll(table):
    """Dice typed in on the page for the player to roll."""
    return RollDice(table.state()["current"], (2, 3), "manual")


def test_the_turn_light_follows_the_current_player(rig):
    table, device, tower, link, _ = rig
    sub = table.subscribe()
    table.call(ApplyAction(link_roll(table)))
    table.call(ApplyAction(EndTurn("red")))
    update = wait_for(sub, lambda u: any(e["type"] == "turn" for e in u.get("events", [])))
    assert link.wait_shown(update["version"], WAIT_S)  # the tower answered the link's SET_PLAYER
    assert device.state.player == 1 and device.state.player_color == PLAYER_RGB["blue"]


def test_an_unplugged_tower_is_reported_and_the_game_goes_on(rig):
    table, device, tower, link, _ = rig
    sub = table.subscribe()
    device.unplug()
    update = wait_for(sub, lambda u: u.get("type") == "parts" and not u["parts"]["tower"]["up"])
    assert update["parts"]["tower"]["up"] is False
    table.call(ApplyAction(link_roll(table)))  # dice typed in on the page still work
    assert table.state()["phase"] in ("main", "discard", "move_robber")
