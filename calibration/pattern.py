"""Printed calibration patterns: a chessboard or a ChArUco board.

A :class:`Pattern` knows its geometry in millimetres on the paper, finds itself in a camera
frame, and draws itself for printing (PNG at a chosen resolution, or a one-page PDF whose
pattern has exactly its nominal size when printed at 100 %).

Point identifiers: both kinds number their inner corners row by row from the top-left,
``id = row * (cols - 1) + col``, so that a partial ChArUco view and a full chessboard view feed the
same solver. Object points are (x, y, 0) in millimetres, x to the right, y down the paper.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

KINDS = ("chessboard", "charuco")
#: ArUco dictionary of the ChArUco boards: 5x5 bits is robust at webcam resolutions.
_ARUCO_DICTIONARY = cv2.aruco.DICT_5X5_100
_MM_PER_INCH = 25.4
_PT_PER_INCH = 72.0
#: A4 landscape in PDF points.
_PAGE_PT = (841.89, 595.28)


class PatternError(ValueError):
    """A pattern description that cannot be printed or detected."""


@dataclass(frozen=True)
class Detection:
    """The inner corners of a pattern found in one frame.

    Attributes:
        ids: int32 (N,) corner identifiers (see the module docstring).
        points: float32 (N, 2) sub-pixel corner positions in image pixels.
    """

    ids: np.ndarray
    points: np.ndarray


@dataclass(frozen=True)
class Pattern:
    """A printed pattern: ``cols`` x ``rows`` squares of ``square_mm``.

    For ChArUco, ``marker_mm`` is the side of the ArUco marker inside each white square.
    """

    kind: str = "chessboard"
    cols: int = 10
    rows: int = 7
    square_mm: float = 25.0
    marker_mm: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise PatternError(f"unknown pattern kind {self.kind!r}: use chessboard or charuco")
        if not (3 <= self.cols <= 30 and 3 <= self.rows <= 30):
            raise PatternError(
                f"a pattern needs 3..30 squares each way, not {self.cols}x{self.rows}"
            )
        if self.kind == "chessboard" and self.cols % 2 == self.rows % 2:
            # With both counts even or both odd the board looks the same turned by 180
            # degrees, and the corner order would flip between views.
            raise PatternError(
                f"a chessboard of {self.cols}x{self.rows} squares is symmetric: "
                "make one count even and the other odd (e.g. 10x7)"
            )
        if not 2.0 <= self.square_mm <= 200.0:
            raise PatternError(f"square size must be 2..200 mm, not {self.square_mm}")
        if self.kind == "charuco":
            if self.marker_mm is None or not 0.3 * self.square_mm <= self.marker_mm < (
                0.95 * self.square_mm
            ):
                raise PatternError(
                    "a ChArUco marker must be 30..95 % of the square: give --marker-mm "
                    f"between {0.3 * self.square_mm:g} and {0.95 * self.square_mm:g}"
                )
            if (self.cols * self.rows) // 2 > 100:
                raise PatternError("a ChArUco board may hold at most 100 markers (200 squares)")
        elif self.marker_mm is not None:
            raise PatternError("a chessboard has no markers: leave out marker_mm")

    # --- geometry --------------------------------------------------------------------------

    @property
    def inner(self) -> tuple[int, int]:
        """Inner corners per row and per column: (cols - 1, rows - 1)."""
        return self.cols - 1, self.rows - 1

    @property
    def corner_count(self) -> int:
        """How many inner corners the whole pattern has."""
        return (self.cols - 1) * (self.rows - 1)

    def object_points(self, ids: np.ndarray | None = None) -> np.ndarray:
        """Corner positions on the paper.

        Args:
            ids: int (N,) corner identifiers; None for all of them in id order.

        Returns:
            float32 (N, 3) points (x, y, 0) in millimetres.
        """
        nx, ny = self.inner
        ids = np.arange(nx * ny) if ids is None else np.asarray(ids, np.int64).ravel()
        if ids.size and (ids.min() < 0 or ids.max() >= nx * ny):
            raise PatternError(f"corner ids must be within 0..{nx * ny - 1}")
        x = (ids % nx + 1) * self.square_mm
        y = (ids // nx + 1) * self.square_mm
        return np.stack([x, y, np.zeros_like(x)], axis=1).astype(np.float32)

    def size_mm(self) -> tuple[float, float]:
        """Width and height of the squares' area in millimetres."""
        return self.cols * self.square_mm, self.rows * self.square_mm

    # --- detection ---------------------------------------------------------------------------

    def detect(self, gray: np.ndarray) -> Detection | None:
        """Find the pattern's inner corners.

        Args:
            gray: uint8 (H, W) frame (a BGR frame is converted).

        Returns:
            The :class:`Detection`, or None when too little of the pattern is visible
            (a chessboard must be seen whole; a ChArUco board needs 6 corners).
        """
        gray = _as_gray(gray)
        if self.kind == "chessboard":
            found, corners = cv2.findChessboardCornersSB(
                gray, self.inner, flags=cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_ACCURACY
            )
            if not found:
                return None
            points = _canonical_order(gray, corners.reshape(-1, 2), self.inner[0])
            return Detection(np.arange(len(points), dtype=np.int32), points)
        corners, ids, _, _ = self._charuco_detector().detectBoard(gray)
        if ids is None or len(ids) < 6:
            return None
        return Detection(ids.ravel().astype(np.int32), corners.reshape(-1, 2).astype(np.float32))

    def _charuco_board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(_ARUCO_DICTIONARY)
        return cv2.aruco.CharucoBoard(
            (self.cols, self.rows), self.square_mm, float(self.marker_mm or 0), dictionary
        )

    def _charuco_detector(self) -> cv2.aruco.CharucoDetector:
        return cv2.aruco.CharucoDetector(self._charuco_board())

    # --- drawing -----------------------------------------------------------------------------

    def render(self, px_per_mm: float = 8.0, margin_mm: float = 10.0) -> np.ndarray:
        """The pattern as an image for printing.

        Args:
            px_per_mm: resolution (8 px/mm is about 200 dpi).
            margin_mm: white border around the squares (detectors need a quiet zone).

        Returns:
            uint8 (H, W) grey image, black squares on white.
        """
        if not 1.0 <= px_per_mm <= 40.0:
            raise PatternError(f"resolution must be 1..40 px/mm, not {px_per_mm}")
        if not 0.0 <= margin_mm <= 100.0:
            raise PatternError(f"margin must be 0..100 mm, not {margin_mm}")
        w_mm, h_mm = self.size_mm()
        m = int(round(margin_mm * px_per_mm))
        w, h = int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm))
        if self.kind == "charuco":
            inner = self._charuco_board().generateImage((w, h), marginSize=0, borderBits=1)
        else:
            inner = np.full((h, w), 255, np.uint8)
            for r in range(self.rows):
                for c in range(self.cols):
                    if (r + c) % 2 == 0:
                        y0, y1 = round(r * h / self.rows), round((r + 1) * h / self.rows)
                        x0, x1 = round(c * w / self.cols), round((c + 1) * w / self.cols)
                        inner[y0:y1, x0:x1] = 0
        out = np.full((h + 2 * m, w + 2 * m), 255, np.uint8)
        out[m : m + h, m : m + w] = inner
        return out

    def pdf(self, px_per_mm: float = 8.0) -> bytes:
        """A one-page A4 landscape PDF with the pattern at its true size.

        The page also carries a 100 mm ruler and the pattern's description, so that a
        printer that scaled the page is caught before calibrating with wrong square sizes.
        """
        w_mm, h_mm = self.size_mm()
        page_w_mm = _PAGE_PT[0] / _PT_PER_INCH * _MM_PER_INCH
        page_h_mm = _PAGE_PT[1] / _PT_PER_INCH * _MM_PER_INCH
        if w_mm > page_w_mm - 20 or h_mm > page_h_mm - 35:
            raise PatternError(
                f"a {w_mm:g} x {h_mm:g} mm pattern does not fit on A4: use smaller squares"
            )
        image = self.render(px_per_mm, margin_mm=0.0)
        return _one_page_pdf(image, (w_mm, h_mm), self.describe())

    def describe(self) -> str:
        """One line for the printout and the logs."""
        text = f"{self.kind} {self.cols}x{self.rows} squares of {self.square_mm:g} mm"
        if self.kind == "charuco":
            text += f", markers {self.marker_mm:g} mm (DICT_5X5_100)"
        return text

    # --- JSON --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-safe dict; :meth:`from_json` reads it back."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "cols": self.cols,
            "rows": self.rows,
            "square_mm": self.square_mm,
        }
        if self.marker_mm is not None:
            out["marker_mm"] = self.marker_mm
        return out

    @classmethod
    def from_json(cls, data: Any) -> Pattern:
        """Read a pattern written by :meth:`to_json`; :class:`PatternError` names a bad field."""
        if not isinstance(data, dict):
            raise PatternError("pattern: expected an object")
        try:
            kind = data["kind"]
            cols, rows = data["cols"], data["rows"]
            square = data["square_mm"]
        except KeyError as exc:
            raise PatternError(f"pattern: missing field {exc.args[0]!r}") from None
        marker = data.get("marker_mm")
        if not isinstance(kind, str):
            raise PatternError("pattern.kind: expected a string")
        for name, v in (("cols", cols), ("rows", rows)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise PatternError(f"pattern.{name}: expected an integer")
        for name, v in (("square_mm", square), ("marker_mm", marker)):
            if v is not None and (not isinstance(v, int | float) or isinstance(v, bool)):
                raise PatternError(f"pattern.{name}: expected a number")
        return cls(kind, cols, rows, float(square), None if marker is None else float(marker))


_SQUARES_RE = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


def parse_squares(text: str) -> tuple[int, int]:
    """``"10x7"`` -> (10, 7); a :class:`PatternError` says what is wrong otherwise."""
    m = _SQUARES_RE.match(text)
    if not m:
        raise PatternError(f"squares must look like 10x7 (columns x rows), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def _as_gray(image: np.ndarray) -> np.ndarray:
    if image.dtype != np.uint8:
        raise PatternError(f"frames must be uint8, not {image.dtype}")
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim != 2:
        raise PatternError(f"frames must be (H, W) grey or (H, W, 3) BGR, not {image.shape}")
    return image


def _canonical_order(gray: np.ndarray, points: np.ndarray, nx: int) -> np.ndarray:
    """Order chessboard corners so that corner 0 touches the black corner square.

    The detector may start from either end of the grid. With one even and one odd count,
    the board's corner squares at the two ends differ in colour, so the black one fixes the
    order and ids mean the same corner in every view.
    """
    p0, right, down = points[0], points[1], points[nx]
    corner_square = p0 + 0.5 * (p0 - right) + 0.5 * (p0 - down)
    beside_square = p0 + 0.5 * (right - p0) + 0.5 * (p0 - down)
    smooth = cv2.GaussianBlur(gray, (0, 0), 1.0)
    h, w = gray.shape

    def sample(p: np.ndarray) -> float:
        x, y = int(np.clip(round(p[0]), 0, w - 1)), int(np.clip(round(p[1]), 0, h - 1))
        return float(smooth[y, x])

    ordered = points if sample(corner_square) < sample(beside_square) else points[::-1]
    return np.ascontiguousarray(ordered, dtype=np.float32)


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _one_page_pdf(image: np.ndarray, size_mm: tuple[float, float], caption: str) -> bytes:
    """A minimal PDF: the grey ``image`` at ``size_mm``, a 100 mm ruler and two text lines."""
    pt = _PT_PER_INCH / _MM_PER_INCH
    page_w, page_h = _PAGE_PT
    w_pt, h_pt = size_mm[0] * pt, size_mm[1] * pt
    x0, y0 = (page_w - w_pt) / 2, (page_h - h_pt) / 2 + 10 * pt
    ruler_y = y0 - 12 * pt
    content = "\n".join(
        [
            "q",
            f"{w_pt:.3f} 0 0 {h_pt:.3f} {x0:.3f} {y0:.3f} cm",
            "/P Do",
            "Q",
            "0 g 0.5 w",
            f"{x0:.3f} {ruler_y:.3f} m {x0 + 100 * pt:.3f} {ruler_y:.3f} l S",
            *(
                f"{x0 + i * 10 * pt:.3f} {ruler_y:.3f} m {x0 + i * 10 * pt:.3f} "
                f"{ruler_y + (3 if i % 5 else 5) * pt:.3f} l S"
                for i in range(11)
            ),
            "BT /F1 9 Tf",
            f"{x0 + 104 * pt:.3f} {ruler_y:.3f} Td",
            f"({_pdf_text('<- 100 mm: measure it; print at 100 % (no fit-to-page)')}) Tj",
            "ET",
            "BT /F1 9 Tf",
            f"{x0:.3f} {ruler_y - 6 * pt:.3f} Td",
            f"(Catan Companion camera calibration: {_pdf_text(caption)}) Tj",
            "ET",
        ]
    ).encode("ascii")
    pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
    h, w = image.shape
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.2f} {page_h:.2f}] "
            "/Resources << /XObject << /P 4 0 R >> /Font << /F1 5 0 R >> >> "
            "/Contents 6 0 R >>"
        ).encode("ascii"),
        (
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 8 /Interpolate false /Filter /FlateDecode "
            f"/Length {len(pixels)} >>\nstream\n"
        ).encode("ascii")
        + pixels
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n".encode("ascii") + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode("ascii") + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode("ascii")
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode("ascii")
    return bytes(out)
