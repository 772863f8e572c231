"""Dice source choice: every roll reaches the game once, with its source."""

from __future__ import annotations

import itertools
import queue
import random
from collections.abc import Iterator

import pytest

from firmware_bridge.dice import DiceRoll, DiceSource
from firmware_bridge.driver import DiceRolled, DiceTower
from firmware_bridge.protocol import DiceKind
from firmware_bridge.roller import DiceRoller
from firmware_bridge.simulator import SimDevice, SimPort

_names = itertools.count()


@pytest.fixture
def device() -> SimDevice:
    return SimDevice(seed=5)


@pytest.fixture
def tower(device: SimDevice) -> Iterator[DiceTower]:
    with DiceTower(f"sim://roller-{next(_names)}", opener=lambda: SimPort(device, 0.02)) as t:
        yield t


def test_host_rolls_are_shown_and_recorded(tower: DiceTower, device: SimDevice) -> None:
    got: queue.Queue[DiceRoll] = queue.Queue()
    roller = DiceRoller(got.put, tower, DiceSource.HOST, rng=random.Random(1))
    roll = roller.roll()
    assert roll.source == DiceSource.HOST and got.get_nowait() == roll
    assert device.state.shown == (DiceKind.TWO_D6, roll.values)
    # with host dice, the tower's button only triggers a host roll
    device.press_button()
    pressed = got.get(timeout=5)
    assert pressed.source == DiceSource.HOST
    assert device.state.shown == (DiceKind.TWO_D6, pressed.values)
    roller.close()


def test_button_source_records_tower_rolls(tower: DiceTower, device: SimDevice) -> None:
    got: queue.Queue[DiceRoll] = queue.Queue()
    roller = DiceRoller(got.put, tower, DiceSource.BUTTON, kind=DiceKind.RESOURCE)
    device.press_button()
    roll = got.get(timeout=5)
    assert roll.source == DiceSource.BUTTON and roll.kind == DiceKind.RESOURCE
    with pytest.raises(ValueError, match="press the tower's button"):
        roller.roll()
    roller.close()


def test_tower_source_asks_the_tower(tower: DiceTower, device: SimDevice) -> None:
    got: list[DiceRoll] = []
    roller = DiceRoller(got.append, tower, DiceSource.TOWER)
    roll = roller.roll()
    assert got == [roll] and roll.source == DiceSource.TOWER
    assert device.state.shown == (DiceKind.TWO_D6, roll.values)


def test_manual_dice_are_validated_and_shown(tower: DiceTower, device: SimDevice) -> None:
    got: list[DiceRoll] = []
    roller = DiceRoller(got.append, tower, DiceSource.MANUAL)
    with pytest.raises(ValueError, match="allowed 1..6"):
        roller.enter("3 9")
    assert got == [] and device.state.shown is None
    roll = roller.enter("3 4")
    assert got == [roll] and roll.source == DiceSource.MANUAL and roll.total == 7
    assert device.state.sevens_animated == 1
    with pytest.raises(ValueError, match="type them in"):
        roller.roll()


def test_typed_dice_refused_when_another_source_rolls() -> None:
    got: list[DiceRoll] = []
    roller = DiceRoller(got.append, None, DiceSource.HOST, rng=random.Random(2))
    with pytest.raises(ValueError, match="refused"):
        roller.enter("3 4")
    assert roller.roll().source == DiceSource.HOST and len(got) == 1


def test_tower_sources_need_a_tower() -> None:
    with pytest.raises(ValueError, match="needs a dice tower"):
        DiceRoller(lambda roll: None, None, DiceSource.BUTTON)


def test_button_press_after_switching_to_typed_dice_records_nothing(
    tower: DiceTower, device: SimDevice
) -> None:
    got: queue.Queue[DiceRoll] = queue.Queue()
    roller = DiceRoller(got.put, tower, DiceSource.BUTTON)
    device.press_button()
    first = got.get(timeout=5)
    roller.set_source(DiceSource.MANUAL)
    device.press_button()  # now only a press, which typed-in dice ignore
    tower.ping()
    roll = roller.enter("1 2")
    assert got.get(timeout=5) == roll and got.empty()
    assert first.source == DiceSource.BUTTON


def test_a_button_roll_in_flight_while_the_source_changed_is_dropped(tower: DiceTower) -> None:
    got: list[DiceRoll] = []
    roller = DiceRoller(got.append, tower, DiceSource.HOST, rng=random.Random(3))
    # the tower rolled on its button just before it learned the new source
    late = DiceRoll(DiceKind.TWO_D6, (2, 2), DiceSource.BUTTON)
    roller._on_tower_event(DiceRolled(late))
    assert got == []
