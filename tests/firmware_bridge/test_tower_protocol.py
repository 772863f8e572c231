"""Framing of the tower protocol: the shared test vectors, round trips, resynchronisation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tower_fixtures import *  # noqa: F403  (fixtures: see tower_fixtures.py)

from firmware_bridge.protocol import (
    MAX_PAYLOAD,
    Capabilities,
    DiceKind,
    DisplayKind,
    Frame,
    FrameSplitter,
    MsgType,
    ProtocolError,
    cobs_decode,
    cobs_encode,
    crc16,
    decode_frame,
    encode_frame,
    led_mask,
    validate_dice,
)


def _hex(s: str) -> bytes:
    return b"" if s == "-" else bytes.fromhex(s)


def test_vectors_file_covers_every_kind(vectors: list[list[str]]) -> None:
    kinds = {row[0] for row in vectors}
    assert kinds == {"crc", "cobs", "frame", "bad"}


def test_crc_vectors(vectors: list[list[str]]) -> None:
    rows = [r for r in vectors if r[0] == "crc"]
    assert rows
    for _, data, want in rows:
        assert crc16(_hex(data)) == int(want, 16)


def test_cobs_vectors(vectors: list[list[str]]) -> None:
    rows = [r for r in vectors if r[0] == "cobs"]
    assert len(rows) >= 5
    for _, raw, enc in rows:
        assert cobs_encode(_hex(raw)) == _hex(enc)
        assert cobs_decode(_hex(enc)) == _hex(raw)


def test_frame_vectors(vectors: list[list[str]]) -> None:
    rows = [r for r in vectors if r[0] == "frame"]
    assert rows
    for _, type_, seq, payload, wire in rows:
        frame = Frame(int(type_, 16), int(seq), _hex(payload))
        assert encode_frame(frame) == _hex(wire)
        back = decode_frame(_hex(wire))
        assert (int(back.type), back.seq, back.payload) == (frame.type, frame.seq, frame.payload)


def test_bad_vectors_are_rejected(vectors: list[list[str]]) -> None:
    rows = [r for r in vectors if r[0] == "bad"]
    assert rows
    for _, wire in rows:
        with pytest.raises(ProtocolError):
            decode_frame(_hex(wire))


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(enc) == data


@given(
    st.sampled_from(list(MsgType)),
    st.integers(0, 255),
    st.binary(max_size=MAX_PAYLOAD),
)
def test_frame_round_trip(type_: MsgType, seq: int, payload: bytes) -> None:
    wire = encode_frame(Frame(type_, seq, payload))
    assert wire.count(0) == 1 and wire.endswith(b"\x00")
    assert decode_frame(wire) == Frame(type_, seq, payload)


@given(st.binary(min_size=1, max_size=40), st.integers(0, 7))
def test_every_single_bit_flip_is_caught(payload: bytes, bit: int) -> None:
    wire = bytearray(encode_frame(Frame(MsgType.SET_LEDS, 3, payload)))
    for i in range(len(wire) - 1):
        damaged = bytearray(wire)
        damaged[i] ^= 1 << bit
        if 0 in damaged[:-1]:
            continue  # the receiver would see two frames; each is checked on its own
        with pytest.raises(ProtocolError):
            decode_frame(bytes(damaged))


def test_reply_types_stay_integers() -> None:
    frame = decode_frame(encode_frame(Frame(MsgType.ROLL | 0x80, 1, b"\x00")))
    assert frame.type == 0x83 and not isinstance(frame.type, MsgType)


def test_oversized_payload_is_refused() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        encode_frame(Frame(MsgType.SET_LEDS, 0, bytes(MAX_PAYLOAD + 1)))
    with pytest.raises(ValueError, match="seq"):
        encode_frame(Frame(MsgType.PING, 256, b""))


def test_splitter_resynchronises_after_garbage() -> None:
    good = encode_frame(Frame(MsgType.PING, 9, b""))
    splitter = FrameSplitter()
    frames = splitter.feed(b"\x13\x37garbage\x00" + good[:3])
    frames += splitter.feed(good[3:] + b"\x00\x00")
    assert len(frames) == 2
    with pytest.raises(ProtocolError):
        decode_frame(frames[0])
    assert decode_frame(frames[1]) == Frame(MsgType.PING, 9, b"")


def test_splitter_drops_an_endless_frame_and_recovers() -> None:
    splitter = FrameSplitter()
    assert splitter.feed(b"\x01" * 5000) == []
    frames = splitter.feed(b"\x00" + encode_frame(Frame(MsgType.PING, 1, b"")))
    assert frames[0] == b""  # the overflow, reported as an empty frame
    assert decode_frame(frames[1]).seq == 1


def test_capabilities_round_trip() -> None:
    caps = Capabilities(1, (1, 2), 57, 6, DisplayKind.SEVEN_SEGMENT_8, frozenset(DiceKind), 0xBEEF)
    assert Capabilities.from_reply(caps.to_reply()) == caps
    with pytest.raises(ProtocolError):
        Capabilities.from_reply(caps.to_reply()[:-1])


def test_led_mask_bits_and_range() -> None:
    assert led_mask(10, frozenset({0, 9})) == bytes([0x01, 0x02])
    with pytest.raises(ValueError, match="LED index 10"):
        led_mask(10, frozenset({10}))


@pytest.mark.parametrize(
    ("kind", "values", "message"),
    [
        (DiceKind.TWO_D6, [1], "needs 2"),
        (DiceKind.TWO_D6, [0, 3], "not valid"),
        (DiceKind.RESOURCE, [0, 1, 2, 3, 4, 6], "allowed 0..5"),
        (DiceKind.ONE_D6, [True], "not valid"),
    ],
)
def test_validate_dice_names_the_problem(kind: DiceKind, values: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_dice(kind, values)
