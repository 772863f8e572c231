"""Hardware in the loop without hardware: the tower behind a pty, remote-controlled.

:class:`TowerProcess` starts either the real firmware in simavr (firmware/harness/tower_sim.c)
or the Python simulator (:mod:`firmware_bridge.simpty`); both expose the tower's UART as a
pseudo-terminal behind a fixed path and take the same control commands, so one test or bench
runs against both. :func:`build_firmware` builds the ELF and the harness with make.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
VECTORS = FIRMWARE_DIR / "test_vectors.txt"


class HarnessError(OSError):
    """The harness could not be built, started or controlled (a problem of the machine, so
    an OSError: the command line reports it in one line)."""


def toolchain_missing() -> str | None:
    """Why the firmware cannot be built and simulated here, or None if it can."""
    for tool in ("avr-gcc", "gcc", "make"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: gcc-avr avr-libc gcc make)"
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        return "simavr headers are not installed (Debian: libsimavr-dev libelf-dev)"
    return None


@dataclass(frozen=True)
class FirmwareBuild:
    elf: Path
    harness: Path
    test_core: Path


def build_firmware(
    build_dir: Path, targets: tuple[str, ...] = ("all", "harness"), display: str = "7seg"
) -> None:
    """Runs the firmware Makefile into ``build_dir``; raises HarnessError with make's output.

    ``display`` is "7seg" (eight 7-segment digits) or "matrix" (an 8x8 LED matrix).
    """
    proc = subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(FIRMWARE_DIR),
            f"BUILD={build_dir}",
            f"TOWER_DISPLAY={display}",
            *targets,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise HarnessError(f"building the firmware failed:\n{proc.stdout}{proc.stderr}")


def firmware_paths(build_dir: Path) -> FirmwareBuild:
    return FirmwareBuild(build_dir / "tower.elf", build_dir / "tower_sim", build_dir / "test_core")


class TowerProcess:
    """A tower behind ``self.port`` (a path to a pty), controlled through the harness's stdin.

    ``kind`` is "simavr" (needs ``build``) or "python".
    """

    def __init__(
        self,
        kind: str,
        build: FirmwareBuild | None = None,
        *,
        leds: int = 90,
        seed: int | None = None,
    ) -> None:
        self.kind = kind
        self._dir = tempfile.TemporaryDirectory(prefix="tower-")
        self.port = str(Path(self._dir.name) / "tty")
        if kind == "simavr":
            if build is None:
                raise HarnessError("the simavr tower needs a firmware build")
            if leds != 90:
                raise HarnessError("the firmware is built for 90 LEDs (make N_LEDS=...)")
            cmd = [str(build.harness), str(build.elf), self.port]
        elif kind == "python":
            cmd = [sys.executable, "-m", "firmware_bridge.simpty", self.port, "--leds", str(leds)]
            if seed is not None:
                cmd += ["--seed", str(seed)]
        else:
            raise HarnessError(f"unknown tower kind {kind!r} (simavr or python)")
        self._lock = threading.Lock()
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        # simavr prints what it loaded before the harness says it is ready
        while True:
            line = self._readline()
            if line == "ready":
                break

    def _readline(self) -> str:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise HarnessError(f"{self.kind} tower harness exited (code {self._proc.poll()})")
        return line.strip()

    def command(self, cmd: str) -> str:
        with self._lock:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.write(cmd + "\n")
                self._proc.stdin.flush()
            except BrokenPipeError:
                raise HarnessError(f"{self.kind} tower harness is gone") from None
            answer = self._readline()
        if answer.startswith("error"):
            raise HarnessError(answer)
        return answer

    def press(self) -> None:
        self.command("press")

    def release(self) -> None:
        self.command("release")

    def reset(self) -> None:
        self.command("reset")

    def unplug(self) -> None:
        self.command("unplug")

    def plug(self) -> None:
        self.command("plug")

    def leds(self) -> list[tuple[int, int, int]]:
        """The last frame on the LED strip as RGB triples (board LEDs, then player LEDs)."""
        data = self.command("leds").split()[1]
        raw = b"" if data == "-" else bytes.fromhex(data)
        return [(raw[i + 1], raw[i], raw[i + 2]) for i in range(0, len(raw) - 2, 3)]

    def display(self) -> bytes | None:
        """The 8 MAX7219 digit registers, leftmost first; None where there is no display model."""
        data = self.command("disp").split()[1]
        return None if data == "-" else bytes.fromhex(data)

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(HarnessError):
                self.command("quit")
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout):
            if stream is not None:
                stream.close()
        self._dir.cleanup()

    def __enter__(self) -> TowerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
