"""Host driver of the dice tower: one object, safe to call from any thread.

    with DiceTower("sim://") as tower:          # or "/dev/ttyACM0"
        roll = tower.roll()                      # DiceRoll(kind, values, source=TOWER)
        tower.light_hexes([(0, 0), (1, -1)])
        tower.subscribe(print)                   # ButtonPressed, DiceRolled, Connection, ...

How it stays correct on a bad line (docs/protocol.md has the details):

* One command is in flight at a time. It is sent, and resent with the same seq every
  ``retransmit`` seconds until its reply arrives; the tower answers a repeated seq from its
  reply cache without running the command again, so a resent ROLL never rolls twice.
* A reader thread decodes everything the tower sends, acknowledges its events (which the tower
  resends until acknowledged) and drops repeats of events already delivered.
* When the port fails (unplugged) the reader closes it and reopens it until it works again.
  When the tower answers NO_SESSION, or says a new boot id, it has reset: the driver shakes
  hands again, restores what the tower should show (LEDs, player, button mode), and resends
  the command that was in flight.
* A command that cannot get an answer within ``timeout`` raises TowerTimeout.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import random
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from firmware_bridge.dice import DiceRoll, DiceSource
from firmware_bridge.leds import Hex, LedMap
from firmware_bridge.protocol import (
    DICE_SHAPE,
    PROTOCOL_VERSION,
    REPLY_BIT,
    RESOURCE_FACES,
    ButtonMode,
    Capabilities,
    DeviceStats,
    DiceKind,
    Frame,
    FrameSplitter,
    MsgType,
    ProtocolError,
    Status,
    decode_frame,
    encode_frame,
    led_mask,
    validate_dice,
)
from firmware_bridge.transport import Transport, open_transport

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]


class TowerError(Exception):
    """The tower could not do what was asked."""


class TowerTimeout(TowerError, TimeoutError):
    """No answer in time: unplugged, powered off, or the wrong port."""


class TowerRejected(TowerError):
    """The tower answered with an error status."""


# ---- events delivered to subscribers ----


@dataclass(frozen=True)
class ButtonPressed:
    """The tower's button, when it is set not to roll (see :meth:`DiceTower.set_button_mode`)."""


@dataclass(frozen=True)
class DiceRolled:
    roll: DiceRoll


@dataclass(frozen=True)
class ConnectionChanged:
    connected: bool
    reason: str


@dataclass(frozen=True)
class TowerReset:
    """The tower rebooted (reset, power loss); the driver restored its display already."""

    boot_id: int


TowerEvent = ButtonPressed | DiceRolled | ConnectionChanged | TowerReset


def _check_rgb(color: RGB, what: str) -> tuple[int, int, int]:
    if len(color) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in color):
        raise ValueError(f"{what} must be three integers 0..255, got {color!r}")
    return (color[0], color[1], color[2])


class DiceTower:
    """Driver of one tower behind ``url`` (a serial device, a pyserial URL, or ``sim://NAME``).

    ``opener`` replaces how the line is (re)opened, e.g. to wrap it in fault injection.
    Times are in seconds.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 3.0,
        retransmit: float = 0.05,
        heartbeat: float = 1.0,
        opener: Callable[[], Transport] | None = None,
        led_map: LedMap | None = None,
    ) -> None:
        if timeout <= 0 or retransmit <= 0 or heartbeat <= 0:
            raise ValueError("timeout, retransmit and heartbeat must be positive")
        self.url = url
        self.timeout = timeout
        self.retransmit = retransmit
        self.heartbeat = heartbeat
        self._opener: Callable[[], Transport] = opener or (lambda: open_transport(url))
        self._led_map = led_map

        self._cond = threading.Condition()  # guards everything below that threads share
        self._cmd_lock = threading.Lock()  # one command in flight
        self._write_lock = threading.Lock()  # frames are written whole
        self._transport: Transport | None = None
        self._session = random.getrandbits(16)
        self._session_ok = False
        # Commands the tower caches by seq take consecutive seqs from one counter, so two in a
        # row never share a seq however many PINGs and HELLOs (own counter) came between.
        self._cmd_seq = random.getrandbits(8)
        self._ctl_seq = 0
        self._pending: tuple[int, int] | None = None  # (reply type, seq)
        self._reply: Frame | None = None
        self._caps: Capabilities | None = None
        self._last_event: tuple[int, int] | None = None  # (boot id, seq) last delivered
        self._last_rx = 0.0
        self._last_cmd = 0.0
        self._restore: dict[MsgType, bytes] = {}
        #: what went wrong on the line and what the driver did about it
        self.stats: Counter[str] = Counter()
        self._stats_lock = threading.Lock()
        self._subscribers: list[Callable[[TowerEvent], None]] = []
        self._events: queue.Queue[TowerEvent | None] = queue.Queue()
        self._closed = threading.Event()
        self._threads: list[threading.Thread] = []

    # ---- life cycle ----

    def open(self) -> DiceTower:
        """Starts the threads and shakes hands; raises TowerTimeout if the tower never answers."""
        if self._threads:
            raise TowerError("a tower driver opens once: make a new DiceTower to reconnect")
        for target, name in (
            (self._reader, "tower-reader"),
            (self._dispatcher, "tower-events"),
            (self._heartbeat, "tower-heartbeat"),
        ):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        try:
            self._request(MsgType.PING, b"")
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        self._closed.set()
        self._events.put(None)
        with self._cond:
            self._cond.notify_all()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=2.0)
        with self._cond:
            if self._transport is not None:
                self._transport.close()
                self._transport = None

    def __enter__(self) -> DiceTower:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def capabilities(self) -> Capabilities:
        with self._cond:
            if self._caps is None:
                raise TowerError("no handshake with the tower yet: call open() first")
            return self._caps

    @property
    def connected(self) -> bool:
        """The port is open and the tower spoke within three heartbeats."""
        with self._cond:
            return self._transport is not None and time.monotonic() - self._last_rx < 3 * max(
                self.heartbeat, 1.0
            )

    def subscribe(self, callback: Callable[[TowerEvent], None]) -> Callable[[], None]:
        """Calls ``callback(event)`` from the driver's event thread; returns an unsubscribe."""
        with self._cond:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._cond:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    # ---- commands ----

    def ping(self) -> DeviceStats:
        """Round trip to the tower; returns its counters."""
        return DeviceStats.from_reply(self._request(MsgType.PING, b"").payload[1:])

    def roll(self, kind: DiceKind = DiceKind.TWO_D6) -> DiceRoll:
        """The tower rolls (its own entropy) and shows the result."""
        kind = DiceKind(kind)
        self._check_kind(kind)
        p = self._request(MsgType.ROLL, bytes([kind])).payload
        count = DICE_SHAPE[kind][0]
        if len(p) != 3 + count or p[1] != kind or p[2] != count:
            raise ProtocolError(f"malformed ROLL reply {p.hex()}")
        values = validate_dice(kind, list(p[3:]))
        return DiceRoll(kind, values, DiceSource.TOWER)

    def show_roll(self, roll: DiceRoll) -> None:
        """Shows a roll made elsewhere (host, physical dice); a 7 plays the robber animation."""
        values = validate_dice(roll.kind, roll.values)
        self._check_kind(roll.kind)
        self._request(MsgType.SHOW_ROLL, bytes([roll.kind, len(values), *values]))

    def set_leds(
        self, lit: Iterable[int], color: RGB = (255, 140, 0), background: RGB = (0, 0, 0)
    ) -> None:
        """Board LEDs by index: ``lit`` in ``color``, every other one in ``background``."""
        fg = _check_rgb(color, "color")
        bg = _check_rgb(background, "background")
        mask = led_mask(self.capabilities.n_leds, frozenset(lit))
        payload = bytes([*fg, *bg]) + mask
        self._request(MsgType.SET_LEDS, payload)
        with self._cond:
            self._restore[MsgType.SET_LEDS] = payload

    def set_led_map(self, led_map: LedMap) -> None:
        n = self.capabilities.n_leds
        if led_map.n_leds > n:
            raise ValueError(f"LED map needs {led_map.n_leds} LEDs, the tower has {n}")
        self._led_map = led_map

    def light_hexes(
        self, hexes: Iterable[Hex], color: RGB = (255, 140, 0), background: RGB = (0, 0, 0)
    ) -> None:
        """Lights the LEDs under the given hexes (e.g. the ones producing on a roll)."""
        if self._led_map is None:
            raise TowerError("no LED map: call set_led_map() with the board's hexes first")
        self.set_leds(self._led_map.leds_of(hexes), color, background)

    def set_player(self, index: int, color: RGB) -> None:
        """Whose turn it is: player ``index`` (0..7) in their colour."""
        if not isinstance(index, int) or not 0 <= index <= 7:
            raise ValueError(f"player index must be 0..7, got {index!r}")
        payload = bytes([index, *_check_rgb(color, "player color")])
        self._request(MsgType.SET_PLAYER, payload)
        with self._cond:
            self._restore[MsgType.SET_PLAYER] = payload

    def set_button_mode(self, mode: ButtonMode, kind: DiceKind = DiceKind.TWO_D6) -> None:
        """ROLL: the button rolls ``kind`` (DiceRolled events); EVENT_ONLY: ButtonPressed."""
        mode, kind = ButtonMode(mode), DiceKind(kind)
        self._check_kind(kind)
        payload = bytes([mode, kind])
        self._request(MsgType.CONFIG, payload)
        with self._cond:
            self._restore[MsgType.CONFIG] = payload

    def _check_kind(self, kind: DiceKind) -> None:
        if kind not in self.capabilities.dice_kinds:
            raise ValueError(f"this tower cannot roll {kind.name} dice")

    # ---- the request machinery ----

    def _count(self, what: str) -> None:
        # the reader, the heartbeat and callers' threads all count
        with self._stats_lock:
            self.stats[what] += 1

    def _next_seq(self, type_: MsgType) -> int:
        if type_ in (MsgType.PING, MsgType.HELLO):
            self._ctl_seq = (self._ctl_seq + 1) & 0xFF
            return self._ctl_seq
        self._cmd_seq = (self._cmd_seq + 1) & 0xFF
        return self._cmd_seq

    def _request(self, type_: MsgType, payload: bytes, timeout: float | None = None) -> Frame:
        """Sends one command until it is answered; returns the OK reply."""
        budget = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + budget
        with self._cmd_lock:
            if self._closed.is_set():
                raise TowerError("tower driver is closed")
            self._last_cmd = time.monotonic()
            seq = self._next_seq(type_)
            while True:
                if not self._session_ok:
                    # even before a PING: its counters must be read after any restore
                    self._handshake(deadline)
                    continue
                reply = self._exchange(type_, seq, payload, deadline)
                if reply is None:
                    continue
                status = reply.payload[0] if reply.payload else -1
                if status == Status.NO_SESSION:
                    # the tower rebooted since our HELLO: shake hands, then the same command
                    self._count("no_session")
                    with self._cond:
                        self._session_ok = False
                    continue
                if status != Status.OK:
                    name = Status(status).name if status in Status else str(status)
                    raise TowerRejected(f"tower refused {type_.name}: {name}")
                return reply

    def _handshake(self, deadline: float) -> None:
        payload = struct.pack("<BH", PROTOCOL_VERSION, self._session)
        while True:
            reply = self._exchange(MsgType.HELLO, self._next_seq(MsgType.HELLO), payload, deadline)
            if reply is not None:
                break
        status = reply.payload[0] if reply.payload else -1
        if status == Status.BAD_VERSION:
            theirs = reply.payload[1] if len(reply.payload) > 1 else "?"
            raise TowerError(
                f"tower speaks protocol {theirs}, this host {PROTOCOL_VERSION}: "
                "update the firmware or the companion"
            )
        if status != Status.OK:
            raise TowerRejected(f"tower refused HELLO with status {status}")
        caps = Capabilities.from_reply(reply.payload[1:])
        with self._cond:
            rebooted = self._caps is not None and caps.boot_id != self._caps.boot_id
            self._caps = caps
            self._session_ok = True
            restore = dict(self._restore) if rebooted else {}
        log.info(
            "dice tower: protocol %d, firmware %d.%d, %d LEDs, boot %04x",
            caps.protocol_version,
            *caps.firmware_version,
            caps.n_leds,
            caps.boot_id,
        )
        if rebooted:
            self._count("resets_seen")
            self._events.put(TowerReset(caps.boot_id))
        for type_, data in restore.items():
            # what the tower showed before it rebooted; a second reboot meanwhile restarts this
            while True:
                r = self._exchange(type_, self._next_seq(type_), data, deadline)
                if r is not None:
                    break
            if r.payload[:1] == bytes([Status.NO_SESSION]):
                with self._cond:
                    self._session_ok = False
                return

    def _exchange(self, type_: MsgType, seq: int, payload: bytes, deadline: float) -> Frame | None:
        """Sends a frame and waits for its reply, resending on silence.

        Returns None when the session was lost meanwhile (the caller shakes hands and retries);
        raises TowerTimeout at the deadline.
        """
        wire = encode_frame(Frame(type_, seq, payload))
        want = (int(type_) | REPLY_BIT, seq)
        session_before = self._session_ok
        with self._cond:
            self._pending = want
            self._reply = None
        sends = 0
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    raise TowerTimeout(
                        f"dice tower on {self.url} did not answer {type_.name} in time: "
                        "is it plugged in and running the tower firmware?"
                    )
                with self._cond:
                    transport = self._transport
                    if transport is None:
                        self._cond.wait(min(self.retransmit, deadline - now))
                        continue
                if session_before and not self._session_ok:
                    return None
                if not self._write(transport, wire):
                    continue
                if sends:
                    self._count("retransmits")
                sends += 1
                with self._cond:
                    end = min(time.monotonic() + self.retransmit, deadline)
                    while self._reply is None and self._transport is transport:
                        left = end - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                    if self._reply is not None:
                        return self._reply
        finally:
            with self._cond:
                self._pending = None

    def _write(self, transport: Transport, data: bytes) -> bool:
        try:
            with self._write_lock:
                transport.write(data)
            return True
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            # pyserial raises the last three when the reader closed the port under this write
            self._lost(transport, f"write failed: {exc}")
            return False

    def _lost(self, transport: Transport, reason: str) -> None:
        with self._cond:
            if self._transport is not transport:
                return
            self._transport = None
            self._session_ok = False
            self._cond.notify_all()
        # the reader thread closes it: closing a pyserial port under a read breaks that read
        self._count("disconnects")
        log.warning("dice tower: line lost (%s); reconnecting", reason)
        self._events.put(ConnectionChanged(False, reason))

    # ---- threads ----

    def _reader(self) -> None:
        splitter = FrameSplitter()
        backoff = 0.02
        current: Transport | None = None
        while not self._closed.is_set():
            with self._cond:
                transport = self._transport
            if current is not None and current is not transport:
                with contextlib.suppress(Exception):
                    current.close()
                current = None
            if transport is None:
                try:
                    transport = self._opener()
                except (OSError, ValueError) as exc:
                    self._count("open_failures")
                    log.debug("dice tower: cannot open %s: %s", self.url, exc)
                    self._closed.wait(backoff)
                    backoff = min(backoff * 2, 0.5)
                    continue
                backoff = 0.02
                splitter = FrameSplitter()
                with self._cond:
                    self._transport = transport
                    self._session_ok = False
                    self._cond.notify_all()
                self._events.put(ConnectionChanged(True, f"opened {self.url}"))
            current = transport
            try:
                # pyserial's read(n) waits for all n bytes: ask only for what is there
                data = transport.read(max(1, transport.in_waiting))
            except Exception as exc:  # noqa: BLE001 - pyserial raises odd types on a dead port
                self._lost(transport, f"read failed: {exc}")
                continue
            if not data:
                continue
            with self._cond:
                self._last_rx = time.monotonic()
            for raw in splitter.feed(data):
                try:
                    frame = decode_frame(raw)
                except ProtocolError:
                    self._count("bad_frames")
                    continue
                self._on_frame(transport, frame)

    def _on_frame(self, transport: Transport, f: Frame) -> None:
        t = int(f.type)
        if t & REPLY_BIT:
            with self._cond:
                if self._pending == (t, f.seq) and self._reply is None:
                    self._reply = f
                    self._cond.notify_all()
                else:
                    # a reply to a frame that was resent or duplicated on the line
                    self._count("stale_replies")
            return
        if t in (MsgType.EVENT_DICE, MsgType.EVENT_BUTTON):
            self._write(transport, encode_frame(Frame(MsgType.EVENT_ACK, f.seq, b"")))
            if len(f.payload) < 2:
                self._count("bad_events")
                return
            key = (struct.unpack("<H", f.payload[:2])[0], f.seq)
            with self._cond:
                if self._last_event == key:
                    # our ACK was lost and the tower sent it again
                    self._count("duplicate_events")
                    return
                self._last_event = key
            event = self._parse_event(f)
            if event is not None:
                self._events.put(event)
            return
        if t in (MsgType.BOOT, MsgType.HEARTBEAT):
            (boot,) = struct.unpack("<H", f.payload[:2]) if len(f.payload) >= 2 else (None,)
            session_active = t == MsgType.HEARTBEAT and len(f.payload) >= 3 and f.payload[2]
            with self._cond:
                known = self._caps.boot_id if self._caps else None
                if self._session_ok and (boot != known or not session_active):
                    # the tower rebooted: handshake before the next command
                    self._session_ok = False
                    self._cond.notify_all()
            return
        self._count("unexpected_frames")

    def _parse_event(self, f: Frame) -> TowerEvent | None:
        if f.type == MsgType.EVENT_BUTTON:
            return ButtonPressed()
        p = f.payload[2:]
        try:
            kind = DiceKind(p[0])
            values = validate_dice(kind, list(p[2 : 2 + p[1]]))
        except (IndexError, ValueError):
            self._count("bad_events")
            return None
        return DiceRolled(DiceRoll(kind, values, DiceSource.BUTTON))

    def _dispatcher(self) -> None:
        while True:
            event = self._events.get()
            if event is None:
                return
            with self._cond:
                subscribers = list(self._subscribers)
            for callback in subscribers:
                try:
                    callback(event)
                except Exception:  # a subscriber's bug must not stop the tower
                    log.exception("dice tower: event subscriber failed on %s", event)

    def _heartbeat(self) -> None:
        while not self._closed.wait(self.heartbeat / 2):
            if time.monotonic() - self._last_cmd < self.heartbeat:
                continue
            if self._cmd_lock.locked():
                continue
            try:
                self._request(MsgType.PING, b"", timeout=max(self.heartbeat, self.timeout))
            except TowerTimeout as exc:
                log.warning("dice tower: heartbeat unanswered: %s", exc)
                self._count("heartbeat_timeouts")
            except TowerError:
                return


def describe_roll(roll: DiceRoll) -> str:
    """One line for logs and the console."""
    if roll.kind == DiceKind.RESOURCE:
        return f"{', '.join(RESOURCE_FACES[v] for v in roll.values)} ({roll.source})"
    return f"{' + '.join(map(str, roll.values))} = {sum(roll.values)} ({roll.source})"
