"""Camera calibration against views rendered through a camera whose truth is known."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.camera import (
    CalibrationError,
    CameraModel,
    ViewCollector,
    edge_width_px,
)
from calibration.pattern import Detection, Pattern
from calibration.synthetic import Pose, random_poses, render_view

#: A webcam at 800x600 with strong barrel distortion and an off-centre principal point.
TRUE = CameraModel(
    (800, 600),
    np.array([[700.0, 0.0, 404.0], [0.0, 703.0, 296.0], [0.0, 0.0, 1.0]]),
    np.array([-0.28, 0.09, 0.0005, -0.0004, 0.0]),
)
CHARUCO = Pattern("charuco", 7, 5, 35.0, 26.0)


def _collect(pattern: Pattern, count: int, seed: int) -> ViewCollector:
    collector = ViewCollector(pattern, TRUE.image_size)
    for i, pose in enumerate(random_poses(pattern, TRUE, count, rng=seed)):
        collector.add(render_view(pattern, TRUE, pose, rng=seed * 100 + i))
    return collector


@pytest.fixture(scope="module")
def chessboard_views() -> ViewCollector:
    return _collect(Pattern(), 14, seed=3)


def _corner_displacement(model: CameraModel) -> np.ndarray:
    """Where the lens moves the image corners and edge midpoints: float64 (8, 2) pixels."""
    w, h = model.image_size
    ideal = np.array(
        [
            [0, 0],
            [w - 1, 0],
            [0, h - 1],
            [w - 1, h - 1],
            [w / 2, 0],
            [0, h / 2],
            [w - 1, h / 2],
            [w / 2, h - 1],
        ],
        np.float64,
    )
    rays = np.hstack([ideal, np.ones((8, 1))]) @ np.linalg.inv(model.matrix).T
    pts, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), model.matrix, model.dist)
    return pts.reshape(-1, 2) - ideal


def _assert_recovers_the_true_camera(model: CameraModel) -> None:
    assert model.fx == pytest.approx(TRUE.fx, rel=0.02)
    assert model.fy == pytest.approx(TRUE.fy, rel=0.02)
    assert model.dist[0] == pytest.approx(TRUE.dist[0], rel=0.02)
    # The distortion as a whole: how far it moves the image's edges and corners.
    true_shift = _corner_displacement(TRUE)
    err = np.linalg.norm(_corner_displacement(model) - true_shift, axis=1)
    assert (err <= 0.02 * np.linalg.norm(true_shift, axis=1)).all()


def test_chessboard_calibration_recovers_focal_length_and_distortion(
    chessboard_views: ViewCollector,
) -> None:
    assert chessboard_views.ready
    result = chessboard_views.solve()
    assert result.rms_px < 0.5
    assert result.dropped_views == []
    assert len(result.per_view_rms_px) == len(chessboard_views.views)
    _assert_recovers_the_true_camera(result.model)
    assert result.model.image_size == TRUE.image_size


def test_charuco_calibration_recovers_focal_length_and_distortion() -> None:
    result = _collect(CHARUCO, 12, seed=5).solve()
    assert result.rms_px < 0.5
    _assert_recovers_the_true_camera(result.model)


def test_a_bad_view_is_dropped_and_the_result_stays_right(
    chessboard_views: ViewCollector,
) -> None:
    collector = ViewCollector(Pattern(), TRUE.image_size)
    collector.views = list(chessboard_views.views)
    good = collector.views[0]
    rng = np.random.default_rng(0)
    # A detection gone wrong: the right corners, but jittered by several pixels.
    collector.views.append(
        Detection(good.ids, good.points + rng.normal(0, 4, good.points.shape).astype(np.float32))
    )
    result = collector.solve()
    assert result.dropped_views == [len(collector.views) - 1]
    assert result.rms_px < 0.5
    _assert_recovers_the_true_camera(result.model)


def _pose_at(pattern: Pattern, u: float, v: float, distance: float, tilt_deg: float) -> Pose:
    pw, ph = pattern.size_mm()
    rot, _ = cv2.Rodrigues(np.array([math.radians(tilt_deg), 0.0, 0.0]))
    ray = np.linalg.inv(TRUE.matrix) @ np.array([u, v, 1.0])
    tvec = ray / ray[2] * distance - rot @ np.array([pw / 2, ph / 2, 0.0])
    return Pose(cv2.Rodrigues(rot)[0].ravel(), tvec)


def test_blurred_duplicate_and_empty_frames_are_rejected_with_reasons() -> None:
    pattern = Pattern()
    pose = _pose_at(pattern, 400, 300, 500.0, 10.0)
    collector = ViewCollector(pattern, TRUE.image_size)
    blurred = collector.add(render_view(pattern, TRUE, pose, blur_sigma=2.5, rng=1))
    assert not blurred.accepted and blurred.reason.startswith("blurred")
    assert len(blurred.points) == pattern.corner_count  # found, just not sharp enough
    sharp = collector.add(render_view(pattern, TRUE, pose, rng=2))
    assert sharp.accepted and sharp.views == 1
    again = collector.add(render_view(pattern, TRUE, pose, rng=3))
    assert not again.accepted and "too close to view 1" in again.reason
    empty = collector.add(np.full((600, 800), 128, np.uint8))
    assert not empty.accepted and empty.reason == "pattern not found"
    assert len(collector.views) == 1


def test_feedback_tracks_coverage_and_points_to_the_empty_side() -> None:
    pattern = Pattern()
    collector = ViewCollector(pattern, TRUE.image_size)
    first = collector.add(render_view(pattern, TRUE, _pose_at(pattern, 250, 300, 750.0, 0.0)))
    assert first.accepted
    assert 0.0 < first.coverage < 0.5
    assert first.hint.startswith("move the pattern towards the")
    assert first.hint.endswith("right of the picture")
    second = collector.add(render_view(pattern, TRUE, _pose_at(pattern, 560, 300, 700.0, 35.0)))
    assert second.accepted
    assert second.coverage > first.coverage
    assert second.tilted_views == 1 and first.tilted_views == 0
    assert not second.ready
    assert second.to_json()["views"] == 2


def test_edge_width_grows_with_blur() -> None:
    pattern = Pattern()
    pose = _pose_at(pattern, 400, 300, 500.0, 0.0)
    widths = []
    for sigma in (0.3, 1.0, 2.0, 3.0):
        frame = render_view(pattern, TRUE, pose, blur_sigma=sigma, noise_sigma=0.0)
        det = pattern.detect(frame)
        widths.append(edge_width_px(frame, det.points))
    assert widths == sorted(widths)
    assert widths[0] < 2.5 < widths[-1]


def test_solving_needs_three_views_and_frames_of_one_size() -> None:
    collector = ViewCollector(Pattern(), (800, 600))
    with pytest.raises(CalibrationError, match="at least 3"):
        collector.solve()
    with pytest.raises(CalibrationError, match="frame is 640x480"):
        collector.add(np.zeros((480, 640), np.uint8))
    with pytest.raises(CalibrationError, match="at least 3 views"):
        ViewCollector(Pattern(), (800, 600), min_views=2)


def test_undistort_straightens_the_pattern(chessboard_views: ViewCollector) -> None:
    model = chessboard_views.solve().model
    pattern = Pattern()
    pose = _pose_at(pattern, 400, 300, 320.0, 5.0)
    frame = render_view(pattern, TRUE, pose, rng=9)

    def misfit(image: np.ndarray) -> float:
        det = pattern.detect(image)
        obj = pattern.object_points(det.ids)[:, :2]
        hom, _ = cv2.findHomography(obj, det.points, 0)
        proj = cv2.perspectiveTransform(obj.reshape(-1, 1, 2), hom).reshape(-1, 2)
        return float(np.abs(proj - det.points).max())

    # A plane seen by a pinhole is a homography; distortion bends it.
    bent, straightened = misfit(frame), misfit(model.undistort(frame))
    assert bent > 2.0
    assert straightened < 0.6 and straightened < bent / 4
    det = pattern.detect(frame)
    straight = pattern.detect(model.undistort(frame))
    assert np.abs(model.undistort_points(det.points) - straight.points).max() < 0.5


def test_default_model_is_an_identity_undistortion() -> None:
    model = CameraModel.default(1280, 720)
    frame = np.zeros((720, 1280, 3), np.uint8)
    assert model.undistort(frame) is frame
    assert model.hfov_deg() == pytest.approx(60.0)
    assert not model.has_distortion
    with pytest.raises(CalibrationError, match="field of view"):
        CameraModel.default(640, 480, hfov_deg=200)
    with pytest.raises(CalibrationError, match="use scaled_to"):
        model.undistort(np.zeros((480, 640), np.uint8))


def test_scaled_to_keeps_the_field_of_view_and_refuses_a_new_aspect() -> None:
    big = TRUE.scaled_to(1600, 1200)
    assert big.fx == pytest.approx(2 * TRUE.fx)
    assert big.hfov_deg() == pytest.approx(TRUE.hfov_deg())
    assert big.matrix[0, 2] == pytest.approx(2 * TRUE.matrix[0, 2] + 0.5)
    assert np.array_equal(big.dist, TRUE.dist)
    assert TRUE.scaled_to(800, 600) is TRUE
    with pytest.raises(CalibrationError, match="aspect ratio"):
        TRUE.scaled_to(1280, 720)


def test_json_round_trip_and_damaged_fields() -> None:
    back = CameraModel.from_json(TRUE.to_json())
    assert back.image_size == TRUE.image_size
    assert np.array_equal(back.matrix, TRUE.matrix)
    assert np.array_equal(back.dist, TRUE.dist)
    good = TRUE.to_json()
    cases = [
        ({k: v for k, v in good.items() if k != "dist"}, "missing field 'dist'"),
        ({**good, "matrix": [[1, 2], [3, 4]]}, "camera.matrix"),
        ({**good, "dist": [0, 0, 0, 0, "x"]}, "camera.dist"),
        ({**good, "image_size": [800]}, "image_size"),
        ({**good, "rms_px": "low"}, "rms_px"),
        ({**good, "matrix": [[-5, 0, 400], [0, 700, 300], [0, 0, 1]]}, "focal lengths"),
        ({**good, "matrix": [[700, 0, 4000], [0, 700, 300], [0, 0, 1]]}, "principal point"),
        ("camera", "expected an object"),
    ]
    for data, message in cases:
        with pytest.raises(CalibrationError, match=message):
            CameraModel.from_json(data)
