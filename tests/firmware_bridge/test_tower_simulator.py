"""The Python simulator at frame level: the same rules the firmware's core follows."""

from __future__ import annotations

import struct

import pytest

from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    DiceKind,
    Frame,
    FrameSplitter,
    MsgType,
    Status,
    decode_frame,
    encode_frame,
    led_mask,
)
from firmware_bridge.simulator import SimDevice, SimPort, Unplugged, sim_device


class Wire:
    """Talks frames to a SimDevice and collects what it answers."""

    def __init__(self, dev: SimDevice) -> None:
        self.dev = dev
        self.splitter = FrameSplitter()
        self.drain()

    def drain(self) -> list[Frame]:
        frames: list[Frame] = []
        while True:
            data = self.dev.read(4096, 0)
            if not data:
                return frames
            frames += [decode_frame(f) for f in self.splitter.feed(data)]

    def send(self, type_: int, seq: int, payload: bytes = b"") -> list[Frame]:
        self.dev.write(encode_frame(Frame(type_, seq, payload)))
        return self.drain()

    def hello(self, session: int) -> Frame:
        (reply,) = self.send(MsgType.HELLO, 0, struct.pack("<BH", PROTOCOL_VERSION, session))
        return reply


def test_commands_need_a_session() -> None:
    wire = Wire(SimDevice(seed=1))
    (reply,) = wire.send(MsgType.ROLL, 1, bytes([DiceKind.TWO_D6]))
    assert reply.type == MsgType.ROLL | 0x80 and reply.payload == bytes([Status.NO_SESSION])
    assert wire.dev.state.shown is None


def test_wrong_protocol_version_is_refused_with_ours() -> None:
    wire = Wire(SimDevice(seed=1))
    (reply,) = wire.send(MsgType.HELLO, 0, struct.pack("<BH", PROTOCOL_VERSION + 1, 5))
    assert reply.payload == bytes([Status.BAD_VERSION, PROTOCOL_VERSION])


def test_repeated_seq_answers_from_cache_without_rolling_again() -> None:
    dev = SimDevice(seed=1)
    wire = Wire(dev)
    wire.hello(77)
    (first,) = wire.send(MsgType.ROLL, 4, bytes([DiceKind.TWO_D6]))
    (again,) = wire.send(MsgType.ROLL, 4, bytes([DiceKind.TWO_D6]))
    assert again == first
    assert (dev.executed, dev.duplicates) == (1, 1)
    # a repeated HELLO of the same session keeps that memory...
    wire.hello(77)
    wire.send(MsgType.ROLL, 4, bytes([DiceKind.TWO_D6]))
    assert dev.executed == 1
    # ...a new session does not
    wire.hello(78)
    wire.send(MsgType.ROLL, 4, bytes([DiceKind.TWO_D6]))
    assert dev.executed == 2


def test_bad_arguments_leave_the_state_untouched() -> None:
    dev = SimDevice(n_leds=16, seed=1)
    wire = Wire(dev)
    wire.hello(1)
    before = list(dev.state.leds)
    (reply,) = wire.send(MsgType.SET_LEDS, 1, bytes([1, 2, 3, 0, 0, 0]) + b"\x01")  # 1 mask byte
    assert reply.payload == bytes([Status.BAD_ARGUMENT])
    (reply,) = wire.send(MsgType.SHOW_ROLL, 2, bytes([DiceKind.TWO_D6, 2, 7, 1]))
    assert reply.payload == bytes([Status.BAD_ARGUMENT])
    (reply,) = wire.send(MsgType.SET_PLAYER, 3, bytes([8, 1, 2, 3]))
    assert reply.payload == bytes([Status.BAD_ARGUMENT])
    (reply,) = wire.send(MsgType.ROLL, 4, bytes([9]))
    assert reply.payload == bytes([Status.UNSUPPORTED])
    (reply,) = wire.send(0x20, 5)
    assert reply.payload == bytes([Status.UNKNOWN_COMMAND])
    assert dev.state.leds == before and dev.state.shown is None and dev.state.player is None


def test_set_leds_paints_foreground_and_background() -> None:
    dev = SimDevice(n_leds=12, seed=1)
    wire = Wire(dev)
    wire.hello(1)
    payload = bytes([9, 8, 7, 1, 1, 1]) + led_mask(12, frozenset({0, 11}))
    (reply,) = wire.send(MsgType.SET_LEDS, 1, payload)
    assert reply.payload == bytes([Status.OK])
    assert dev.state.leds[0] == dev.state.leds[11] == (9, 8, 7)
    assert set(dev.state.leds[1:11]) == {(1, 1, 1)}


def test_button_event_waits_for_session_and_is_resent_until_acknowledged() -> None:
    dev = SimDevice(seed=1)
    wire = Wire(dev)
    dev.press_button()
    assert [f for f in wire.drain() if f.type == MsgType.EVENT_DICE] == []
    reply, event = wire.send(MsgType.HELLO, 0, struct.pack("<BH", PROTOCOL_VERSION, 3))
    assert reply.type == MsgType.HELLO | 0x80
    assert event.type == MsgType.EVENT_DICE and event.seq == 1
    assert struct.unpack("<H", event.payload[:2])[0] == dev.boot_id
    assert event.payload[2:4] == bytes([DiceKind.TWO_D6, 2])
    resent = decode_frame(FrameSplitter().feed(dev.read(4096, 1.0))[0])
    assert resent == event
    wire.send(MsgType.EVENT_ACK, 2)  # the wrong seq changes nothing
    assert len(dev._events) == 1
    wire.send(MsgType.EVENT_ACK, 1)
    assert len(dev._events) == 0


def test_event_only_mode_reports_presses_without_rolling() -> None:
    dev = SimDevice(seed=1)
    wire = Wire(dev)
    wire.hello(3)
    (reply,) = wire.send(MsgType.CONFIG, 1, bytes([0, DiceKind.TWO_D6]))
    assert reply.payload == bytes([Status.OK])
    dev.press_button()
    (event,) = wire.drain()
    assert event.type == MsgType.EVENT_BUTTON and len(event.payload) == 2
    assert dev.state.shown is None


def test_damaged_frames_are_counted_not_answered() -> None:
    dev = SimDevice(seed=1)
    wire = Wire(dev)
    frame = bytearray(encode_frame(Frame(MsgType.PING, 1, b"")))
    frame[1] ^= 0x40
    dev.write(bytes(frame))
    assert wire.drain() == [] and dev.crc_errors == 1


def test_unplugged_port_fails_and_stays_dead_after_replug() -> None:
    dev = SimDevice(seed=1)
    port = SimPort(dev)
    dev.unplug()
    with pytest.raises(Unplugged):
        port.read(1)
    with pytest.raises(Unplugged):
        SimPort(dev)
    dev.replug()
    with pytest.raises(Unplugged):
        port.write(b"\x00")
    assert SimPort(dev).read(64)  # a new handle sees the BOOT frame


def test_reset_forgets_session_and_changes_boot_id() -> None:
    dev = SimDevice(seed=1)
    wire = Wire(dev)
    wire.hello(3)
    boot = dev.boot_id
    dev.reset()
    (boot_frame,) = wire.drain()
    assert boot_frame.type == MsgType.BOOT and dev.boot_id != boot
    (reply,) = wire.send(MsgType.ROLL, 1, bytes([0]))
    assert reply.payload == bytes([Status.NO_SESSION])


def test_sim_urls() -> None:
    assert sim_device("sim://same") is sim_device("sim://same")
    assert sim_device("sim://") is not sim_device("sim://")
    assert sim_device("sim://?leds=19").n_leds == 19
    with pytest.raises(ValueError, match="bad simulator option"):
        sim_device("sim://x?colour=3")
    with pytest.raises(ValueError, match="out of range"):
        sim_device("sim://?leds=300")
    with pytest.raises(ValueError, match="not a simulator URL"):
        sim_device("/dev/ttyACM0")


def test_host_silence_is_noticed_and_forgotten() -> None:
    now = [100.0]
    dev = SimDevice(seed=1, clock=lambda: now[0])
    wire = Wire(dev)
    wire.hello(1)
    assert dev.state.host_present
    now[0] += 2.9
    wire.drain()
    assert dev.state.host_present
    now[0] += 0.2  # three seconds without a frame from the host
    wire.drain()
    assert not dev.state.host_present
    wire.send(MsgType.PING, 1)
    assert dev.state.host_present
