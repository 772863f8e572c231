"""``catan-companion bench serial``: round trips to the dice tower, and survival of faults.

Targets:
  sim       the Python simulator in this process (no pty)
  sim-pty   the Python simulator in a subprocess behind a pseudo-terminal
  simavr    the real firmware ELF in simavr behind a pseudo-terminal (builds it first)
  --serial PORT   a real tower (no fault injection beyond a bad cable of your own)

``--faults`` runs the issue's fault test: ``--commands`` commands (default 10,000) with
``--fault-rate`` (1 %) of the frames in each direction corrupted, dropped or duplicated, plus
20 unplug/replug cycles and 5 firmware resets at random moments, with commands in flight.

How lost and duplicated actions are counted:
  sim       exactly, from the simulator's execution log: every acknowledged LED command must
            have run once in its boot, and no command may run twice in a row with one seq.
  pty/real  from the tower's own counters: the commands between two PINGs with no reset or
            unplug between them must raise its ``executed`` counter by exactly their number
            (commands in windows with a reset or unplug are reported as unverified); the LED
            frame read back from the harness at the end must show the last LED command.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.dice import host_roll
from firmware_bridge.driver import DiceTower, TowerError
from firmware_bridge.hil import (
    TowerProcess,
    build_firmware,
    firmware_paths,
    toolchain_missing,
)
from firmware_bridge.protocol import DeviceStats, DiceKind, MsgType
from firmware_bridge.simulator import SimDevice, SimPort
from firmware_bridge.transport import FaultyTransport, Transport, open_transport

log = logging.getLogger(__name__)

TARGETS = ("sim", "sim-pty", "simavr")
VERIFY_EVERY = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", choices=TARGETS, default="sim", help="what to talk to")
    parser.add_argument("--serial", metavar="PORT", help="a real tower instead of --target")
    parser.add_argument("--commands", type=int, default=None, help="commands to send")
    parser.add_argument("--faults", action="store_true", help="inject faults (see above)")
    parser.add_argument("--fault-rate", type=float, default=0.01, help="per frame, 0..1")
    parser.add_argument("--unplugs", type=int, default=20, help="unplug/replug cycles")
    parser.add_argument("--resets", type=int, default=5, help="firmware resets")
    parser.add_argument("--seed", type=int, default=1, help="seed of the fault schedule")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


class _Tower:
    """What the bench can do to a target besides talking to it."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.device: SimDevice | None = None
        self.process: TowerProcess | None = None
        if args.serial:
            self.url = args.serial
            self.name = f"serial {args.serial}"
        elif args.target == "sim":
            self.device = SimDevice(seed=args.seed)
            self.url = "sim://bench"
            self.name = "sim"
        elif args.target == "sim-pty":
            self.process = TowerProcess("python", seed=args.seed)
            self.url = self.process.port
            self.name = "sim-pty"
        else:
            why = toolchain_missing()
            if why:
                raise ValueError(f"cannot run the simavr target: {why}")
            build_firmware(workdir)
            self.process = TowerProcess("simavr", firmware_paths(workdir))
            self.url = self.process.port
            self.name = "simavr"

    def open_line(self) -> Transport:
        if self.device is not None:
            return SimPort(self.device, timeout=0.02)
        return open_transport(self.url)

    def unplug(self) -> None:
        if self.device is not None:
            self.device.unplug()
        elif self.process is not None:
            self.process.unplug()

    def replug(self) -> None:
        if self.device is not None:
            self.device.replug()
        elif self.process is not None:
            self.process.plug()

    def reset(self) -> None:
        if self.device is not None:
            self.device.reset()
        elif self.process is not None:
            self.process.reset()

    def leds(self) -> list[tuple[int, int, int]] | None:
        if self.device is not None:
            return list(self.device.state.leds)
        if self.process is not None:
            return self.process.leds()
        return None

    def close(self) -> None:
        if self.process is not None:
            self.process.close()


@dataclass
class _Run:
    rtts: list[float] = field(default_factory=list)
    rtts_by_command: dict[str, list[float]] = field(default_factory=dict)
    failed: int = 0
    acked_leds: list[int] = field(default_factory=list)
    verified: int = 0
    unverified: int = 0
    window_lost: int = 0
    window_duplicated: int = 0
    device_counts: dict[int, DeviceStats] = field(default_factory=dict)


def _led_colour(ident: int) -> tuple[int, int, int]:
    # a command's id in its colour, so the execution log says which command ran
    return ((ident >> 16) & 0xFF, (ident >> 8) & 0xFF, ident & 0xFF)


def _fault_thread(action: Callable[[], None], delay: float) -> threading.Thread:
    def run() -> None:
        time.sleep(delay)
        action()

    t = threading.Thread(target=run, name="bench-fault", daemon=True)
    t.start()
    return t


def run(args: argparse.Namespace) -> int:
    if args.serial and args.faults:
        raise ValueError("--faults needs a simulated tower (--target), not --serial")
    if not 0.0 <= args.fault_rate <= 1.0:
        raise ValueError(f"--fault-rate {args.fault_rate} must be between 0 and 1")
    commands = args.commands if args.commands is not None else (10_000 if args.faults else 2_000)
    if commands < 1:
        raise ValueError(f"--commands must be at least 1, got {commands}")
    if args.unplugs < 0 or args.resets < 0:
        raise ValueError("--unplugs and --resets must not be negative")
    result = _bench(args, commands)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>20}: {value}")
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 else 1


def _bench(args: argparse.Namespace, commands: int) -> dict[str, object]:
    rng = random.Random(args.seed)
    injected: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="bench-serial-") as tmp:
        tower = _Tower(args, Path(tmp))
        try:
            if args.faults:

                def opener() -> Transport:
                    return FaultyTransport(tower.open_line(), args.fault_rate, rng, injected)

                n_unplugs, n_resets = args.unplugs, args.resets
            else:
                opener, n_unplugs, n_resets = tower.open_line, 0, 0
            schedule: dict[int, str] = {}
            slots = rng.sample(range(1, commands), min(commands - 1, n_unplugs + n_resets))
            for k, i in enumerate(slots):
                schedule[i] = "unplug" if k < n_unplugs else "reset"
            started = time.perf_counter()
            driver = DiceTower(tower.url, opener=opener, timeout=10.0)
            with driver:
                run_ = _drive(driver, tower, commands, schedule, rng)
                final = driver.ping()
                run_.device_counts[final.boot_id] = final
                last_frame = tower.leds()
            seconds = time.perf_counter() - started
            lost, duplicated = _count(tower, run_, last_frame)
        finally:
            tower.close()
    rtts = sorted(run_.rtts)
    device_crc = sum(s.crc_errors for s in run_.device_counts.values())
    device_dups = sum(s.duplicates for s in run_.device_counts.values())
    detected = {
        "host_bad_frames": driver.stats["bad_frames"],
        "host_retransmits": driver.stats["retransmits"],
        "host_stale_replies": driver.stats["stale_replies"],
        "host_duplicate_events": driver.stats["duplicate_events"],
        "device_crc_errors": device_crc,
        "device_duplicate_commands": device_dups,
    }
    n_injected = sum(injected.values())
    return {
        "target": tower.name,
        "commands": commands,
        "lost": lost,
        "duplicated": duplicated,
        "failed_commands": run_.failed,
        "median_rtt_ms": round(statistics.median(rtts) * 1000, 3),
        "p99_rtt_ms": round(rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))] * 1000, 3),
        "max_rtt_ms": round(rtts[-1] * 1000, 3),
        # SET_LEDS also refreshes the whole LED strip (about 3 ms for 96 LEDs) before replying
        "median_rtt_ms_by_command": {
            name: round(statistics.median(values) * 1000, 3)
            for name, values in sorted(run_.rtts_by_command.items())
        },
        "faults_injected": dict(sorted(injected.items())),
        "faults_detected": detected,
        # a fault is "reported" when it shows up in at least one counter; a dropped heartbeat
        # is the one fault no side can notice (heartbeats are never acknowledged)
        "faults_unreported": max(0, n_injected - sum(detected.values())),
        "unplugs": sum(1 for v in schedule.values() if v == "unplug"),
        "resets": sum(1 for v in schedule.values() if v == "reset"),
        "disconnects_seen": driver.stats["disconnects"],
        "resets_seen": driver.stats["resets_seen"],
        "verified_commands": run_.verified,
        "unverified_commands": run_.unverified,
        "seconds": round(seconds, 2),
    }


def _drive(
    driver: DiceTower,
    tower: _Tower,
    commands: int,
    schedule: dict[int, str],
    rng: random.Random,
) -> _Run:
    r = _Run()
    n_leds = driver.capabilities.n_leds
    window_start = driver.ping()
    window_cmds = 0
    window_clean = True
    window_disconnects = driver.stats["disconnects"]
    pending: threading.Thread | None = None
    for i in range(commands):
        fault = schedule.get(i)
        if fault is not None:
            if pending is not None:
                pending.join()
            # count the tower's detections before a reset wipes its counters
            stats = driver.ping()
            r.device_counts[stats.boot_id] = stats
            window_clean = False
            if fault == "unplug":

                def cycle() -> None:
                    tower.unplug()
                    time.sleep(0.02)
                    tower.replug()

                pending = _fault_thread(cycle, rng.uniform(0, 0.003))
            else:
                pending = _fault_thread(tower.reset, rng.uniform(0, 0.003))
        draw = rng.random()
        name = "set_leds" if draw < 0.3 else "roll" if draw < 0.5 else "show_roll"
        shown = host_roll(DiceKind.TWO_D6, rng)
        t0 = time.perf_counter()
        try:
            if name == "set_leds":
                driver.set_leds([i % n_leds], _led_colour(i + 1), (0, 0, 0))
                r.acked_leds.append(i + 1)
            elif name == "roll":
                driver.roll(DiceKind.TWO_D6)
            else:
                driver.show_roll(shown)
        except TowerError as exc:
            log.error("command %d failed: %s", i, exc)
            r.failed += 1
            window_clean = False
            continue
        rtt = time.perf_counter() - t0
        r.rtts.append(rtt)
        r.rtts_by_command.setdefault(name, []).append(rtt)
        window_cmds += 1
        if window_cmds == VERIFY_EVERY or i == commands - 1:
            if pending is not None:
                pending.join()
                pending = None
            stats = driver.ping()
            r.device_counts[stats.boot_id] = stats
            same_boot = stats.boot_id == window_start.boot_id
            reconnected = driver.stats["disconnects"] != window_disconnects
            if window_clean and same_boot and not reconnected:
                delta = (stats.executed - window_start.executed) & 0xFFFF
                r.verified += window_cmds
                r.window_lost += max(0, window_cmds - delta)
                r.window_duplicated += max(0, delta - window_cmds)
                if delta != window_cmds:
                    log.error(
                        "commands %d..%d: sent %d, the tower ran %d (stats %s -> %s)",
                        i + 1 - window_cmds,
                        i,
                        window_cmds,
                        delta,
                        window_start,
                        stats,
                    )
            else:
                r.unverified += window_cmds
            window_disconnects = driver.stats["disconnects"]
            window_start, window_cmds, window_clean = stats, 0, True
    if pending is not None:
        pending.join()
    return r


def _count(
    tower: _Tower, r: _Run, last_frame: list[tuple[int, int, int]] | None
) -> tuple[int, int]:
    """(lost, duplicated) actions; see the module docstring."""
    lost = r.failed
    duplicated = 0
    if tower.device is not None:
        executions = list(tower.device.log)
        runs: Counter[tuple[int, int]] = Counter()
        for e in executions:
            if e.type == MsgType.SET_LEDS:
                ident = (e.payload[0] << 16) | (e.payload[1] << 8) | e.payload[2]
                runs[(e.boot_id, ident)] += 1
        executed_ids = {ident for (_, ident) in runs}
        lost += sum(1 for ident in r.acked_leds if ident not in executed_ids)
        # restoring the LEDs after a reboot re-runs the last LED command in the new boot:
        # that is one run per boot, never two in one boot
        duplicated += sum(n - 1 for n in runs.values() if n > 1)
        duplicated += sum(
            1
            for a, b in zip(executions, executions[1:], strict=False)
            if (a.boot_id, a.seq, a.type) == (b.boot_id, b.seq, b.type)
        )
        return lost, duplicated
    lost += r.window_lost
    duplicated += r.window_duplicated
    if last_frame is not None and r.acked_leds:
        want = _led_colour(r.acked_leds[-1])
        if want not in last_frame:
            log.error("the LED frame read back does not show the last LED command")
            lost += 1
    return lost, duplicated


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(description=__doc__)
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
