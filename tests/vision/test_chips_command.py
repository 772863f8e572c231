"""``catan-companion read-chip``: plain and JSON output, unreadable files, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from vision.synth.chip_art import render_chip


def _write_chip(path: Path, value: int, rotation: float) -> None:
    image, _ = render_chip(value, size_px=120, rotation_deg=rotation)
    assert cv2.imwrite(str(path), image)


def test_json_lists_every_file_with_null_for_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    _write_chip(tmp_path / "a.png", 8, 0.0)
    _write_chip(tmp_path / "b.jpg", 11, 140.0)
    (tmp_path / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (tmp_path / "empty.png").write_bytes(b"")
    files = ["a.png", "b.jpg", "broken.jpg", "missing.png", "empty.png"]
    code = main(["read-chip", *(str(tmp_path / f) for f in files), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    # Messages go through logging (to stderr in the CLI), never to stdout.
    result = json.loads(out)
    assert [Path(r["file"]).name for r in result] == files
    assert [r["value"] for r in result] == [8, 11, None, None, None]
    assert result[0]["confidence"] > 0.5 and result[2]["confidence"] == 0.0
    assert "broken.jpg: not an image" in caplog.text
    assert "missing.png: no such file" in caplog.text
    assert "empty.png: not an image" in caplog.text
    assert "Traceback" not in err


def test_plain_output_one_line_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write_chip(tmp_path / "c.png", 4, 300.0)
    code = main(["read-chip", str(tmp_path / "c.png"), str(tmp_path / "nope.png")])
    out, _ = capsys.readouterr()
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{tmp_path / 'c.png'}: 4 (confidence ")
    assert lines[1] == f"{tmp_path / 'nope.png'}: unreadable (confidence 0.00)"


def test_a_tiny_image_is_reported_not_crashed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    tiny, _ = render_chip(5, size_px=16)
    cv2.imwrite(str(tmp_path / "tiny.png"), tiny[:4, :4])
    assert main(["read-chip", "--json", str(tmp_path / "tiny.png")]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)[0]["value"] is None
    assert "too small" in caplog.text


def test_no_image_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["read-chip"])
    assert exc.value.code == 2
