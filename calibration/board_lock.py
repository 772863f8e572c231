"""Board lock: remember where the board is for a fixed camera, and notice when it moves.

Registering the board from scratch (finding chips, fitting the lattice) takes a while and can
be fooled by a hand in the picture. With a camera on a stand the board does not move, so the
registration is stored together with a small grey reference picture. At start-up, and from
time to time during play, :meth:`BoardLock.check` compares a frame with the reference:

* ORB features of the board area are matched to the reference and a homography is fitted
  with RANSAC. Hands, pieces and cards over the board only remove matches.
* If the board's outline moved by at most ``tolerance_px``, the lock holds: the stored
  registration is used as is (start-up is instant).
* If it moved, the fitted motion gives the new registration at once (no re-registration
  needed), and the table around the board tells what moved: when the table moved with the
  board, the camera was knocked; when the table stayed, the board was pushed. A plain table
  without texture cannot tell (``camera_moved`` is None).
* When too few features match (the board covered or gone, the light changed completely), the
  lock is lost and the board must be registered again.

Homographies map the board plane (hex radii, see ``companion.board.hex_center``) to image
pixels of the full-size frame.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.board import Hex, hex_corner_points

FORMAT_VERSION = 1
# The reference picture's longer side, in pixels: enough features, small on disk.
_REF_SIDE = 640
# Board plane margin around the hexes' outline that still belongs to the board (sea frame).
_FRAME_MARGIN = 0.8
_MIN_BOARD_MATCHES = 12
_MIN_TABLE_MATCHES = 15
# Of the cross-checked matches, at least this fraction must agree on one motion: another
# board (or the same board re-laid) gives many matches between look-alike chips and borders,
# but they agree on nothing.
_MIN_INLIER_RATIO = 0.3
# Features per picture on the board and on the table around it.
_BOARD_FEATURES, _TABLE_FEATURES = 1500, 600


class LockError(ValueError):
    """A board lock that cannot be made or read."""


@dataclass
class LockStatus:
    """What :meth:`BoardLock.check` found.

    Attributes:
        state: ``locked`` (nothing moved), ``moved`` (new registration in ``homography``)
            or ``lost`` (register the board again).
        shift_px: largest displacement of the board's outline, full-size pixels (NaN when
            lost).
        camera_moved: True if the table moved with the board (camera knocked), False if only
            the board moved, None when the table shows too little to tell.
        homography: float64 (3, 3) board plane -> image pixels for this frame (None when lost).
        matches: RANSAC inliers on the board.
        reason: a sentence for the user.
    """

    state: str
    shift_px: float
    camera_moved: bool | None
    homography: np.ndarray | None
    matches: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON-safe summary (the homography as nested lists)."""
        return {
            "state": self.state,
            "shift_px": None if math.isnan(self.shift_px) else round(self.shift_px, 2),
            "camera_moved": self.camera_moved,
            "homography": None if self.homography is None else self.homography.tolist(),
            "matches": self.matches,
            "reason": self.reason,
        }


def _outline(hexes: list[Hex]) -> np.ndarray:
    """Board-plane outline of the hexes plus the sea frame: float64 (K, 2) convex hull."""
    pts = np.array([p for h in hexes for p in hex_corner_points(h)], np.float64)
    centre = pts.mean(axis=0)
    d = pts - centre
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    grown = centre + d * (norm + _FRAME_MARGIN) / np.maximum(norm, 1e-9)
    hull = cv2.convexHull(grown.astype(np.float32)).reshape(-1, 2)
    return hull.astype(np.float64)


def _project(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T
    return p[:, :2] / p[:, 2:3]


def _to_gray(frame: np.ndarray) -> np.ndarray:
    if frame.dtype != np.uint8:
        raise LockError(f"frames must be uint8, not {frame.dtype}")
    if frame.ndim == 3 and frame.shape[2] == 3:
        return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    if frame.ndim != 2:
        raise LockError(f"frames must be (H, W) grey or (H, W, 3) BGR, not {frame.shape}")
    return frame


class BoardLock:
    """The registration of a fixed camera's view of the board, with a reference picture.

    Args:
        homography: float (3, 3) board plane -> full-size image pixels.
        image_size: (width, height) of the frames.
        hexes: the board's hexes (their outline is the board area).
        reference: uint8 (h, w) grey reference picture at :attr:`scale`.
        kind: the board kind (base, 5-6, seafarers), kept for the registration.
    """

    def __init__(
        self,
        homography: np.ndarray,
        image_size: tuple[int, int],
        hexes: list[Hex],
        reference: np.ndarray,
        kind: str,
    ) -> None:
        self.homography = np.asarray(homography, np.float64)
        if self.homography.shape != (3, 3) or not np.all(np.isfinite(self.homography)):
            raise LockError("the board's homography must be a finite 3x3 matrix")
        if abs(np.linalg.det(self.homography)) < 1e-12:
            raise LockError("the board's homography is degenerate")
        w, h = image_size
        if w < 32 or h < 32:
            raise LockError(f"image size must be at least 32x32, not {w}x{h}")
        if not hexes:
            raise LockError("a board lock needs the board's hexes")
        self.image_size = (int(w), int(h))
        self.hexes = [tuple(x) for x in hexes]
        self.kind = kind
        self.scale = min(1.0, _REF_SIDE / max(w, h))
        expected = (round(h * self.scale), round(w * self.scale))
        if reference.shape != expected or reference.dtype != np.uint8:
            raise LockError(
                f"reference picture must be uint8 {expected[1]}x{expected[0]}, "
                f"not {reference.dtype} {reference.shape[1]}x{reference.shape[0]}"
            )
        self.reference = reference
        self.outline = _outline(self.hexes)
        self._ref_features = self._features(reference, self._board_mask(self.homography, 0))

    @classmethod
    def create(
        cls, frame: np.ndarray, homography: np.ndarray, hexes: list[Hex], kind: str
    ) -> BoardLock:
        """Lock the board as registered in ``frame`` (BGR or grey uint8)."""
        gray = _to_gray(frame)
        h, w = gray.shape
        scale = min(1.0, _REF_SIDE / max(w, h))
        small = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
        lock = cls(homography, (w, h), hexes, small, kind)
        poly = lock._board_polygon_small(lock.homography).astype(np.float32)
        board_kp = sum(
            1 for k in lock._ref_features[0] if cv2.pointPolygonTest(poly, k.pt, False) >= 0
        )
        if board_kp < 3 * _MIN_BOARD_MATCHES:
            raise LockError(
                f"the board area shows only {board_kp} features: is the board in the picture "
                "and in focus?"
            )
        return lock

    # --- checking ----------------------------------------------------------------------------

    def _board_mask(self, homography: np.ndarray, grow_px: int) -> np.ndarray:
        """uint8 mask of the board area in the small pictures, grown by ``grow_px``."""
        mask = np.zeros(self.reference.shape, np.uint8)
        poly = np.round(self._board_polygon_small(homography)).astype(np.int32)
        cv2.fillPoly(mask, [poly], 255)
        if grow_px > 0:
            mask = cv2.dilate(mask, np.ones((2 * grow_px + 1,) * 2, np.uint8))
        return mask

    def _features(
        self, gray: np.ndarray, board_mask: np.ndarray
    ) -> tuple[list[cv2.KeyPoint], np.ndarray | None]:
        """ORB features, detected separately on the board and on the table: the board's
        strong corners would otherwise crowd out the table's weaker ones."""
        kps: list[cv2.KeyPoint] = []
        descs = []
        for mask, count in ((board_mask, _BOARD_FEATURES), (255 - board_mask, _TABLE_FEATURES)):
            orb = cv2.ORB_create(nfeatures=count, fastThreshold=10)
            k, d = orb.detectAndCompute(gray, mask)
            if d is not None:
                kps.extend(k)
                descs.append(d)
        return kps, (np.vstack(descs) if descs else None)

    def _board_polygon_small(self, homography: np.ndarray) -> np.ndarray:
        return _project(homography, self.outline) * self.scale

    def check(self, frame: np.ndarray, tolerance_px: float = 2.0) -> LockStatus:
        """Compare a frame with the reference (see the module docstring).

        Args:
            frame: BGR or grey uint8 frame of :attr:`image_size`.
            tolerance_px: largest movement of the board's outline, full-size pixels, that
                still counts as not moved (camera noise and JPEG jitter stay well below 1).
        """
        gray = _to_gray(frame)
        h, w = gray.shape
        if (w, h) != self.image_size:
            return LockStatus(
                "lost",
                math.nan,
                None,
                None,
                0,
                f"the camera now gives {w}x{h} frames, the lock was made at "
                f"{self.image_size[0]}x{self.image_size[1]}: register the board again",
            )
        small = cv2.resize(gray, self.reference.shape[::-1], interpolation=cv2.INTER_AREA)
        # The board may have moved: look for its features in a generous area around it.
        grow = max(8, round(0.08 * max(small.shape)))
        kps, desc = self._features(small, self._board_mask(self.homography, grow))
        ref_kps, ref_desc = self._ref_features
        if desc is None or ref_desc is None or len(kps) < _MIN_BOARD_MATCHES:
            return self._lost(0)
        matcher = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
        matches = matcher.match(ref_desc, desc)
        poly = self._board_polygon_small(self.homography).astype(np.float32)
        on_board, off_board = [], []
        for m in matches:
            pt = ref_kps[m.queryIdx].pt
            inside = cv2.pointPolygonTest(poly, (float(pt[0]), float(pt[1])), True)
            # Features straddling the board's edge belong to neither side.
            if inside > 4:
                on_board.append(m)
            elif inside < -12:
                off_board.append(m)
        board_motion, inliers = self._fit(on_board, ref_kps, kps, _MIN_BOARD_MATCHES)
        if board_motion is None:
            return self._lost(inliers)
        # Motion in the small pictures -> motion in full-size pixels.
        s = np.diag([self.scale, self.scale, 1.0])
        motion = np.linalg.inv(s) @ board_motion @ s
        new_h = motion @ self.homography
        new_h /= new_h[2, 2]
        outline_now = _project(self.homography, self.outline)
        shift = float(np.linalg.norm(_project(motion, outline_now) - outline_now, axis=1).max())
        if shift <= tolerance_px:
            return LockStatus(
                "locked", shift, False, self.homography.copy(), inliers, "the board is where it was"
            )
        table_motion, _ = self._fit(off_board, ref_kps, kps, _MIN_TABLE_MATCHES)
        camera_moved: bool | None = None
        if table_motion is not None:
            table = np.linalg.inv(s) @ table_motion @ s
            table_shift = float(
                np.linalg.norm(_project(table, outline_now) - outline_now, axis=1).max()
            )
            camera_moved = table_shift > tolerance_px
        what = {
            True: "the camera moved",
            False: "the board moved",
            None: "the camera or the board moved",
        }[camera_moved]
        return LockStatus(
            "moved",
            shift,
            camera_moved,
            new_h,
            inliers,
            f"{what} by {shift:.1f} px: the board was found again at its new place",
        )

    def _fit(
        self,
        matches: list[cv2.DMatch],
        ref_kps: list[cv2.KeyPoint],
        kps: list[cv2.KeyPoint],
        minimum: int,
    ) -> tuple[np.ndarray | None, int]:
        if len(matches) < minimum:
            return None, 0
        src = np.float32([ref_kps[m.queryIdx].pt for m in matches])
        dst = np.float32([kps[m.trainIdx].pt for m in matches])
        motion, mask = cv2.findHomography(
            src, dst, cv2.RANSAC, 2.0, maxIters=2000, confidence=0.999
        )
        inliers = int(mask.sum()) if mask is not None else 0
        if motion is None or inliers < max(minimum, _MIN_INLIER_RATIO * len(matches)):
            return None, inliers
        # Refit on the inliers only, for sub-pixel accuracy.
        keep = mask.ravel().astype(bool)
        refined, _ = cv2.findHomography(src[keep], dst[keep], 0)
        return (refined if refined is not None else motion), inliers

    def _lost(self, inliers: int) -> LockStatus:
        return LockStatus(
            "lost",
            math.nan,
            None,
            None,
            inliers,
            "the board does not match the locked view (covered, gone or far moved): "
            "register the board again",
        )

    def relock(self, frame: np.ndarray, homography: np.ndarray) -> BoardLock:
        """A new lock for the same board at a new registration (after a move)."""
        return BoardLock.create(frame, homography, self.hexes, self.kind)

    # --- JSON --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """JSON-safe; the reference picture is a base64 JPEG."""
        ok, buf = cv2.imencode(".jpg", self.reference, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if not ok:
            raise LockError("could not encode the reference picture")
        return {
            "version": FORMAT_VERSION,
            "kind": self.kind,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "hexes": [list(h) for h in self.hexes],
            "reference_jpeg": base64.b64encode(buf.tobytes()).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: Any) -> BoardLock:
        """Read :meth:`to_json`'s output; :class:`LockError` names the bad field."""
        if not isinstance(data, dict):
            raise LockError("board_lock: expected an object")
        if data.get("version") != FORMAT_VERSION:
            raise LockError(
                f"board_lock.version: expected {FORMAT_VERSION}, found {data.get('version')!r}"
            )
        for key in ("kind", "image_size", "homography", "hexes", "reference_jpeg"):
            if key not in data:
                raise LockError(f"board_lock: missing field {key!r}")
        size = data["image_size"]
        if not (
            isinstance(size, list)
            and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in size)
        ):
            raise LockError("board_lock.image_size: expected [width, height] integers")
        try:
            hom = np.array(data["homography"], np.float64)
        except (TypeError, ValueError):
            raise LockError("board_lock.homography: expected a 3x3 matrix of numbers") from None
        if hom.shape != (3, 3):
            raise LockError("board_lock.homography: expected a 3x3 matrix of numbers")
        hexes = data["hexes"]
        if not isinstance(hexes, list) or not all(
            isinstance(h, list) and len(h) == 2 and all(isinstance(v, int) for v in h)
            for h in hexes
        ):
            raise LockError("board_lock.hexes: expected a list of [q, r] integer pairs")
        try:
            raw = base64.b64decode(data["reference_jpeg"], validate=True)
        except (TypeError, ValueError):
            raise LockError("board_lock.reference_jpeg: not valid base64") from None
        ref = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_GRAYSCALE)
        if ref is None:
            raise LockError("board_lock.reference_jpeg: not a readable JPEG picture")
        if not isinstance(data["kind"], str):
            raise LockError("board_lock.kind: expected a string")
        return cls(hom, (size[0], size[1]), [(h[0], h[1]) for h in hexes], ref, data["kind"])
