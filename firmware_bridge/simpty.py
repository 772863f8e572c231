"""The Python simulator behind a pseudo-terminal, with the simavr harness's control commands.

    python -m firmware_bridge.simpty LINK [--leds N] [--seed K]

Serves a :class:`~firmware_bridge.simulator.SimDevice` on a pty that LINK points to, and reads
the same commands on standard input as firmware/harness/tower_sim.c (press, release, leds,
disp, reset, unplug, plug, quit), answering each with one line. So a test or the serial bench
can run unchanged against the Python simulator and against the real firmware in simavr, and
the simulator is measured over a real pty, not only in-process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import selectors
import sys
import threading
import tty
from pathlib import Path

from firmware_bridge.simulator import SimDevice, Unplugged


class PtyServer:
    def __init__(self, device: SimDevice, link: Path) -> None:
        self.device = device
        self.link = link
        self.master: int | None = None
        self.slave: int | None = None
        self.generation = 0
        self._stop = threading.Event()
        self._open()
        threading.Thread(target=self._pump_out, name="simpty-out", daemon=True).start()

    def _open(self) -> None:
        self.generation += 1
        master, slave = os.openpty()
        tty.setraw(slave)
        self.master, self.slave = master, slave
        self.link.unlink(missing_ok=True)
        self.link.symlink_to(os.ttyname(slave))

    def _close(self) -> None:
        self.link.unlink(missing_ok=True)
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None

    def _pump_out(self) -> None:
        """Device -> host bytes."""
        while not self._stop.is_set():
            try:
                data = self.device.read(4096, 0.05)
            except Unplugged:
                self._stop.wait(0.05)
                continue
            master = self.master
            if data and master is not None:
                # like a USB bridge, bytes nobody can take are lost
                with contextlib.suppress(OSError):
                    os.write(master, data)

    def host_bytes(self) -> None:
        """Host -> device bytes (called when the master is readable)."""
        if self.master is None:
            return
        try:
            data = os.read(self.master, 4096)
        except OSError:
            return
        with contextlib.suppress(Unplugged):
            self.device.write(data)

    def command(self, line: str) -> str | None:
        """Runs one control command; returns the answer, or None for quit."""
        dev = self.device
        if line in ("press", "release"):
            if line == "press":
                dev.press_button()
        elif line == "leds":
            st = dev.state
            grb = bytearray()
            player = [st.player_color] * dev.n_player_leds
            for r, g, b in [*st.leds, *player]:
                grb += bytes([g, r, b])
            return f"leds {grb.hex() or '-'}"
        elif line == "disp":
            return "disp -"  # the simulator has no segment display to read back
        elif line == "reset":
            dev.reset()
        elif line == "unplug":
            if dev.powered:
                dev.unplug()
                self._close()
        elif line == "plug":
            if not dev.powered:
                self._open()
                dev.replug()
        elif line == "quit":
            return None
        else:
            return f"error unknown command {line}"
        return "ok"

    def serve(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(sys.stdin, selectors.EVENT_READ)
        registered: tuple[int, int] | None = None  # (generation, fd)
        print("ready", flush=True)
        while True:
            # a new pty may get the fd number of the closed one: compare generations
            current = None if self.master is None else (self.generation, self.master)
            if registered != current:
                if registered is not None:
                    sel.unregister(registered[1])
                if current is not None:
                    sel.register(current[1], selectors.EVENT_READ)
                registered = current
            for key, _ in sel.select():
                if key.fileobj is sys.stdin:
                    line = sys.stdin.readline()
                    answer = self.command(line.strip()) if line else None
                    if answer is None:
                        print("bye", flush=True)
                        self._stop.set()
                        self._close()
                        return
                    print(answer, flush=True)
                    break  # the master may have changed
                self.host_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("link", type=Path, help="path of the symbolic link to the pty")
    parser.add_argument("--leds", type=int, default=90, help="board LEDs (1..255)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the simulated dice")
    args = parser.parse_args(argv)
    if not 1 <= args.leds <= 255:
        parser.error("--leds must be 1..255")
    PtyServer(SimDevice(n_leds=args.leds, seed=args.seed), args.link).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
