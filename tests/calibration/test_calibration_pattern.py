"""Printed patterns: geometry, detection of their own renders, printing to PNG and PDF."""

from __future__ import annotations

import re
import zlib

import cv2
import numpy as np
import pytest

from calibration.pattern import Pattern, PatternError, parse_squares

CHARUCO = Pattern("charuco", 7, 5, 35.0, 26.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "dots"}, "unknown pattern kind"),
        ({"cols": 2}, "3..30 squares"),
        ({"cols": 10, "rows": 8}, "symmetric"),
        ({"cols": 9, "rows": 7}, "symmetric"),
        ({"square_mm": 0.5}, "square size"),
        ({"kind": "charuco", "cols": 7, "rows": 5}, "marker"),
        ({"kind": "charuco", "cols": 7, "rows": 5, "square_mm": 30, "marker_mm": 29.5}, "marker"),
        ({"marker_mm": 10.0}, "no markers"),
    ],
)
def test_bad_patterns_are_refused_with_the_reason(kwargs: dict, message: str) -> None:
    with pytest.raises(PatternError, match=message):
        Pattern(**kwargs)


def test_object_points_are_the_inner_corners_row_by_row() -> None:
    p = Pattern(cols=4, rows=3, square_mm=10.0)
    pts = p.object_points()
    assert pts.shape == (6, 3)
    assert pts[:, 2].tolist() == [0.0] * 6
    assert pts[:, :2].tolist() == [[10, 10], [20, 10], [30, 10], [10, 20], [20, 20], [30, 20]]
    assert p.object_points(np.array([4]))[0, :2].tolist() == [20, 20]
    with pytest.raises(PatternError, match="corner ids"):
        p.object_points(np.array([6]))


@pytest.mark.parametrize("pattern", [Pattern(), CHARUCO], ids=["chessboard", "charuco"])
def test_render_has_true_size_and_detects_every_corner_where_it_was_drawn(
    pattern: Pattern,
) -> None:
    ppm, margin = 4.0, 10.0
    image = pattern.render(ppm, margin)
    w_mm, h_mm = pattern.size_mm()
    assert image.shape == (round((h_mm + 2 * margin) * ppm), round((w_mm + 2 * margin) * ppm))
    det = pattern.detect(image)
    assert det is not None
    assert sorted(det.ids.tolist()) == list(range(pattern.corner_count))
    # Pixel centres sit at integer coordinates, so paper position p mm is p * ppm - 0.5 px.
    expected = (pattern.object_points(det.ids)[:, :2] + margin) * ppm - 0.5
    assert np.abs(det.points - expected).max() < 0.15


@pytest.mark.parametrize("pattern", [Pattern(), CHARUCO], ids=["chessboard", "charuco"])
def test_ids_name_the_same_physical_corner_however_the_paper_is_turned(
    pattern: Pattern,
) -> None:
    image = pattern.render(4.0, 10.0)
    h, w = image.shape
    det = pattern.detect(cv2.rotate(image, cv2.ROTATE_180))
    assert det is not None
    upright = (pattern.object_points(det.ids)[:, :2] + 10.0) * 4.0 - 0.5
    # Turning by 180 degrees maps (x, y) to (w - 1 - x, h - 1 - y).
    assert np.abs(det.points - ([w - 1, h - 1] - upright)).max() < 0.15


def test_nothing_is_detected_on_a_blank_frame_or_a_partial_chessboard() -> None:
    assert Pattern().detect(np.full((300, 400), 200, np.uint8)) is None
    image = Pattern().render(4.0, 10.0)
    assert Pattern().detect(image[:, : image.shape[1] // 2].copy()) is None


def test_a_partial_charuco_view_still_gives_identified_corners() -> None:
    image = CHARUCO.render(4.0, 10.0)
    det = CHARUCO.detect(image[:, : image.shape[1] // 2 + 20].copy())
    assert det is not None
    assert 6 <= len(det.ids) < CHARUCO.corner_count
    expected = (CHARUCO.object_points(det.ids)[:, :2] + 10.0) * 4.0 - 0.5
    assert np.abs(det.points - expected).max() < 0.15


def test_detect_refuses_frames_of_the_wrong_type() -> None:
    with pytest.raises(PatternError, match="uint8"):
        Pattern().detect(np.zeros((10, 10), np.float32))
    with pytest.raises(PatternError, match="grey or"):
        Pattern().detect(np.zeros((10, 10, 4), np.uint8))


def _pdf_objects(pdf: bytes) -> dict[int, int]:
    """Object number -> byte offset, read from the xref table."""
    start = int(re.search(rb"startxref\n(\d+)", pdf).group(1))
    lines = pdf[start:].split(b"\n")
    assert lines[0] == b"xref"
    count = int(lines[1].split()[1])
    return {i: int(lines[2 + i][:10]) for i in range(1, count)}


def test_pdf_is_well_formed_with_the_pattern_at_true_size() -> None:
    pattern = Pattern()
    pdf = pattern.pdf(px_per_mm=4.0)
    assert pdf.startswith(b"%PDF-1.4")
    assert pdf.rstrip().endswith(b"%%EOF")
    for number, offset in _pdf_objects(pdf).items():
        assert pdf[offset:].startswith(f"{number} 0 obj".encode())
    # The image is placed with a matrix whose scale is its size in points (1 mm = 72/25.4 pt).
    m = re.search(rb"([\d.]+) 0 0 ([\d.]+) [\d.]+ [\d.]+ cm", pdf)
    assert float(m.group(1)) == pytest.approx(250.0 * 72 / 25.4, abs=0.01)
    assert float(m.group(2)) == pytest.approx(175.0 * 72 / 25.4, abs=0.01)
    # The embedded pixels are the pattern itself.
    head = re.search(rb"/Width (\d+) /Height (\d+).*?stream\n", pdf, re.S)
    w, h = int(head.group(1)), int(head.group(2))
    length = int(re.search(rb"/Length (\d+) >>\nstream", pdf[head.start() :]).group(1))
    pixels = zlib.decompress(pdf[head.end() : head.end() + length])
    image = np.frombuffer(pixels, np.uint8).reshape(h, w)
    assert np.array_equal(image, pattern.render(4.0, margin_mm=0.0))


def test_pdf_refuses_a_pattern_larger_than_a4() -> None:
    with pytest.raises(PatternError, match="does not fit on A4"):
        Pattern(square_mm=40.0).pdf()


def test_render_refuses_silly_resolutions() -> None:
    with pytest.raises(PatternError, match="resolution"):
        Pattern().render(px_per_mm=0.1)
    with pytest.raises(PatternError, match="margin"):
        Pattern().render(margin_mm=-1)


def test_json_round_trip_and_errors() -> None:
    for p in (Pattern(), CHARUCO):
        assert Pattern.from_json(p.to_json()) == p
    with pytest.raises(PatternError, match="missing field 'rows'"):
        Pattern.from_json({"kind": "chessboard", "cols": 10, "square_mm": 25})
    with pytest.raises(PatternError, match="pattern.cols: expected an integer"):
        Pattern.from_json({"kind": "chessboard", "cols": "10", "rows": 7, "square_mm": 25})
    with pytest.raises(PatternError, match="square_mm: expected a number"):
        Pattern.from_json({"kind": "chessboard", "cols": 10, "rows": 7, "square_mm": True})
    with pytest.raises(PatternError, match="expected an object"):
        Pattern.from_json([1, 2])


def test_parse_squares() -> None:
    assert parse_squares("10x7") == (10, 7)
    assert parse_squares(" 9 X 6 ") == (9, 6)
    with pytest.raises(PatternError, match="10x7"):
        parse_squares("10-7")
