"""``bench route``: the worst network's recompute figures, as JSON or as lines."""

from __future__ import annotations

import json

import pytest

from companion.cli import main


def test_figures_print_as_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "route", "--repeat", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["command"] == "catan-companion bench route --repeat 1 --json"
    assert doc["players"] == 6 and doc["recomputes"] == 6 and doc["median_ms"] > 0


def test_figures_print_as_a_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "route", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "command: catan-companion bench route --repeat 1"
    assert "players: 6" in lines
    assert "recomputes: 6" in lines
