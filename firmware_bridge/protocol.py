"""Wire protocol of the dice tower (host side); the specification is docs/protocol.md.

A frame on the wire is ``COBS(type, seq, payload..., crc_hi, crc_lo) 0x00``: COBS removes every
zero byte so that 0x00 can delimit frames and a receiver resynchronises after any damage at the
next delimiter. The CRC is CRC-16/CCITT-FALSE over type, seq and payload.

The firmware's C implementation (firmware_bridge/firmware/src/proto.c) must agree byte for byte
with this module; both are checked against firmware_bridge/firmware/test_vectors.txt.

>>> crc16(b"123456789") == 0x29B1
True
>>> cobs_encode(b"\\x11\\x00\\x22").hex()
'02110222'
>>> decode_frame(encode_frame(Frame(MsgType.PING, 7, b"")))
Frame(type=<MsgType.PING: 2>, seq=7, payload=b'')
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

PROTOCOL_VERSION = 1

#: Largest payload a frame may carry; the firmware's buffers are sized for it.
MAX_PAYLOAD = 64
#: type + seq + payload + crc
MAX_FRAME = 2 + MAX_PAYLOAD + 2
#: COBS adds at most one byte per 254, plus the leading code byte.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1

DELIMITER = 0x00
REPLY_BIT = 0x80


class MsgType(IntEnum):
    """Message types. A reply to command ``t`` has type ``t | REPLY_BIT`` and the same seq."""

    HELLO = 0x01
    PING = 0x02
    ROLL = 0x03
    SHOW_ROLL = 0x04
    SET_LEDS = 0x05
    SET_PLAYER = 0x06
    CONFIG = 0x07
    # device -> host; BUTTON and DICE are reliable (retransmitted until EVENT_ACK)
    EVENT_BUTTON = 0x40
    EVENT_DICE = 0x41
    HEARTBEAT = 0x42
    BOOT = 0x43
    # host -> device, acknowledges a reliable event by its seq; never answered
    EVENT_ACK = 0x7E


COMMANDS = frozenset(
    {
        MsgType.HELLO,
        MsgType.PING,
        MsgType.ROLL,
        MsgType.SHOW_ROLL,
        MsgType.SET_LEDS,
        MsgType.SET_PLAYER,
        MsgType.CONFIG,
    }
)
RELIABLE_EVENTS = frozenset({MsgType.EVENT_BUTTON, MsgType.EVENT_DICE})


_KNOWN_TYPES = frozenset(int(t) for t in MsgType)


class Status(IntEnum):
    """First payload byte of every reply."""

    OK = 0
    BAD_ARGUMENT = 1
    NO_SESSION = 2
    UNKNOWN_COMMAND = 3
    BAD_VERSION = 4
    UNSUPPORTED = 5


class DiceKind(IntEnum):
    """What a roll throws. Values of a RESOURCE die are faces 0..5 (see RESOURCE_FACES)."""

    TWO_D6 = 0
    RESOURCE = 1
    ONE_D6 = 2


#: number of dice and number of faces per kind
DICE_SHAPE: dict[DiceKind, tuple[int, int]] = {
    DiceKind.TWO_D6: (2, 6),
    DiceKind.RESOURCE: (6, 6),
    DiceKind.ONE_D6: (1, 6),
}
#: faces of a resource die of the dice game (RULES.md 6.1.1), by face index
RESOURCE_FACES = ("wool", "grain", "brick", "ore", "lumber", "gold")


class DisplayKind(IntEnum):
    NONE = 0
    SEVEN_SEGMENT_8 = 1
    MATRIX_8X8 = 2


class ButtonMode(IntEnum):
    """What the tower does when its button is pressed (CONFIG command)."""

    EVENT_ONLY = 0
    ROLL = 1


class ProtocolError(ValueError):
    """A frame that cannot be decoded (bad COBS, bad CRC, too short or too long)."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no xor-out."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte (delimiter not added)."""
    out = bytearray([0])
    code_at = 0
    code = 1
    last = len(data) - 1
    for i, byte in enumerate(data):
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_at] = code
            if i == last:
                # a full block that ends the data needs no empty block after it
                return bytes(out)
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; raises ProtocolError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    if n == 0:
        raise ProtocolError("empty COBS block")
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise ProtocolError("COBS block runs past the end of the frame")
        chunk = data[i + 1 : end]
        if 0 in chunk:
            raise ProtocolError("zero byte inside a COBS block")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """One decoded frame. ``type`` is kept as an int when it is not a known MsgType."""

    type: MsgType | int
    seq: int
    payload: bytes


def encode_frame(frame: Frame) -> bytes:
    """Frame -> wire bytes including the trailing 0x00 delimiter."""
    if not 0 <= frame.seq <= 0xFF:
        raise ValueError(f"seq {frame.seq} out of range 0..255")
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes([int(frame.type), frame.seq]) + frame.payload
    body += struct.pack(">H", crc16(body))
    return cobs_encode(body) + b"\x00"


def decode_frame(wire: bytes) -> Frame:
    """Wire bytes of one frame (with or without the trailing delimiter) -> Frame."""
    if wire.endswith(b"\x00"):
        wire = wire[:-1]
    if len(wire) > MAX_ENCODED:
        raise ProtocolError(f"frame of {len(wire)} bytes is longer than {MAX_ENCODED}")
    body = cobs_decode(wire)
    if len(body) < 4:
        raise ProtocolError(f"frame of {len(body)} bytes is shorter than 4")
    (want,) = struct.unpack(">H", body[-2:])
    got = crc16(body[:-2])
    if want != got:
        raise ProtocolError(f"CRC mismatch: frame says {want:04x}, computed {got:04x}")
    # Replies are MsgType | REPLY_BIT and deliberately not enum members: they stay ints.
    kind: MsgType | int = MsgType(body[0]) if body[0] in _KNOWN_TYPES else body[0]
    return Frame(kind, body[1], bytes(body[2:-2]))


class FrameSplitter:
    """Cuts a byte stream into frames at 0x00 delimiters.

    Bytes of an over-long frame are dropped up to the next delimiter and counted as an error,
    so a stream of garbage never grows the buffer without bound.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes]:
        """Returns the complete (still encoded, delimiter stripped) frames found so far.

        An over-long frame comes back as ``b""`` so the caller can count it as an error.
        """
        frames: list[bytes] = []
        for byte in data:
            if byte == 0:
                if self._overflow:
                    frames.append(b"")
                elif self._buf:
                    frames.append(bytes(self._buf))
                self._buf.clear()
                self._overflow = False
            elif not self._overflow:
                self._buf.append(byte)
                if len(self._buf) > MAX_ENCODED:
                    self._buf.clear()
                    self._overflow = True
        return frames


@dataclass(frozen=True)
class Capabilities:
    """What the tower said in its HELLO reply."""

    protocol_version: int
    firmware_version: tuple[int, int]
    n_leds: int
    n_player_leds: int
    display: DisplayKind | int
    dice_kinds: frozenset[DiceKind]
    boot_id: int

    @classmethod
    def from_reply(cls, data: bytes) -> Capabilities:
        """Parses a HELLO reply payload after its status byte."""
        if len(data) != 10:
            raise ProtocolError(f"HELLO reply of {len(data)} bytes, expected 10")
        ver, fw_major, fw_minor, n_leds, n_player, disp, kinds, boot = struct.unpack(
            "<BBBHBBBH", data
        )
        try:
            display: DisplayKind | int = DisplayKind(disp)
        except ValueError:
            display = disp
        return cls(
            protocol_version=ver,
            firmware_version=(fw_major, fw_minor),
            n_leds=n_leds,
            n_player_leds=n_player,
            display=display,
            dice_kinds=frozenset(k for k in DiceKind if kinds & (1 << k)),
            boot_id=boot,
        )

    def to_reply(self) -> bytes:
        """Inverse of :meth:`from_reply` (used by the simulator)."""
        mask = 0
        for k in self.dice_kinds:
            mask |= 1 << k
        return struct.pack(
            "<BBBHBBBH",
            self.protocol_version,
            self.firmware_version[0],
            self.firmware_version[1],
            self.n_leds,
            self.n_player_leds,
            int(self.display),
            mask,
            self.boot_id,
        )


@dataclass(frozen=True)
class DeviceStats:
    """Counters from a PING reply; they restart at zero when the tower boots."""

    boot_id: int
    executed: int
    crc_errors: int
    duplicates: int

    @classmethod
    def from_reply(cls, data: bytes) -> DeviceStats:
        if len(data) != 8:
            raise ProtocolError(f"PING reply of {len(data)} bytes, expected 8")
        return cls(*struct.unpack("<HHHH", data))


def led_mask(n_leds: int, lit: set[int] | frozenset[int]) -> bytes:
    """Bit ``i % 8`` of byte ``i // 8`` set for every lit LED index ``i`` (SET_LEDS payload)."""
    mask = bytearray((n_leds + 7) // 8)
    for i in lit:
        if not 0 <= i < n_leds:
            raise ValueError(f"LED index {i} out of range 0..{n_leds - 1}")
        mask[i // 8] |= 1 << (i % 8)
    return bytes(mask)


def validate_dice(kind: DiceKind, values: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Checks dice values for a kind: 1..6 for d6 kinds, face index 0..5 for resource dice."""
    count, faces = DICE_SHAPE[kind]
    vals = tuple(values)
    if len(vals) != count:
        raise ValueError(f"{kind.name} needs {count} dice values, got {len(vals)}")
    low = 0 if kind == DiceKind.RESOURCE else 1
    for v in vals:
        if not isinstance(v, int) or isinstance(v, bool) or not low <= v < low + faces:
            raise ValueError(
                f"die value {v!r} is not valid for {kind.name} (allowed {low}..{low + faces - 1})"
            )
    return vals
