"""The same tests against the Python simulator and the real firmware, each behind a pty.

The simavr runs need gcc-avr, avr-libc and libsimavr-dev (CI installs them) and are skipped
elsewhere; the Python runs always happen.
"""

from __future__ import annotations

import queue
import threading
import time

import pytest
from tower_fixtures import *  # noqa: F403  (fixtures: see tower_fixtures.py)

from firmware_bridge.dice import DiceSource, manual_roll
from firmware_bridge.driver import (
    ConnectionChanged,
    DiceRolled,
    DiceTower,
    TowerEvent,
    TowerReset,
)
from firmware_bridge.hil import FirmwareBuild, TowerProcess
from firmware_bridge.protocol import DiceKind, DisplayKind
from firmware_bridge.transport import Transport, open_transport

# MAX7219 segment patterns of the firmware's digits (bit 6..0 = segments A..G)
SEGMENTS = {1: 0x30, 2: 0x6D, 3: 0x79, 4: 0x33, 5: 0x5B, 6: 0x5F, 7: 0x70, 8: 0x7F, 9: 0x7B}


def _wait(q: queue.Queue[TowerEvent], kind: type) -> TowerEvent:
    while True:
        event = q.get(timeout=10)
        if isinstance(event, kind):
            return event


def test_handshake_and_led_frame(tower_process: TowerProcess) -> None:
    with DiceTower(tower_process.port) as tower:
        assert tower.capabilities.n_leds == 90 and tower.capabilities.n_player_leds == 6
        tower.set_leds([0, 45, 89], color=(200, 100, 50), background=(0, 0, 1))
        tower.set_player(2, (0, 255, 0))
        frame = tower_process.leds()
    assert len(frame) == 96
    assert [i for i, c in enumerate(frame[:90]) if c == (200, 100, 50)] == [0, 45, 89]
    assert all(c == (0, 0, 1) for i, c in enumerate(frame[:90]) if i not in (0, 45, 89))
    assert frame[90:] == [(0, 255, 0)] * 6


def test_button_press_rolls_once(tower_process: TowerProcess) -> None:
    events: queue.Queue[TowerEvent] = queue.Queue()
    with DiceTower(tower_process.port) as tower:
        tower.subscribe(events.put)
        tower_process.press()
        event = _wait(events, DiceRolled)
        tower_process.release()
        tower.ping()
        assert isinstance(event, DiceRolled) and event.roll.source == DiceSource.BUTTON
        display = tower_process.display()
        if display is not None:  # the firmware's display, read back from its SPI bus
            d1, d2 = event.roll.values
            if d1 + d2 != 7:  # a 7 is still animating
                assert (display[3], display[5]) == (SEGMENTS[d1], SEGMENTS[d2])
    assert not any(isinstance(e, DiceRolled) for e in list(events.queue))


@pytest.mark.parametrize(
    ("dice", "sum_digits"), [((4, 5), (0x00, SEGMENTS[9])), ((6, 5), (SEGMENTS[1], SEGMENTS[1]))]
)
def test_shown_roll_reaches_the_display(
    tower_process: TowerProcess, dice: tuple[int, int], sum_digits: tuple[int, int]
) -> None:
    with DiceTower(tower_process.port) as tower:
        tower.show_roll(manual_roll(DiceKind.TWO_D6, list(dice)))
        display = tower_process.display()
    if display is None:
        pytest.skip("the Python simulator has no segment display to read back")
    # layout: P n _ d1 - d2 sum-tens sum-ones
    assert display[3:] == bytes([SEGMENTS[dice[0]], 0x01, SEGMENTS[dice[1]], *sum_digits])


def test_a_seven_animates_then_settles(firmware: FirmwareBuild) -> None:
    with TowerProcess("simavr", firmware) as proc, DiceTower(proc.port) as tower:
        tower.show_roll(manual_roll(DiceKind.TWO_D6, [3, 4]))
        frames = set()
        settled = bytes([SEGMENTS[3], 0x01, SEGMENTS[4], 0x00, SEGMENTS[7]])
        # the chase runs for 1.5 s of firmware time; watch it until the result stands (a
        # round trip takes at least 1.8 ms on the line, so 5000 of them outlast the chase)
        for _ in range(5000):
            shown = proc.display()
            assert shown is not None
            frames.add(shown[3:])
            if shown[3:] == settled:
                break
            tower.ping()
        else:
            pytest.fail("the display never settled on the result of the 7")
    assert len(frames) >= 3  # several animation frames before the result


def test_firmware_reset_is_survived(tower_process: TowerProcess) -> None:
    events: queue.Queue[TowerEvent] = queue.Queue()
    with DiceTower(tower_process.port) as tower:
        tower.subscribe(events.put)
        tower.set_leds([7], color=(1, 2, 3))
        boot = tower.capabilities.boot_id
        tower_process.reset()
        roll = tower.roll()
        assert isinstance(_wait(events, TowerReset), TowerReset)
        assert tower.capabilities.boot_id != boot
        frame = tower_process.leds()
    assert roll.source == DiceSource.TOWER
    assert frame[7] == (1, 2, 3)  # restored after the reboot


def test_unplug_replug_is_survived(tower_process: TowerProcess) -> None:
    events: queue.Queue[TowerEvent] = queue.Queue()
    with DiceTower(tower_process.port) as tower:
        tower.subscribe(events.put)
        tower.set_leds([3], color=(9, 8, 7))
        tower_process.unplug()
        lost = _wait(events, ConnectionChanged)
        assert isinstance(lost, ConnectionChanged) and not lost.connected
        tower_process.plug()
        tower.roll(DiceKind.ONE_D6)
        assert tower.stats["disconnects"] == 1
        frame = tower_process.leds()
    assert frame[3] == (9, 8, 7)


class _Twice:
    """A line that delivers every frame from the host twice."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    def write(self, data: bytes, /) -> int:
        self.inner.write(data + data)
        return len(data)

    def read(self, size: int = 1, /) -> bytes:
        return self.inner.read(size)

    @property
    def in_waiting(self) -> int:
        return self.inner.in_waiting

    def close(self) -> None:
        self.inner.close()


def test_repeated_commands_never_run_twice(tower_process: TowerProcess) -> None:
    def opener() -> Transport:
        return _Twice(open_transport(tower_process.port))

    with DiceTower(tower_process.port, opener=opener) as tower:
        before = tower.ping()
        for i in range(40):
            tower.set_player(i % 8, (i, 0, 0))
        rolls = [tower.roll() for _ in range(10)]
        after = tower.ping()
    assert after.boot_id == before.boot_id
    assert after.executed - before.executed == 50  # each command ran once...
    # ...and its copy was answered from the cache (so were resends, on a slow machine)
    assert after.duplicates - before.duplicates >= 50
    assert tower.stats["stale_replies"] >= 50  # the second answers, recognised and dropped
    assert len(rolls) == 10


def test_firmware_shows_when_the_host_is_gone(firmware: FirmwareBuild) -> None:
    with TowerProcess("simavr", firmware) as proc:
        with DiceTower(proc.port) as tower:
            tower.set_player(2, (0, 0, 255))
            shown = proc.display()
            assert shown is not None and shown[:2] == bytes([0x67, SEGMENTS[3]])  # "P3"
        # no PINGs any more: after 3 s of firmware time the player digits read "--"
        deadline = time.monotonic() + 60  # generous: a loaded CI machine
        while (shown := proc.display()) is not None and shown[:2] != b"\x01\x01":
            assert time.monotonic() < deadline, "the tower never noticed the host was gone"
            threading.Event().wait(0.05)
        with DiceTower(proc.port) as tower:
            tower.ping()
            shown = proc.display()
    assert shown is not None and shown[:2] == bytes([0x67, SEGMENTS[3]])  # back to "P3"


def _matrix_digit(rows: bytes, column: int) -> list[int]:
    """The 3x5 glyph at ``column`` (0 = left) of rows 0-4, as 3-bit rows (bit 2 = left)."""
    return [(r >> (5 - column)) & 7 for r in rows[:5]]


def test_matrix_display(firmware_matrix: FirmwareBuild) -> None:
    """The same firmware built for an 8x8 matrix: sum, dice bars, player column, no host."""
    nine, one = [7, 5, 7, 1, 7], [2, 6, 2, 2, 7]
    with TowerProcess("simavr", firmware_matrix) as proc:
        with DiceTower(proc.port) as tower:
            assert tower.capabilities.display == DisplayKind.MATRIX_8X8
            tower.set_player(2, (255, 0, 0))
            tower.show_roll(manual_roll(DiceKind.TWO_D6, [4, 5]))
            rows = proc.display()
            assert rows is not None
            assert _matrix_digit(rows, 4) == nine and _matrix_digit(rows, 0) == [0] * 5
            assert (rows[6] & 0xFE, rows[7] & 0xFE) == (0xF0, 0xF8)  # bars of 4 and 5
            assert [r & 1 for r in rows] == [1, 1, 1, 0, 0, 0, 0, 0]  # player 3 of 8
            tower.show_roll(manual_roll(DiceKind.TWO_D6, [6, 5]))
            rows = proc.display()
            assert rows is not None
            assert _matrix_digit(rows, 0) == one and _matrix_digit(rows, 4) == one
            tower.show_roll(manual_roll(DiceKind.RESOURCE, [0, 1, 2, 3, 4, 5]))
            rows = proc.display()
            assert rows is not None
            assert [r & 0xFE for r in rows[:6]] == [0x80, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC]
        deadline = time.monotonic() + 60  # generous: a loaded CI machine
        while (rows := proc.display()) is not None and [r & 1 for r in rows] != [1, 0] * 4:
            assert time.monotonic() < deadline, "the matrix never showed the host was gone"
            threading.Event().wait(0.05)
