"""Opening the line to a tower: a real serial port, the simulator, and fault injection.

Every transport is the small subset of a pyserial ``Serial`` the driver uses: ``write(bytes)``,
``read(size)`` that returns ``b""`` after its timeout, and ``close()``. Errors are OSError (which
pyserial's SerialException is).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol

from firmware_bridge.protocol import FrameSplitter
from firmware_bridge.simulator import SimPort, sim_device

BAUDRATE = 115200
#: how long one read waits; bounds how quickly the reader thread notices close()
READ_TIMEOUT_S = 0.02


class Transport(Protocol):
    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def close(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


def open_transport(url: str) -> Transport:
    """``sim://NAME`` -> simulator; anything else -> pyserial (a device path or a pyserial URL)."""
    if url.startswith("sim://"):
        return SimPort(sim_device(url), timeout=READ_TIMEOUT_S)
    import serial  # imported here so the simulator works where pyserial is missing

    try:
        # exclusive: a second program on the same tower would steal half of its replies
        return serial.serial_for_url(url, baudrate=BAUDRATE, timeout=READ_TIMEOUT_S, exclusive=True)
    except ValueError as exc:
        raise ValueError(f"cannot open serial port {url!r}: {exc}") from exc


FAULT_KINDS = ("corrupt", "drop", "duplicate")


class FaultyTransport:
    """Wraps a transport and damages whole frames in both directions, as a bad cable would.

    Each frame (cut at 0x00 delimiters) is, with probability ``rate``, corrupted (one byte
    flipped), dropped, or sent twice; ``injected`` counts them per direction and kind. A
    corrupted byte never becomes 0x00, so one damaged frame stays one frame.
    """

    def __init__(
        self,
        inner: Transport,
        rate: float,
        rng: random.Random,
        injected: Counter[str] | None = None,
    ) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate {rate} is not a probability")
        self.inner = inner
        self.rate = rate
        self.rng = rng
        #: pass one Counter to every transport of a run to total the faults over reconnects
        self.injected: Counter[str] = Counter() if injected is None else injected
        self._rx = FrameSplitter()
        self._rx_ready = bytearray()
        self._tx = FrameSplitter()

    def _damage(self, frames: list[bytes], direction: str) -> bytes:
        out = bytearray()
        for frame in frames:
            if self.rng.random() >= self.rate:
                out += frame + b"\x00"
                continue
            kind = self.rng.choice(FAULT_KINDS)
            self.injected[f"{direction}_{kind}"] += 1
            if kind == "drop":
                continue
            if kind == "duplicate":
                out += (frame + b"\x00") * 2
                continue
            damaged = bytearray(frame)
            i = self.rng.randrange(len(damaged))
            flip = 1 << self.rng.randrange(8)
            if damaged[i] ^ flip == 0:
                flip = 0xFF ^ damaged[i] if damaged[i] != 0xFF else 0x01
            damaged[i] ^= flip
            out += damaged + b"\x00"
        return bytes(out)

    def write(self, data: bytes, /) -> int:
        wire = self._damage(self._tx.feed(data), "to_device")
        if wire:
            self.inner.write(wire)
        return len(data)

    def read(self, size: int = 1, /) -> bytes:
        if not self._rx_ready:
            # pyserial's read(n) waits for all n bytes: ask only for what is there
            data = self.inner.read(max(1, self.inner.in_waiting))
            self._rx_ready += self._damage(self._rx.feed(data), "to_host")
        out = bytes(self._rx_ready[:size])
        del self._rx_ready[:size]
        return out

    @property
    def in_waiting(self) -> int:
        return len(self._rx_ready) + self.inner.in_waiting

    def close(self) -> None:
        self.inner.close()
