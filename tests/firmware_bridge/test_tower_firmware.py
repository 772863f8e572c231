"""The firmware itself: its core's host tests (g++), its size, and fair dice."""

from __future__ import annotations

import re
import subprocess

import pytest
from tower_fixtures import *  # noqa: F403  (fixtures: see tower_fixtures.py)

from firmware_bridge.hil import VECTORS, FirmwareBuild

# chi-square critical values at p = 0.001 for 5 and 10 degrees of freedom
CRITICAL = {5: 20.515, 10: 29.588}


def test_core_host_tests_pass_and_dice_are_fair(firmware: FirmwareBuild) -> None:
    """Runs the C tests: vectors, state machine, no modulo bias, 100,000-roll chi-square."""
    proc = subprocess.run(
        [str(firmware.test_core), str(VECTORS), "100000"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    stats = re.findall(r"^chi2 (\S+) df=(\d+) ([\d.]+)$", proc.stdout, re.MULTILINE)
    assert {name for name, _, _ in stats} == {"die1", "die2", "sum", "resource"}
    for name, df, value in stats:
        assert float(value) < CRITICAL[int(df)], f"{name} dice fail chi-square: {value}"


def test_core_tests_fail_on_a_wrong_vector(firmware: FirmwareBuild, tmp_path) -> None:  # noqa: ANN001
    """The C side really reads the shared vectors: a damaged one must make it fail."""
    bad = tmp_path / "vectors.txt"
    bad.write_text(VECTORS.read_text().replace("crc 313233343536373839 29b1", "crc 3132 29b1"))
    proc = subprocess.run(
        [str(firmware.test_core), str(bad), "1000"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1 and "check failed" in proc.stderr


def test_firmware_fits_an_atmega328p(firmware: FirmwareBuild) -> None:
    out = subprocess.run(
        ["avr-size", "-A", str(firmware.elf)], capture_output=True, text=True, check=True
    ).stdout
    sizes = {m[0]: int(m[1]) for m in re.findall(r"^\.(\w+)\s+(\d+)", out, re.MULTILINE)}
    # 32 KiB flash less the 512-byte Arduino bootloader; 2 KiB RAM with 512 bytes for the stack
    assert sizes["text"] + sizes["data"] <= 32 * 1024 - 512
    assert sizes["data"] + sizes["bss"] <= 2048 - 512


@pytest.mark.parametrize("rolls", [600])
def test_firmware_dice_in_simavr_cover_every_face(firmware: FirmwareBuild, rolls: int) -> None:
    """A small sample through the real ELF: every face comes up, none far too often."""
    from firmware_bridge.driver import DiceTower
    from firmware_bridge.hil import TowerProcess
    from firmware_bridge.protocol import DiceKind

    counts = [0] * 6
    with TowerProcess("simavr", firmware) as proc, DiceTower(proc.port) as tower:
        for _ in range(rolls // 6):
            for v in tower.roll(DiceKind.RESOURCE).values:
                counts[v] += 1
    expected = rolls / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    # these rolls take their entropy from real timing, so they cannot be seeded: a stricter
    # level (p = 0.0001, 25.745 for 5 degrees of freedom) keeps false alarms at 1 in 10,000
    assert min(counts) > 0 and chi2 < 25.745
