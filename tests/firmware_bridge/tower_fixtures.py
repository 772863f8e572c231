"""Fixtures of the dice tower tests: the firmware built once per session, towers behind ptys.

Not a conftest.py: test folders share the module name "conftest", and another folder's tests
import theirs by that name. Test modules here take these with ``from tower_fixtures import *``.
"""

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

__all__ = ["firmware", "firmware_matrix", "tower_process", "vectors"]

# every module that imports the fixtures gets its own copy of them: build once per process
_builds: dict[str, FirmwareBuild] = {}


def _build(factory: pytest.TempPathFactory, display: str) -> FirmwareBuild:
    why = toolchain_missing()
    if why:
        pytest.skip(f"firmware not testable here: {why}")
    if display not in _builds:
        build_dir = factory.mktemp(f"firmware-{display}")
        build_firmware(build_dir, ("all", "harness", str(build_dir / "test_core")), display)
        _builds[display] = firmware_paths(build_dir)
    return _builds[display]


@pytest.fixture(scope="session")
def firmware(tmp_path_factory: pytest.TempPathFactory) -> FirmwareBuild:
    """The firmware for 7-segment digits, its host tests and the simavr harness."""
    return _build(tmp_path_factory, "7seg")


@pytest.fixture(scope="session")
def firmware_matrix(tmp_path_factory: pytest.TempPathFactory) -> FirmwareBuild:
    """The firmware built for an 8x8 LED matrix instead of 7-segment digits."""
    return _build(tmp_path_factory, "matrix")


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
