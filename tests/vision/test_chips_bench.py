"""evaluate_chips on a small dataset made with the renderer (never the real benchmark data)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.bench_chips import (
    evaluate_board_chips,
    evaluate_chips,
    evaluate_synthetic_chips,
    main,
)
from vision.chips import CHIP_VALUES
from vision.synth.chip_art import render_chip


def _dataset(root: Path, chips: list[tuple[str, int]]) -> Path:
    lines = ["file,value,source_image"]
    for i, (name, value) in enumerate(chips):
        if name.endswith(".png"):
            image, _ = render_chip(value, size_px=110, rotation_deg=37.0 * i)
            cv2.imwrite(str(root / name), image)
        lines.append(f"{name},{value},synthetic")
    (root / "labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_counts_confusion_and_per_value(tmp_path: Path) -> None:
    chips = [(f"c{i}.png", v) for i, v in enumerate(CHIP_VALUES)]
    chips.append(("gone.png.jpg", 5))  # listed but missing: unloadable, counted as null
    (tmp_path / "gone.png.jpg").write_bytes(b"garbage")
    result = evaluate_chips(_dataset(tmp_path, chips))
    assert result["chips"] == 11
    assert result["unloadable"] == 1
    assert result["correct"] + result["wrong"] + result["abstentions"] == 11
    assert result["abstentions"] >= 1
    assert result["confusion"]["5"].get("null", 0) >= 1
    assert sum(sum(row.values()) for row in result["confusion"].values()) == 11
    for value in CHIP_VALUES:
        row = result["per_value"][str(value)]
        assert row["correct"] == result["confusion"][str(value)].get(str(value), 0)
    # The renderer's canonical chips are easy: all ten are read.
    assert result["correct"] == 10
    assert result["accuracy"] == pytest.approx(10 / 11)
    assert result["accuracy_when_answered"] == pytest.approx(1.0)
    assert result["per_value"]["5"]["accuracy"] == pytest.approx(0.5)
    assert result["seconds_per_chip"] > 0


def test_missing_or_malformed_labels_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no labels.csv"):
        evaluate_chips(tmp_path)
    (tmp_path / "labels.csv").write_text("name,number\na.png,5\n", encoding="utf-8")
    with pytest.raises(ValueError, match="columns 'file' and 'value'"):
        evaluate_chips(tmp_path)
    (tmp_path / "labels.csv").write_text("file,value\na.png,seven\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: value 'seven' is not a number"):
        evaluate_chips(tmp_path)
    (tmp_path / "labels.csv").write_text("file,value\na.png,7\n", encoding="utf-8")
    with pytest.raises(ValueError, match="7 is not a chip value"):
        evaluate_chips(tmp_path)
    (tmp_path / "labels.csv").write_text("file,value\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lists no chips"):
        evaluate_chips(tmp_path)


def test_synthetic_evaluation_is_deterministic_and_consistent() -> None:
    a = evaluate_synthetic_chips(20, seed=3)
    b = evaluate_synthetic_chips(20, seed=3)
    assert a["confusion"] == b["confusion"]
    assert a["chips"] == 20
    assert a["correct"] + a["wrong"] + a["abstentions"] == 20
    assert all(row["chips"] == 2 for row in a["per_value"].values())
    assert a["correct"] >= 14
    with pytest.raises(ValueError, match="at least 1"):
        evaluate_synthetic_chips(0)


def test_board_chips_are_read_at_their_true_places() -> None:
    # Render 0 of seed 2 is a base board (19 hexes, 18 chips), render 1 a 5-6 board (28).
    result = evaluate_board_chips(2, seed=2)
    assert result["chips"] == 18 + 28
    assert result["correct"] + result["wrong"] + result["abstentions"] == result["chips"]
    assert result["joint"]["chips"] == 18 + 28
    assert result["correct"] >= 0.8 * result["chips"]
    assert result["joint"]["correct"] >= 0.8 * result["chips"]
    assert 0 <= result["under_a_hand"]["chips"] <= result["chips"]
    with pytest.raises(ValueError, match="at least 1"):
        evaluate_board_chips(0)


def test_module_entry_point_prints_json_or_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _dataset(tmp_path, [("a.png", 3), ("b.png", 12)])
    assert main([str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["correct"] == 2
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "no labels.csv" in capsys.readouterr().err
