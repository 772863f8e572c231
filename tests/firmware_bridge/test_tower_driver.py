"""The host driver against the in-process simulator: API, events, faults, reconnection."""

from __future__ import annotations

import itertools
import queue
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from firmware_bridge.dice import DiceRoll, DiceSource, host_roll, manual_roll
from firmware_bridge.driver import (
    ButtonPressed,
    ConnectionChanged,
    DiceRolled,
    DiceTower,
    TowerError,
    TowerEvent,
    TowerReset,
    TowerTimeout,
)
from firmware_bridge.leds import LedMap
from firmware_bridge.protocol import ButtonMode, DiceKind, MsgType
from firmware_bridge.simulator import SimDevice, SimPort
from firmware_bridge.transport import FaultyTransport, Transport, open_transport

BASE = [(q, r) for r in range(-2, 3) for q in range(max(-2, -2 - r), min(2, 2 - r) + 1)]
_names = itertools.count()


@pytest.fixture
def device() -> SimDevice:
    return SimDevice(seed=11)


@pytest.fixture
def tower(device: SimDevice) -> Iterator[DiceTower]:
    with DiceTower(f"sim://test-{next(_names)}", opener=lambda: SimPort(device, 0.02)) as t:
        yield t


def _events(tower: DiceTower) -> queue.Queue[TowerEvent]:
    q: queue.Queue[TowerEvent] = queue.Queue()
    tower.subscribe(q.put)
    return q


def _next(q: queue.Queue[TowerEvent], kind: type) -> TowerEvent:
    """The next event of a kind, skipping others; fails after 5 s without one."""
    while True:
        event = q.get(timeout=5)
        if isinstance(event, kind):
            return event


def test_handshake_reports_capabilities(tower: DiceTower, device: SimDevice) -> None:
    caps = tower.capabilities
    assert caps.n_leds == device.n_leds and caps.boot_id == device.boot_id
    assert DiceKind.RESOURCE in caps.dice_kinds


def test_roll_is_recorded_with_its_source_and_shown(tower: DiceTower, device: SimDevice) -> None:
    roll = tower.roll()
    assert roll.source == DiceSource.TOWER and 2 <= roll.total <= 12
    assert device.state.shown == (DiceKind.TWO_D6, roll.values)
    resources = tower.roll(DiceKind.RESOURCE)
    assert len(resources.faces) == 6


def test_show_roll_of_host_and_manual_dice(tower: DiceTower, device: SimDevice) -> None:
    roll = host_roll(DiceKind.TWO_D6, random.Random(3))
    tower.show_roll(roll)
    assert device.state.shown == (DiceKind.TWO_D6, roll.values)
    before = device.state.sevens_animated
    tower.show_roll(manual_roll(DiceKind.TWO_D6, [3, 4]))
    assert device.state.sevens_animated == before + 1


def test_light_hexes_through_the_led_map(tower: DiceTower, device: SimDevice) -> None:
    with pytest.raises(TowerError, match="no LED map"):
        tower.light_hexes([(0, 0)])
    led_map = LedMap.serpentine(BASE, leds_per_hex=3)
    tower.set_led_map(led_map)
    tower.light_hexes([(0, 0), (2, -2)], color=(1, 2, 3))
    lit = {i for i, c in enumerate(device.state.leds) if c == (1, 2, 3)}
    assert lit == set(led_map.leds_of([(0, 0), (2, -2)])) and len(lit) == 6


def test_bad_input_raises_and_changes_nothing(tower: DiceTower, device: SimDevice) -> None:
    tower.set_led_map(LedMap.serpentine(BASE))
    executed = device.executed
    with pytest.raises(ValueError, match=r"hex \(5, 5\) is not on the LED map"):
        tower.light_hexes([(5, 5)])
    with pytest.raises(ValueError, match="LED index 90"):
        tower.set_leds([90])
    with pytest.raises(ValueError, match="color must be three integers"):
        tower.set_leds([1], color=(256, 0, 0))
    with pytest.raises(ValueError, match="player index"):
        tower.set_player(8, (1, 1, 1))
    with pytest.raises(ValueError, match="not valid"):
        tower.show_roll(DiceRoll(DiceKind.TWO_D6, (0, 1), DiceSource.MANUAL))
    with pytest.raises(ValueError, match="needs 300 LEDs"):
        tower.set_led_map(LedMap({(0, 0): (299,)}))
    assert device.executed == executed


def test_button_roll_arrives_once_even_when_acks_are_lost(device: SimDevice) -> None:
    # every EVENT_ACK the host sends is dropped twice before one gets through
    drops: Counter[int] = Counter()

    class LoseAcks:
        def __init__(self, inner: Transport) -> None:
            self.inner = inner

        def write(self, data: bytes, /) -> int:
            if data[1:2] == bytes([MsgType.EVENT_ACK]) and drops[data[2]] < 2:
                drops[data[2]] += 1
                return len(data)
            return self.inner.write(data) or len(data)

        def read(self, size: int = 1, /) -> bytes:
            return self.inner.read(size)

        @property
        def in_waiting(self) -> int:
            return self.inner.in_waiting

        def close(self) -> None:
            self.inner.close()

    with DiceTower("sim://acks", opener=lambda: LoseAcks(SimPort(device, 0.02))) as tower:
        events = _events(tower)
        for _ in range(3):
            device.press_button()
            event = _next(events, DiceRolled)
            assert isinstance(event, DiceRolled) and event.roll.source == DiceSource.BUTTON
        tower.ping()  # a round trip after the last resend was answered
        assert tower.stats["duplicate_events"] >= 3
        assert all(not isinstance(e, DiceRolled) for e in list(events.queue))


def test_event_only_button(tower: DiceTower, device: SimDevice) -> None:
    events = _events(tower)
    tower.set_button_mode(ButtonMode.EVENT_ONLY)
    device.press_button()
    assert isinstance(_next(events, ButtonPressed), ButtonPressed)
    assert device.state.shown is None


def test_reset_restores_what_the_tower_showed(tower: DiceTower, device: SimDevice) -> None:
    events = _events(tower)
    tower.set_leds([4, 5], color=(7, 7, 7))
    tower.set_player(3, (0, 0, 200))
    tower.set_button_mode(ButtonMode.ROLL, DiceKind.RESOURCE)
    device.reset()
    roll = tower.roll()  # answered NO_SESSION first, then resent after the handshake
    assert roll.source == DiceSource.TOWER
    reset = _next(events, TowerReset)
    assert isinstance(reset, TowerReset) and reset.boot_id == device.boot_id
    assert device.state.leds[4] == device.state.leds[5] == (7, 7, 7)
    assert (device.state.player, device.state.player_color) == (3, (0, 0, 200))
    device.press_button()
    event = _next(events, DiceRolled)
    assert isinstance(event, DiceRolled) and event.roll.kind == DiceKind.RESOURCE


def test_unplug_and_replug_reconnects(tower: DiceTower, device: SimDevice) -> None:
    events = _events(tower)
    tower.set_leds([1], color=(9, 9, 9))
    device.unplug()
    lost = _next(events, ConnectionChanged)
    assert isinstance(lost, ConnectionChanged) and not lost.connected
    device.replug()
    tower.roll()
    back = _next(events, ConnectionChanged)
    assert isinstance(back, ConnectionChanged) and back.connected
    assert device.state.leds[1] == (9, 9, 9)
    assert tower.stats["disconnects"] == 1


def test_timeout_names_the_port_when_the_tower_is_gone(device: SimDevice) -> None:
    with DiceTower("sim://gone", opener=lambda: SimPort(device, 0.02), timeout=0.3) as tower:
        device.unplug()
        with pytest.raises(TowerTimeout, match="sim://gone did not answer ROLL"):
            tower.roll()


def test_open_fails_cleanly_without_a_tower() -> None:
    def nothing() -> Transport:
        raise OSError("no such port")

    with pytest.raises(TowerTimeout):
        DiceTower("/dev/nothing", opener=nothing, timeout=0.2).open()


def test_no_lost_or_duplicated_commands_on_a_bad_line(device: SimDevice) -> None:
    rng = random.Random(5)
    injected: Counter[str] = Counter()

    def opener() -> Transport:
        return FaultyTransport(SimPort(device, 0.02), 0.1, rng, injected)

    with DiceTower("sim://bad-line", opener=opener, retransmit=0.01) as tower:
        for i in range(300):
            tower.set_leds([i % 90], color=(0, i >> 8, i & 0xFF))
        rolls = [tower.roll() for _ in range(50)]
    assert sum(injected.values()) > 30
    ids = [(e.payload[1] << 8) | e.payload[2] for e in device.log if e.type == MsgType.SET_LEDS]
    assert sorted(ids) == list(range(300))  # each exactly once, none missing
    assert sum(1 for e in device.log if e.type == MsgType.ROLL) == len(rolls)
    assert tower.stats["retransmits"] > 0
    assert device.duplicates + tower.stats["stale_replies"] > 0


def test_closed_driver_refuses_commands(device: SimDevice) -> None:
    tower = DiceTower("sim://closed", opener=lambda: SimPort(device, 0.02)).open()
    tower.close()
    with pytest.raises(TowerError, match="closed"):
        tower.ping()


def test_subscriber_errors_do_not_stop_events(tower: DiceTower, device: SimDevice) -> None:
    def broken(event: TowerEvent) -> None:
        raise RuntimeError("bug in a subscriber")

    tower.subscribe(broken)
    events = _events(tower)
    device.press_button()
    assert isinstance(_next(events, DiceRolled), DiceRolled)


def test_connected_follows_the_cable(tower: DiceTower, device: SimDevice) -> None:
    events = _events(tower)
    assert tower.connected
    device.unplug()
    _next(events, ConnectionChanged)
    assert not tower.connected
    device.replug()
    tower.ping()
    assert tower.connected
    with pytest.raises(TowerError, match="opens once"):
        tower.open()


def test_a_port_that_echoes_is_not_a_tower() -> None:
    """pyserial's loop:// hands every frame back: the driver must not take its own commands
    for answers."""
    tower = DiceTower("loop://", timeout=0.3)
    with pytest.raises(TowerTimeout, match="loop:// did not answer"):
        tower.open()
    assert tower.stats["unexpected_frames"] > 0


def test_missing_serial_port_is_an_os_error() -> None:
    with pytest.raises(OSError, match="could not open port"):
        open_transport("/dev/no-such-tower")
