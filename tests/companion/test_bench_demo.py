"""``bench demo``: the demo's table in this process, its CPU use and its camera's tally."""

from __future__ import annotations

import json

import pytest

from companion.cli import main


def bench(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["bench", "demo", *argv])
    out, _ = capsys.readouterr()
    return code, json.loads(out) if code == 0 else {}


def test_the_report_counts_how_every_move_on_the_board_got_in(capsys):
    code, doc = bench(capsys, "--seconds", "6", "--speed", "20", "--json")
    assert code == 0
    assert doc["camera"] and doc["video"] == "960x540 at 5 fps of its clock"
    assert doc["frames"] > 0 and doc["renders"] >= 1 and doc["cpu_s"] > 0
    assert doc["moves_on_board"] == doc["seen_by_camera"] + doc["confirmed"] + doc["fallbacks"]
    assert doc["moves_on_board"] >= 1 and doc["actions"] >= doc["moves_on_board"]
    assert 0 <= doc["kind_questions"] <= doc["confirmed"]


def test_without_the_camera_there_is_no_camera_tally(capsys):
    code, doc = bench(capsys, "--seconds", "1", "--speed", "50", "--no-camera", "--json")
    assert code == 0
    assert not doc["camera"] and "frames" not in doc and doc["actions"] > 0
    # The command that reproduces the figures is the one given, not the process's own argv.
    assert doc["command"] == "catan-companion bench demo --seconds 1 --speed 50 --no-camera --json"


def test_bad_figures_are_refused(capsys):
    assert main(["bench", "demo", "--seconds", "0"]) == 2
    assert "--seconds and --speed" in capsys.readouterr().err


def test_a_scenario_map_is_filmed_and_its_moves_come_through_the_camera(capsys):
    code, doc = bench(
        capsys, "--scenario", "new-shores", "--seconds", "6", "--speed", "20", "--json"
    )
    assert code == 0
    assert doc["scenario"] == "new-shores" and doc["camera"]
    # Before the known frame the camera never found a scenario's map: every move fell back.
    assert doc["seen_by_camera"] >= 1
    assert doc["moves_on_board"] == doc["seen_by_camera"] + doc["confirmed"] + doc["fallbacks"]
