"""The registration bench: its measures, and one render through the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import vision.bench_register as bench_register
from companion.cli import main
from vision.bench_register import TOLERANCE, centre_error, missed_chips
from vision.register import ChipCandidate


def test_a_chip_is_missed_when_no_candidate_lies_within_the_tolerance() -> None:
    spacing = 50.0
    cands = [ChipCandidate(100.0, 100.0, 10.0), ChipCandidate(300.0, 100.0, 10.0)]
    near = [100.0 + 0.9 * TOLERANCE * spacing, 100.0]
    far = [300.0, 100.0 + 1.1 * TOLERANCE * spacing]
    alone = [500.0, 500.0]
    assert missed_chips(cands, np.array([near, far, alone]), spacing) == 2
    assert missed_chips([], np.array([near]), spacing) == 1
    assert missed_chips(cands, np.zeros((0, 2)), spacing) == 0


def test_centre_error_is_the_worst_true_centre_in_hex_radii() -> None:
    truth = np.array([[0.0, 0.0], [40.0, 0.0], [0.0, 40.0]])
    found = np.array([[2.0, 0.0], [40.0, 6.0], [0.0, 40.0], [500.0, 500.0]])
    assert centre_error(truth, found, 20.0) == pytest.approx(0.3)


def test_one_render_through_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "register", "--renders", "1", "--seed", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["renders"] == 1
    assert result["command"] == "catan-companion bench register --renders 1 --seed 3 --json"
    assert 0 <= result["chips_missed_by_candidates"] <= result["visible_chips"]
    assert result["refused_as_no_board"] + (result["median_register_cpu_s"] is not None) == 1
    failures = result["refused_or_misregistered"]
    assert len(failures) == result["refused_as_no_board"] + result["misregistered"]


def test_a_misregistered_render_is_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Registration that always answers one hex off: every render is listed, with its kind.
    import vision.bench_register as bench
    from vision.register import register

    def one_off(image: np.ndarray, kind: str | None = None) -> object:
        reg = register(image, kind)
        reg.homography = reg.homography @ np.array([[1.0, 0, 3**0.5], [0, 1, 0], [0, 0, 1]])
        return reg

    monkeypatch.setattr(bench, "register", one_off)
    result = bench.synthetic_registration(1, seed=0)
    assert result["misregistered"] == 1
    (listed,) = result["refused_or_misregistered"]
    assert listed["render"] == 0 and listed["kind"] == "base" and listed["read"] == "base"
    assert listed["largest_centre_error"] > 1.0


def test_bad_render_count_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "register", "--renders", "0"]) == 2
    assert "--renders must be at least 1" in capsys.readouterr().err


def test_scenario_maps_are_scored_by_their_known_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    import vision.known_frame as known_frame

    result = bench_register.scenario_registration(0, ["new-shores"])
    assert result["maps"] == 2  # 3 and 4 players
    assert result["named_right"] + result["ambiguous"] + result["refused"] + result["wrong"] == 2
    assert result["named_right"] >= 1 and result["wrong"] == 0
    # A registration one hex off, reported sure, is counted wrong and listed.
    real = known_frame.register_frame

    def one_off(image: np.ndarray, frame: known_frame.KnownFrame) -> object:
        reg = real(image, frame)
        reg.homography = reg.homography @ np.array([[1.0, 0, 3**0.5], [0, 1, 0], [0, 0, 1]])
        return reg

    monkeypatch.setattr(known_frame, "register_frame", one_off)
    result = bench_register.scenario_registration(0, ["four-islands"])
    assert result["wrong"] == 2 and len(result["not_named_right"]) == 2
    assert result["not_named_right"][0]["named_right"] is False
