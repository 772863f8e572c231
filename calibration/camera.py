"""Camera intrinsics: collect views of a printed pattern, solve, and undistort frames.

The camera model is OpenCV's pinhole with radial (k1, k2, k3) and tangential (p1, p2)
distortion. Webcam lenses are fitted well by k1, k2, p1, p2; k3 is held at zero by default
because with the few views a user takes it trades off against k1/k2 and extrapolates badly
towards the image corners.

Typical use::

    collector = ViewCollector(pattern, (1280, 720))
    for frame in frames:
        feedback = collector.add(frame)      # accepted? why not? coverage, hint
        if feedback.ready:
            break
    result = collector.solve()               # CameraModel + reprojection error
    straight = result.model.undistort(frame)

A table without calibration still works: :meth:`CameraModel.default` is a distortion-free
pinhole with a typical webcam field of view, and its :meth:`~CameraModel.undistort` is the
identity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.pattern import Detection, Pattern

#: Field of view assumed for an uncalibrated webcam (horizontal, degrees).
DEFAULT_HFOV_DEG = 60.0
# The coverage grid: the image is cut into this many cells across its longer side.
_GRID_LONG = 8


class CalibrationError(ValueError):
    """Calibration impossible with what was given (too few views, bad data, bad file)."""


@dataclass
class CameraModel:
    """Intrinsics of one camera at one resolution.

    Attributes:
        image_size: (width, height) in pixels the intrinsics belong to.
        matrix: float64 (3, 3) camera matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]], pixels.
        dist: float64 (5,) distortion (k1, k2, p1, p2, k3), OpenCV's convention.
        rms_px: reprojection error of the calibration (None for the default model).
    """

    image_size: tuple[int, int]
    matrix: np.ndarray
    dist: np.ndarray
    rms_px: float | None = None
    _maps: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        w, h = self.image_size
        if not (
            isinstance(w, int) and isinstance(h, int) and 16 <= w <= 20000 and 16 <= h <= 20000
        ):
            raise CalibrationError(f"camera image size must be 16..20000 px, not {w}x{h}")
        self.matrix = np.asarray(self.matrix, np.float64)
        self.dist = np.asarray(self.dist, np.float64).ravel()
        if self.matrix.shape != (3, 3) or not np.all(np.isfinite(self.matrix)):
            raise CalibrationError("camera matrix must be a finite 3x3 matrix")
        fx, fy, cx, cy = self.fx, self.fy, self.matrix[0, 2], self.matrix[1, 2]
        if not (fx > 0 and fy > 0 and 0.2 < fx / fy < 5.0):
            raise CalibrationError(f"camera focal lengths must be positive, not {fx}, {fy}")
        if not (0 <= cx <= w and 0 <= cy <= h):
            raise CalibrationError("camera principal point must lie inside the image")
        if self.dist.shape != (5,) or not np.all(np.isfinite(self.dist)):
            raise CalibrationError("distortion must be 5 finite numbers (k1, k2, p1, p2, k3)")

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def default(cls, width: int, height: int, hfov_deg: float = DEFAULT_HFOV_DEG) -> CameraModel:
        """A distortion-free pinhole with a typical webcam's field of view, centred."""
        if not 10.0 <= hfov_deg <= 170.0:
            raise CalibrationError(f"field of view must be 10..170 degrees, not {hfov_deg}")
        f = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        matrix = np.array([[f, 0, (width - 1) / 2.0], [0, f, (height - 1) / 2.0], [0, 0, 1]])
        return cls((int(width), int(height)), matrix, np.zeros(5))

    # --- properties --------------------------------------------------------------------------

    @property
    def fx(self) -> float:
        """Horizontal focal length in pixels."""
        return float(self.matrix[0, 0])

    @property
    def fy(self) -> float:
        """Vertical focal length in pixels."""
        return float(self.matrix[1, 1])

    @property
    def has_distortion(self) -> bool:
        """False when undistorting would change nothing."""
        return bool(np.any(self.dist != 0.0))

    def hfov_deg(self) -> float:
        """Horizontal field of view in degrees."""
        return math.degrees(2.0 * math.atan2(self.image_size[0] / 2.0, self.fx))

    # --- use ---------------------------------------------------------------------------------

    def scaled_to(self, width: int, height: int) -> CameraModel:
        """The same camera at another resolution of the same aspect (webcams scale, not crop).

        Raises:
            CalibrationError: the aspect ratio differs (the sensor would be cropped: unknown).
        """
        w0, h0 = self.image_size
        if (width, height) == (w0, h0):
            return self
        if abs(width / height - w0 / h0) > 0.01:
            raise CalibrationError(
                f"the camera was calibrated at {w0}x{h0} and now gives {width}x{height}: "
                "a different aspect ratio crops the sensor; calibrate again at this resolution"
            )
        s = width / w0
        m = self.matrix.copy()
        m[0, 0] *= s
        m[1, 1] *= s
        # Pixel centres are at integer coordinates: scaling maps x to (x + 0.5) * s - 0.5.
        m[0, 2] = (m[0, 2] + 0.5) * s - 0.5
        m[1, 2] = (m[1, 2] + 0.5) * s - 0.5
        return CameraModel((width, height), m, self.dist.copy(), self.rms_px)

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame as a distortion-free pinhole with the same camera matrix would see it.

        Args:
            frame: uint8 (H, W) or (H, W, 3) of this model's image size.

        Returns:
            Same shape and dtype; the frame itself when the model has no distortion.
        """
        h, w = frame.shape[:2]
        if (w, h) != self.image_size:
            raise CalibrationError(
                f"frame is {w}x{h} but the camera model is for "
                f"{self.image_size[0]}x{self.image_size[1]}: use scaled_to() first"
            )
        if not self.has_distortion:
            return frame
        if self._maps is None:
            # Maps cost ~10 ms at 1080p; frames then cost one remap each.
            self._maps = cv2.initUndistortRectifyMap(
                self.matrix, self.dist, None, self.matrix, self.image_size, cv2.CV_16SC2
            )
        return cv2.remap(frame, self._maps[0], self._maps[1], cv2.INTER_LINEAR)

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        """Distorted pixel positions -> where they are in :meth:`undistort`'s output.

        Args:
            points: float (N, 2) pixels in the raw frame.

        Returns:
            float64 (N, 2) pixels in the undistorted frame.
        """
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if not self.has_distortion or len(pts) == 0:
            return pts.reshape(-1, 2).copy()
        out = _undistort_points(pts, self.matrix, self.dist)
        return out.reshape(-1, 2).astype(np.float64)

    # --- JSON --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict; :meth:`from_json` reads it back exactly."""
        return {
            "image_size": list(self.image_size),
            "matrix": self.matrix.tolist(),
            "dist": self.dist.tolist(),
            "rms_px": self.rms_px,
        }

    @classmethod
    def from_json(cls, data: Any) -> CameraModel:
        """Read :meth:`to_json`'s output; :class:`CalibrationError` names the bad field."""
        if not isinstance(data, dict):
            raise CalibrationError("camera: expected an object")
        for key in ("image_size", "matrix", "dist"):
            if key not in data:
                raise CalibrationError(f"camera: missing field {key!r}")
        size = data["image_size"]
        if not (
            isinstance(size, list)
            and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in size)
        ):
            raise CalibrationError("camera.image_size: expected [width, height] integers")
        matrix = _number_array(data["matrix"], (3, 3), "camera.matrix")
        dist = _number_array(data["dist"], (5,), "camera.dist")
        rms = data.get("rms_px")
        if rms is not None and (not isinstance(rms, int | float) or isinstance(rms, bool)):
            raise CalibrationError("camera.rms_px: expected a number or null")
        return cls((size[0], size[1]), matrix, dist, None if rms is None else float(rms))


def _undistort_points(pts: np.ndarray, matrix: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """OpenCV's iterative point undistortion, run to convergence (not its 5-step default)."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    # OpenCV 4.x names the variant that takes criteria undistortPointsIter; 5.x folds it into
    # undistortPoints.
    if hasattr(cv2, "undistortPointsIter"):
        return cv2.undistortPointsIter(pts, matrix, dist, None, matrix, criteria)
    return cv2.undistortPoints(pts, matrix, dist, R=None, P=matrix, criteria=criteria)


def _number_array(value: Any, shape: tuple[int, ...], name: str) -> np.ndarray:
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"{name}: expected numbers of shape {shape}") from None
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{name}: expected finite numbers of shape {shape}")
    return arr


# --- view quality ----------------------------------------------------------------------------


def edge_width_px(gray: np.ndarray, points: np.ndarray) -> float:
    """How wide the pattern's black/white edges are, in pixels: a blur measure.

    The steepest grey-level slope in the pattern's area is compared with its contrast: a
    sharp edge climbs the whole contrast within about one pixel, a Gaussian blur of sigma
    spreads it over about 2.5 sigma. Unlike a Laplacian variance, this does not depend on
    the lighting or on how large the pattern appears.

    Args:
        gray: uint8 (H, W) frame.
        points: float (N, 2) detected corners (they delimit the area measured).

    Returns:
        Edge width in pixels (>= ~1; larger is blurrier).
    """
    h, w = gray.shape
    x0, y0 = np.floor(points.min(axis=0)).astype(int)
    x1, y1 = np.ceil(points.max(axis=0)).astype(int) + 1
    roi = gray[max(0, y0) : min(h, y1), max(0, x0) : min(w, x1)].astype(np.float32)
    if roi.shape[0] < 5 or roi.shape[1] < 5:
        return math.inf
    lo, hi = np.percentile(roi, (2, 98))
    gx = cv2.Sobel(roi, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(roi, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    slope = float(np.percentile(np.hypot(gx, gy), 99.5))
    if slope <= 0.0 or hi - lo < 20:
        return math.inf
    return float((hi - lo) / slope)


def tilt_deg(pattern: Pattern, detection: Detection, model: CameraModel) -> float:
    """Angle between the pattern's normal and the camera's axis, in degrees (rough)."""
    obj = pattern.object_points(detection.ids)[:, :2]
    hom, _ = cv2.findHomography(obj, detection.points, 0)
    if hom is None:
        return 0.0
    hn = np.linalg.inv(model.matrix) @ hom
    r1, r2 = hn[:, 0], hn[:, 1]
    normal = np.cross(r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2))
    normal /= np.linalg.norm(normal)
    return math.degrees(math.acos(min(1.0, abs(float(normal[2])))))


@dataclass
class ViewFeedback:
    """What happened to one frame, for live feedback.

    Attributes:
        accepted: the frame was kept as a calibration view.
        reason: why it was rejected ("" when accepted).
        views: how many views are kept now.
        coverage: fraction of the image's grid cells where kept corners fell (0..1).
        tilted_views: kept views with the pattern tilted by 20 degrees or more.
        ready: enough views, coverage and tilt variety to solve.
        hint: what to do next, in words.
        points: float32 (N, 2) corners found in this frame (empty when none), for drawing.
    """

    accepted: bool
    reason: str
    views: int
    coverage: float
    tilted_views: int
    ready: bool
    hint: str
    points: np.ndarray

    def to_json(self) -> dict[str, Any]:
        """JSON-safe (the corner positions are left out)."""
        return {
            "accepted": self.accepted,
            "reason": self.reason,
            "views": self.views,
            "coverage": round(self.coverage, 3),
            "tilted_views": self.tilted_views,
            "ready": self.ready,
            "hint": self.hint,
            "corners_found": int(len(self.points)),
        }


@dataclass
class CalibrationResult:
    """The outcome of :meth:`ViewCollector.solve`.

    Attributes:
        model: the solved camera.
        rms_px: reprojection error over the views used (root mean square, pixels).
        per_view_rms_px: reprojection error of each view used.
        dropped_views: indices (into the kept views) left out as outliers.
        std_focal_px: standard deviation of fx estimated by the solver.
        warnings: anything the user should know.
    """

    model: CameraModel
    rms_px: float
    per_view_rms_px: list[float]
    dropped_views: list[int]
    std_focal_px: float
    warnings: list[str]

    def to_json(self) -> dict[str, Any]:
        """JSON-safe summary."""
        return {
            "camera": self.model.to_json(),
            "rms_px": round(self.rms_px, 4),
            "per_view_rms_px": [round(v, 4) for v in self.per_view_rms_px],
            "dropped_views": self.dropped_views,
            "std_focal_px": round(self.std_focal_px, 3),
            "hfov_deg": round(self.model.hfov_deg(), 2),
            "warnings": self.warnings,
        }


class ViewCollector:
    """Collects pattern views from frames, rejecting unusable ones, and solves.

    Args:
        pattern: the printed pattern.
        image_size: (width, height) of the frames.
        min_views: views needed before :attr:`ViewFeedback.ready`.
        min_coverage: fraction of the coverage grid that kept corners must touch.
        min_tilted: views with a tilt of 20 degrees or more (they fix the focal length).
        max_edge_width_px: frames whose edges are wider than this are blurred: rejected.
        duplicate_fraction: a view whose corners moved less than this fraction of the image
            diagonal (on average) from a kept view is a duplicate: rejected.
    """

    def __init__(
        self,
        pattern: Pattern,
        image_size: tuple[int, int],
        *,
        min_views: int = 12,
        min_coverage: float = 0.6,
        min_tilted: int = 4,
        max_edge_width_px: float = 3.5,
        duplicate_fraction: float = 0.02,
    ) -> None:
        w, h = image_size
        if w < 16 or h < 16:
            raise CalibrationError(f"image size must be at least 16x16, not {w}x{h}")
        if min_views < 3:
            raise CalibrationError("at least 3 views are needed to calibrate a camera")
        self.pattern = pattern
        self.image_size = (int(w), int(h))
        self.min_views = min_views
        self.min_coverage = min_coverage
        self.min_tilted = min_tilted
        self.max_edge_width_px = max_edge_width_px
        self.duplicate_px = duplicate_fraction * math.hypot(w, h)
        long_side = max(w, h)
        self._cell = long_side / _GRID_LONG
        self._grid = (math.ceil(w / self._cell), math.ceil(h / self._cell))
        self._covered = np.zeros((self._grid[1], self._grid[0]), bool)
        self._guess = CameraModel.default(*self.image_size)
        self.views: list[Detection] = []
        self._tilts: list[float] = []

    @property
    def coverage(self) -> float:
        """Fraction of the coverage grid's cells touched by kept corners."""
        return float(self._covered.mean())

    def covered_cells(self) -> np.ndarray:
        """Rectangles of the coverage grid touched by kept corners, for drawing.

        Returns:
            int32 (K, 4): x0, y0, x1, y1 in pixels.
        """
        rc = np.argwhere(self._covered)
        c = self._cell
        return (
            np.array([[x * c, y * c, (x + 1) * c, (y + 1) * c] for y, x in rc], np.float64)
            .round()
            .astype(np.int32)
            .reshape(-1, 4)
        )

    @property
    def tilted_views(self) -> int:
        """Kept views tilted by 20 degrees or more."""
        return sum(t >= 20.0 for t in self._tilts)

    @property
    def ready(self) -> bool:
        """True when enough varied views are kept to solve reliably."""
        return (
            len(self.views) >= self.min_views
            and self.coverage >= self.min_coverage
            and self.tilted_views >= self.min_tilted
        )

    def add(self, frame: np.ndarray) -> ViewFeedback:
        """Look for the pattern in one frame and keep it if it is a useful view.

        Args:
            frame: uint8 (H, W) grey or (H, W, 3) BGR frame of :attr:`image_size`.
        """
        h, w = frame.shape[:2]
        if (w, h) != self.image_size:
            raise CalibrationError(
                f"frame is {w}x{h}, expected {self.image_size[0]}x{self.image_size[1]}: "
                "all views must come from the same camera at the same resolution"
            )
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        det = self.pattern.detect(gray)
        if det is None:
            return self._feedback(False, "pattern not found", np.zeros((0, 2), np.float32))
        width = edge_width_px(gray, det.points)
        if width > self.max_edge_width_px:
            return self._feedback(
                False, f"blurred (edges {width:.1f} px wide): hold still", det.points
            )
        for i, kept in enumerate(self.views):
            moved = _mean_shift(kept, det)
            if moved is not None and moved < self.duplicate_px:
                return self._feedback(
                    False, f"too close to view {i + 1}: move or tilt the pattern", det.points
                )
        self.views.append(det)
        self._tilts.append(tilt_deg(self.pattern, det, self._guess))
        cells = np.floor(det.points / self._cell).astype(int)
        cells[:, 0] = np.clip(cells[:, 0], 0, self._grid[0] - 1)
        cells[:, 1] = np.clip(cells[:, 1], 0, self._grid[1] - 1)
        self._covered[cells[:, 1], cells[:, 0]] = True
        return self._feedback(True, "", det.points)

    def _feedback(self, accepted: bool, reason: str, points: np.ndarray) -> ViewFeedback:
        return ViewFeedback(
            accepted,
            reason,
            len(self.views),
            self.coverage,
            self.tilted_views,
            self.ready,
            self._hint(),
            points,
        )

    def _hint(self) -> str:
        if self.ready:
            return "enough views: solve now (more views still help)"
        if self.coverage < self.min_coverage:
            return f"move the pattern towards the {self._emptiest_region()} of the picture"
        if self.tilted_views < self.min_tilted:
            return "tilt the pattern (about 30 degrees) in different directions"
        return f"{self.min_views - len(self.views)} more views from new positions"

    def _emptiest_region(self) -> str:
        """The least covered of the picture's eight border regions (ties: farthest away)."""
        rows, cols = self._covered.shape
        covered = np.argwhere(self._covered)
        centroid = covered.mean(axis=0) if len(covered) else np.array([rows, cols]) / 2.0
        best: tuple[float, float, str] | None = None
        for i, vname in enumerate(("top", "", "bottom")):
            for j, hname in enumerate(("left", "", "right")):
                if i == j == 1:
                    continue
                r0, r1 = round(i * rows / 3), round((i + 1) * rows / 3)
                c0, c1 = round(j * cols / 3), round((j + 1) * cols / 3)
                fill = float(self._covered[r0:r1, c0:c1].mean())
                away = float(np.hypot((r0 + r1) / 2 - centroid[0], (c0 + c1) / 2 - centroid[1]))
                key = (fill, -away, " ".join(n for n in (vname, hname) if n))
                if best is None or key < best:
                    best = key
        assert best is not None
        return best[2]

    def solve(self, *, fix_k3: bool = True) -> CalibrationResult:
        """Solve the intrinsics from the kept views.

        Views whose reprojection error is far above the others' (a detection gone wrong, the
        paper bending) are dropped and the solve is repeated once without them.

        Raises:
            CalibrationError: fewer than 3 usable views, or the solver failed.
        """
        if len(self.views) < 3:
            raise CalibrationError(
                f"only {len(self.views)} views kept: at least 3 are needed (12 recommended)"
            )
        kept = list(range(len(self.views)))
        model, per_view, std_fx = self._solve(kept, fix_k3)
        median = float(np.median(per_view))
        bad = [i for i, e in zip(kept, per_view, strict=True) if e > max(3.0 * median, 1.0)]
        if bad and len(kept) - len(bad) >= 3:
            kept = [i for i in kept if i not in bad]
            model, per_view, std_fx = self._solve(kept, fix_k3)
        else:
            bad = []
        warnings = []
        if len(kept) < self.min_views:
            warnings.append(f"only {len(kept)} views used: {self.min_views} or more are better")
        if self.coverage < self.min_coverage:
            warnings.append(
                f"views cover {self.coverage:.0%} of the picture: distortion near the "
                "uncovered edges is extrapolated"
            )
        if model.rms_px is not None and model.rms_px > 1.0:
            warnings.append(
                f"reprojection error {model.rms_px:.2f} px is high: is the paper flat and the "
                "square size right?"
            )
        return CalibrationResult(model, float(model.rms_px or 0.0), per_view, bad, std_fx, warnings)

    def _solve(self, kept: list[int], fix_k3: bool) -> tuple[CameraModel, list[float], float]:
        obj = [self.pattern.object_points(self.views[i].ids) for i in kept]
        img = [self.views[i].points.reshape(-1, 1, 2) for i in kept]
        flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
        try:
            rms, matrix, dist, rvecs, tvecs, std_in, _, per_view = cv2.calibrateCameraExtended(
                obj, img, self.image_size, None, None, flags=flags
            )
        except cv2.error as exc:
            raise CalibrationError(f"the solver failed: {exc.err}") from None
        if not np.isfinite(rms):
            raise CalibrationError("the solver diverged: take more varied views")
        model = CameraModel(self.image_size, matrix, dist.ravel()[:5], float(rms))
        return model, [float(v) for v in per_view.ravel()], float(std_in.ravel()[0])


def _mean_shift(a: Detection, b: Detection) -> float | None:
    """Mean distance between the corners two detections share; None if they share < 4."""
    common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
    if len(common) < 4:
        return None
    return float(np.linalg.norm(a.points[ia] - b.points[ib], axis=1).mean())
