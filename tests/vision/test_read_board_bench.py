"""bench vision runs end to end on renders alone (no shared datasets needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main


def test_bench_vision_json_without_datasets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", "vision", "--json", "--renders", "3", "--datasets", str(tmp_path)])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    syn = doc["synthetic"]
    assert syn["renders"] == 3
    assert 0.0 <= syn["terrain_accuracy"] <= 1.0
    assert syn["wrong_but_certain"] <= syn["reported_certain"]
    assert doc["coins_dev"] is None and doc["boards_dev"] is None
    assert doc["timing"]["median_seconds"] > 0 and doc["timing"]["render_median_seconds"] > 0
    assert doc["command"].startswith("catan-companion bench vision")


def test_bench_vision_refuses_negative_renders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "vision", "--renders", "-1", "--datasets", str(tmp_path)]) == 2
    assert "--renders" in capsys.readouterr().err
