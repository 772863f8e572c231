"""Fixtures of the dice tower tests: the firmware built once per session, towers behind ptys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.hil import (
    FirmwareBuild,
    TowerProcess,
    build_firmware,
    firmware_paths,
    toolchain_missing,
)


@pytest.fixture(scope="session")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> FirmwareBuild:
    why = toolchain_missing()
    if why:
        pytest.skip(f"firmware not testable here: {why}")
    build_dir = tmp_path_factory.mktemp("firmware")
    build_firmware(build_dir, ("all", "harness", str(build_dir / "test_core")))
    return firmware_paths(build_dir)


@pytest.fixture(scope="session")
def firmware_matrix(tmp_path_factory: pytest.TempPathFactory) -> FirmwareBuild:
    """The firmware built for an 8x8 LED matrix instead of 7-segment digits."""
    why = toolchain_missing()
    if why:
        pytest.skip(f"firmware not testable here: {why}")
    build_dir = tmp_path_factory.mktemp("firmware-matrix")
    build_firmware(build_dir, ("all", "harness"), display="matrix")
    return firmware_paths(build_dir)


@pytest.fixture(params=["python", "simavr"])
def tower_process(request: pytest.FixtureRequest) -> Iterator[TowerProcess]:
    """The same tower twice: the Python simulator and the real firmware in simavr, each on a pty."""
    if request.param == "simavr":
        build = request.getfixturevalue("firmware")
        proc = TowerProcess("simavr", build)
    else:
        proc = TowerProcess("python", seed=7)
    try:
        yield proc
    finally:
        proc.close()


@pytest.fixture
def vectors() -> list[list[str]]:
    path = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware" / "test_vectors.txt"
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(line.split())
    return rows
