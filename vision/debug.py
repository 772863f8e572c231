"""Stage images of a board reading, so a person can see why it failed.

Written by ``read_board(..., debug_dir=DIR)`` and ``catan-companion read-board --debug DIR``:

``1_candidates.png``
    the photo with every chip candidate (red) and the chips the lattice kept (green), and the
    sea test per hex (blue fill where the hex looks like open sea): the "board mask".
``2_top_view.png``
    the rectified top view with the fitted hex grid drawn over it.
``3_labels.png``
    the top view with each hex's terrain, number and confidence written on it.
``4_harbours.png``
    the top view with every coast side's harbour spot (see :func:`vision.harbours.draw_harbours`).

A photo refused as "no board found" gets ``1_candidates.png`` alone (every chip candidate the
registration had in red, the chips of its lattice, if it found one, in green) and
``refused.txt`` with the message (:func:`write_refusal_images`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import cv2
import numpy as np

from companion.board import Board, Hex, hex_center, hex_corner_points
from vision.register import ChipCandidate, NoBoardError, Registration, project

_TERRAIN_INITIAL = {
    "forest": "F",
    "pasture": "P",
    "fields": "W",
    "hills": "H",
    "mountains": "M",
    "desert": "D",
    "gold": "G",
    "sea": "~",
    "unexplored": "?",
}


def draw_candidates(image: np.ndarray, reg: Registration) -> np.ndarray:
    """Photo (BGR uint8) with chip candidates, kept chips and the sea test drawn on a copy."""
    out = image.copy()
    overlay = out.copy()
    for h, frac in reg.sea_fraction.items():
        if frac > 0.7:
            poly = project(reg.homography, np.array(hex_corner_points(h)))
            cv2.fillPoly(overlay, [np.round(poly).astype(np.int32)], (255, 120, 0))
    out = cv2.addWeighted(overlay, 0.35, out, 0.65, 0)
    kept = project(reg.homography, np.array([hex_center(h) for h in reg.chip_hexes]).reshape(-1, 2))
    return _draw_discs(out, reg.candidates, kept)


def _draw_discs(
    out: np.ndarray, candidates: Iterable[ChipCandidate], kept: np.ndarray
) -> np.ndarray:
    """Draw on ``out`` (BGR uint8, in place) each candidate as a red circle and each kept
    chip centre (float (N, 2) pixels) as a green dot; returns ``out``."""
    thick = max(1, max(out.shape[:2]) // 600)
    for c in candidates:
        cv2.circle(out, (int(c.x), int(c.y)), max(2, int(c.radius)), (0, 0, 255), thick)
    for x, y in kept:
        cv2.circle(out, (int(x), int(y)), 6 * thick, (0, 255, 0), -1)
    return out


def write_refusal_images(directory: Path, image: np.ndarray, refusal: NoBoardError) -> list[Path]:
    """Write what the registration saw of a photo (BGR uint8 (H, W, 3)) it refused: the
    candidates and lattice chips ``refusal`` carries, and its message; returns the paths.

    Raises:
        ValueError: the directory cannot be created or written.
    """
    directory = _made(directory)
    drawn = _draw_discs(image.copy(), refusal.candidates, refusal.chips)
    paths = _write(directory, {"1_candidates.png": drawn})
    text = directory / "refused.txt"
    try:
        text.write_text(
            f"{refusal}\n{len(refusal.candidates)} chip candidate(s), {len(refusal.chips)} "
            "chip(s) on the lattice kept\n"
        )
    except OSError as exc:
        raise ValueError(f"{text}: could not write ({exc})") from None
    return [*paths, text]


def draw_grid(top: np.ndarray, plane_to_top: np.ndarray, reg: Registration) -> np.ndarray:
    """Top view (BGR uint8) with the fitted hex outlines and their axial coordinates."""
    out = top.copy()
    for h in reg.hexes:
        poly = project(plane_to_top, np.array(hex_corner_points(h)))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (255, 255, 0), 1, cv2.LINE_AA)
        c = project(plane_to_top, np.array([hex_center(h)]))[0]
        cv2.putText(
            out,
            f"{h[0]},{h[1]}",
            (int(c[0]) - 14, int(c[1]) + 28),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.35,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
    return out


def draw_camera_grid(frame: np.ndarray, homography: np.ndarray, hexes: Iterable[Hex]) -> np.ndarray:
    """The camera's frame (BGR uint8) with the registered hex grid drawn on it.

    ``homography`` maps the board plane (hex radius 1, :func:`companion.board.hex_center`)
    to the frame's pixels.
    """
    out = frame.copy()
    for h in hexes:
        poly = project(homography, np.array(hex_corner_points(h)))
        cv2.polylines(out, [np.round(poly).astype(np.int32)], True, (255, 255, 0), 2, cv2.LINE_AA)
    return out


def draw_labels(top: np.ndarray, plane_to_top: np.ndarray, board: Board) -> np.ndarray:
    """Top view (BGR uint8) with each hex's terrain initial, number and confidence."""
    out = top.copy()
    for h, t in board.tiles.items():
        c = project(plane_to_top, np.array([hex_center(h)]))[0]
        text = f"{_TERRAIN_INITIAL[t.terrain.value]} {t.number if t.number else '-'}"
        conf = f"{(t.confidence or 0.0):.2f}"
        colour = (0, 255, 0) if (t.confidence or 0.0) >= 0.9 else (0, 0, 255)
        for dy, s in ((-4, text), (14, conf)):
            org = (int(c[0]) - 20, int(c[1]) + dy)
            cv2.putText(out, s, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(out, s, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    return out


def write_debug_images(
    directory: Path,
    image: np.ndarray,
    reg: Registration,
    top: np.ndarray,
    plane_to_top: np.ndarray,
    board: Board,
    extra: Mapping[str, np.ndarray] | None = None,
) -> list[Path]:
    """Write the three stage images, and any ``extra`` ones (file name -> BGR uint8 image) of
    later stages, into ``directory`` (created if needed); returns paths.

    Raises:
        ValueError: the directory cannot be created or written.
    """
    stages = {
        "1_candidates.png": draw_candidates(image, reg),
        "2_top_view.png": draw_grid(top, plane_to_top, reg),
        "3_labels.png": draw_labels(top, plane_to_top, board),
        **(extra or {}),
    }
    return _write(_made(directory), stages)


def _made(directory: Path) -> Path:
    """``directory``, created if needed (ValueError naming it when it cannot be)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{directory}: cannot create the debug directory ({exc})") from None
    return directory


def _write(directory: Path, stages: Mapping[str, np.ndarray]) -> list[Path]:
    """Write each stage image (file name -> BGR uint8) into ``directory``; returns paths."""
    paths = []
    for name, img in stages.items():
        p = directory / name
        if not cv2.imwrite(str(p), img):
            raise ValueError(f"{p}: could not write the debug image")
        paths.append(p)
    return paths
