"""A pure-Python dice tower that speaks the same protocol as the firmware.

:class:`SimDevice` is a line-by-line model of the firmware's protocol core
(firmware_bridge/firmware/src/proto.c): same session rules, same reply cache, same event queue,
same counters. It serves the demo and every machine without the AVR toolchain, and lets tests
pull the plug or reset the device at any moment.

``sim://NAME`` URLs name devices in a process-wide registry, so a driver that reconnects after
an "unplug" finds the same device again; plain ``sim://`` gives every opener its own device.
"""

from __future__ import annotations

import random
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from firmware_bridge.protocol import (
    DICE_SHAPE,
    MAX_PAYLOAD,
    PROTOCOL_VERSION,
    REPLY_BIT,
    ButtonMode,
    Capabilities,
    DiceKind,
    DisplayKind,
    Frame,
    FrameSplitter,
    MsgType,
    ProtocolError,
    Status,
    decode_frame,
    encode_frame,
    validate_dice,
)

FIRMWARE_VERSION = (1, 0)
#: must match EVENT_RETRY_MS, HEARTBEAT_MS, HOST_TIMEOUT_MS and EVENT_QUEUE in proto.h
EVENT_RETRY_S = 0.050
HEARTBEAT_S = 1.0
HOST_TIMEOUT_S = 3.0
EVENT_QUEUE = 4


class Unplugged(OSError):
    """Reading or writing a port whose device is unplugged (what pyserial reports as an error)."""


@dataclass
class DeviceState:
    """What a person at the table would see on the tower."""

    #: RGB per board LED, shape (n_leds, 3), values 0..255
    leds: list[tuple[int, int, int]]
    player: int | None = None
    player_color: tuple[int, int, int] = (0, 0, 0)
    shown: tuple[DiceKind, tuple[int, ...]] | None = None
    #: number of times the robber animation of a 7 was started
    sevens_animated: int = 0
    #: the host spoke within HOST_TIMEOUT_S (the firmware shows "--" otherwise)
    host_present: bool = False


class Execution(NamedTuple):
    boot_id: int
    seq: int
    type: int
    payload: bytes


@dataclass
class _Event:
    type: MsgType
    seq: int
    payload: bytes


#: Commands the simulator remembers (far more than a bench or a test sends).
LOG_LIMIT = 100_000


@dataclass
class SimDevice:
    """Simulated tower. Thread-safe: every public method takes the device lock."""

    n_leds: int = 90
    n_player_leds: int = 6
    seed: int | None = None
    #: the executed (cached) commands, for tests and the fault bench; bounded, so that a
    #: simulated tower running for hours (the demo) does not grow without end
    log: deque[Execution] = field(default_factory=lambda: deque(maxlen=LOG_LIMIT))
    #: the device's clock in seconds (tests pass a fake one)
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        self._rng = random.Random(self.seed)
        self._boots = 0
        self._out = bytearray()
        self.powered = True
        #: bumped by every unplug, so handles opened before it stay dead after a replug
        self.generation = 0
        self._boot()

    # ---- power ----

    def _boot(self) -> None:
        self._boots += 1
        # like the firmware: a boot counter (EEPROM there) mixed with fresh randomness
        self.boot_id = (self._boots ^ (self._rng.getrandbits(8) << 8)) & 0xFFFF
        self.state = DeviceState(leds=[(0, 0, 0)] * self.n_leds)
        self._session: int | None = None
        self._last: tuple[int, int, bytes] | None = None
        self.executed = 0
        self.crc_errors = 0
        self.duplicates = 0
        self._splitter = FrameSplitter()
        self._events: deque[_Event] = deque()
        self._event_sent_at: float | None = None
        self._next_event_seq = 1
        self._button_mode = ButtonMode.ROLL
        self._button_kind = DiceKind.TWO_D6
        self._out.clear()
        self._last_rx = self.clock()
        self._send(MsgType.BOOT, 0, struct.pack("<H", self.boot_id))

    def reset(self) -> None:
        """The firmware restarts (reset button, brown-out): all volatile state is gone."""
        with self._lock:
            self._boot()
            self._lock.notify_all()

    def unplug(self) -> None:
        """USB cable pulled: open ports fail, the device is off."""
        with self._lock:
            self.powered = False
            self.generation += 1
            self._out.clear()
            self._lock.notify_all()

    def replug(self) -> None:
        """Cable back in: the device powers up (a fresh boot), ports can be opened again."""
        with self._lock:
            self.powered = True
            self._boot()
            self._lock.notify_all()

    # ---- the table side ----

    def press_button(self) -> None:
        """A debounced press of the roll button."""
        with self._lock:
            boot = struct.pack("<H", self.boot_id)
            if self._button_mode == ButtonMode.ROLL:
                kind = self._button_kind
                values = self._roll(kind)
                self._queue_event(MsgType.EVENT_DICE, boot + bytes([kind, len(values), *values]))
            else:
                self._queue_event(MsgType.EVENT_BUTTON, boot)
            self._lock.notify_all()

    # ---- the wire side ----

    def write(self, data: bytes) -> None:
        """Bytes from the host."""
        with self._lock:
            if not self.powered:
                raise Unplugged("dice tower unplugged")
            for raw in self._splitter.feed(data):
                try:
                    frame = decode_frame(raw)
                except ProtocolError:
                    self.crc_errors += 1
                    continue
                self._last_rx = self.clock()
                self.state.host_present = True
                self._handle(frame)
            self._lock.notify_all()

    def read(self, size: int, timeout: float | None) -> bytes:
        """Up to ``size`` bytes for the host, waiting at most ``timeout`` seconds for the first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while True:
                if not self.powered:
                    raise Unplugged("dice tower unplugged")
                wait = self._poll()
                if self._out:
                    data = bytes(self._out[:size])
                    del self._out[:size]
                    return data
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return b""
                    wait = min(wait, left)
                self._lock.wait(wait)

    def in_waiting(self) -> int:
        with self._lock:
            return len(self._out)

    # ---- the firmware's logic (proto.c) ----

    def _send(self, type_: int, seq: int, payload: bytes) -> None:
        self._out += encode_frame(Frame(type_, seq, payload))
        self._last_tx = self.clock()

    def _queue_event(self, type_: MsgType, payload: bytes) -> None:
        if len(self._events) == EVENT_QUEUE:
            # the host has been away for a while: the oldest press matters least
            self._events.popleft()
            self._event_sent_at = None
        self._events.append(_Event(type_, self._next_event_seq, payload))
        self._next_event_seq = 1 if self._next_event_seq == 255 else self._next_event_seq + 1

    def _poll(self) -> float:
        """Event retransmission and heartbeat; returns seconds until it needs to run again."""
        now = self.clock()
        if self.state.host_present and now - self._last_rx >= HOST_TIMEOUT_S:
            self.state.host_present = False
        if self._session is not None and self._events:
            sent = self._event_sent_at
            if sent is None or now - sent >= EVENT_RETRY_S:
                head = self._events[0]
                self._send(head.type, head.seq, head.payload)
                self._event_sent_at = now
            return EVENT_RETRY_S
        if now - self._last_tx >= HEARTBEAT_S:
            hb = struct.pack("<HB", self.boot_id, self._session is not None)
            self._send(MsgType.HEARTBEAT, 0, hb)
        return max(0.001, HEARTBEAT_S - (now - self._last_tx))

    def _roll(self, kind: DiceKind) -> tuple[int, ...]:
        count, faces = DICE_SHAPE[kind]
        low = 0 if kind == DiceKind.RESOURCE else 1
        values = tuple(self._rng.randrange(faces) + low for _ in range(count))
        self._show(kind, values)
        return values

    def _show(self, kind: DiceKind, values: tuple[int, ...]) -> None:
        self.state.shown = (kind, values)
        if kind == DiceKind.TWO_D6 and sum(values) == 7:
            self.state.sevens_animated += 1

    def capabilities(self) -> Capabilities:
        return Capabilities(
            protocol_version=PROTOCOL_VERSION,
            firmware_version=FIRMWARE_VERSION,
            n_leds=self.n_leds,
            n_player_leds=self.n_player_leds,
            display=DisplayKind.SEVEN_SEGMENT_8,
            dice_kinds=frozenset(DiceKind),
            boot_id=self.boot_id,
        )

    def _handle(self, f: Frame) -> None:
        reply = int(f.type) | REPLY_BIT
        if f.type == MsgType.EVENT_ACK:
            if self._events and self._event_sent_at is not None and self._events[0].seq == f.seq:
                self._events.popleft()
                self._event_sent_at = None
            return
        if int(f.type) & REPLY_BIT or MsgType.EVENT_BUTTON <= int(f.type) <= MsgType.BOOT:
            return  # frames only a device sends: an echo or line noise, never answered
        if f.type == MsgType.HELLO:
            if len(f.payload) != 3 or f.payload[0] != PROTOCOL_VERSION:
                self._send(reply, f.seq, bytes([Status.BAD_VERSION, PROTOCOL_VERSION]))
                return
            (session,) = struct.unpack("<H", f.payload[1:])
            # a repeated HELLO of the same session must not forget the last command
            if self._session != session:
                self._session = session
                self._last = None
            self._send(reply, f.seq, bytes([Status.OK]) + self.capabilities().to_reply())
            return
        if f.type == MsgType.PING:
            stats = struct.pack(
                "<HHHH", self.boot_id, self.executed, self.crc_errors, self.duplicates
            )
            self._send(reply, f.seq, bytes([Status.OK]) + stats)
            return
        if self._session is None:
            self._send(reply, f.seq, bytes([Status.NO_SESSION]))
            return
        if self._last is not None and self._last[:2] == (f.seq, int(f.type)):
            self.duplicates += 1
            self._send(reply, f.seq, self._last[2])
            return
        result = self._execute(f)
        self.executed += 1
        self.log.append(Execution(self.boot_id, f.seq, int(f.type), f.payload))
        self._last = (f.seq, int(f.type), result)
        self._send(reply, f.seq, result)

    def _execute(self, f: Frame) -> bytes:
        p = f.payload
        bad = bytes([Status.BAD_ARGUMENT])
        if f.type == MsgType.ROLL:
            if len(p) != 1:
                return bad
            if p[0] not in DiceKind._value2member_map_:
                return bytes([Status.UNSUPPORTED])
            kind = DiceKind(p[0])
            values = self._roll(kind)
            return bytes([Status.OK, kind, len(values), *values])
        if f.type == MsgType.SHOW_ROLL:
            if len(p) < 2 or len(p) != 2 + p[1] or p[0] not in DiceKind._value2member_map_:
                return bad
            kind = DiceKind(p[0])
            try:
                values = validate_dice(kind, list(p[2:]))
            except ValueError:
                return bad
            self._show(kind, values)
            return bytes([Status.OK])
        if f.type == MsgType.SET_LEDS:
            if len(p) != 6 + (self.n_leds + 7) // 8:
                return bad
            fg, bg, mask = (p[0], p[1], p[2]), (p[3], p[4], p[5]), p[6:]
            self.state.leds = [
                fg if mask[i // 8] >> (i % 8) & 1 else bg for i in range(self.n_leds)
            ]
            return bytes([Status.OK])
        if f.type == MsgType.SET_PLAYER:
            if len(p) != 4 or p[0] > 7:
                return bad
            self.state.player = p[0]
            self.state.player_color = (p[1], p[2], p[3])
            return bytes([Status.OK])
        if f.type == MsgType.CONFIG:
            if len(p) != 2 or p[0] > ButtonMode.ROLL or p[1] not in DiceKind._value2member_map_:
                return bad
            self._button_mode = ButtonMode(p[0])
            self._button_kind = DiceKind(p[1])
            return bytes([Status.OK])
        return bytes([Status.UNKNOWN_COMMAND])


assert MAX_PAYLOAD >= 6 + (255 + 7) // 8, "SET_LEDS for 255 LEDs must fit in one frame"

_registry: dict[str, SimDevice] = {}
_registry_lock = threading.Lock()


def sim_device(url: str) -> SimDevice:
    """The device behind a ``sim://NAME`` URL (created on first use); ``sim://`` is always new.

    Query parameters configure a new device: ``sim://t1?leds=57&seed=3``.
    """
    if not url.startswith("sim://"):
        raise ValueError(f"not a simulator URL: {url!r} (expected sim://NAME)")
    rest = url[len("sim://") :]
    name, _, query = rest.partition("?")
    options: dict[str, int] = {}
    for part in filter(None, query.split("&")):
        key, _, value = part.partition("=")
        if key not in ("leds", "seed") or not value.isdigit():
            raise ValueError(f"bad simulator option {part!r} in {url!r} (known: leds=N, seed=N)")
        options[key] = int(value)
    leds = options.get("leds", 90)
    if not 1 <= leds <= 255:
        raise ValueError(f"simulator leds={leds} out of range 1..255")
    if not name:
        return SimDevice(n_leds=leds, seed=options.get("seed"))
    with _registry_lock:
        dev = _registry.get(name)
        if dev is None:
            dev = _registry[name] = SimDevice(n_leds=leds, seed=options.get("seed"))
        return dev


class SimPort:
    """A serial-port-like handle on a SimDevice (the subset of pyserial the driver uses)."""

    def __init__(self, device: SimDevice, timeout: float = 0.05) -> None:
        if not device.powered:
            raise Unplugged("dice tower unplugged")
        self.device = device
        self.timeout = timeout
        self.is_open = True
        self._generation = device.generation

    def _check(self) -> None:
        if not self.is_open:
            raise Unplugged("port closed")
        if self.device.generation != self._generation:
            raise Unplugged("dice tower was unplugged")

    def write(self, data: bytes) -> int:
        self._check()
        self.device.write(data)
        return len(data)

    def read(self, size: int = 1) -> bytes:
        self._check()
        return self.device.read(size, self.timeout)

    @property
    def in_waiting(self) -> int:
        return self.device.in_waiting()

    def close(self) -> None:
        self.is_open = False
