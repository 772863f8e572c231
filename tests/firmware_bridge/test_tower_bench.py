"""``catan-companion bench serial``: its numbers and its refusals (small runs, no speed test)."""

from __future__ import annotations

import argparse
import json

import pytest

from companion.cli import main
from firmware_bridge import bench


def _args(**kw: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args([])
    for k, v in kw.items():
        setattr(args, k, v)
    return args


def test_fault_run_on_the_simulator_loses_and_duplicates_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = bench.run(
        _args(faults=True, commands=400, unplugs=2, resets=1, fault_rate=0.05, json=True)
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["commands"] == 400 and out["lost"] == 0 and out["duplicated"] == 0
    assert (out["unplugs"], out["resets"]) == (2, 1)
    assert out["disconnects_seen"] == 2 and out["resets_seen"] >= 3
    assert sum(out["faults_injected"].values()) > 0
    assert out["faults_unreported"] == 0
    assert out["median_rtt_ms"] <= out["p99_rtt_ms"]


def test_cli_prints_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "serial", "--commands", "30", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"commands", "lost", "duplicated", "median_rtt_ms", "p99_rtt_ms"} <= doc.keys()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--commands", "0"], "--commands must be at least 1"),
        (["--faults", "--fault-rate", "1.5"], "--fault-rate 1.5"),
        (["--faults", "--serial", "/dev/ttyACM0"], "needs a simulated tower"),
        (["--unplugs", "-1"], "must not be negative"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "serial", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
