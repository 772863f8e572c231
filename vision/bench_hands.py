"""``bench vision --real-hands K``: the renderer's hands laid over the real photos of boards-dev.

No real photo with a hand over the board has been read: the 13 photos of boards-dev show
none. This is the closest honest measure: each photo gets ``K`` composites, each with one
hand drawn by the renderer's own :func:`vision.synth.render.draw_hand` (its arm from an
image border, palm, four fingers, shading and a soft shadow that darkens the photo), laid so
that it covers part of the board, and every composite is read by ``read_board`` as the
photo is.

Placement: the clean photo is registered first (:func:`vision.register.register`, the
registration ``read_board`` itself makes of it); the fingertips are laid within half a hex
radius of the centre of one of its hexes, drawn at random, and the hand is scaled to the
board where it reaches (0.35 to 0.65 hex radii a unit: the renderer's hand is about 0.35 on
a board filling the image, a real palm, 8-9 cm across on hexes of 5 cm radius, about 0.65).
The skin takes a brightness and white balance drawn as the renderer's light is (0.7-1.2,
0.85-1.15 per channel), and sensor noise (0-6 grey levels); the photo keeps its own.

The hand's mask is known, so which hexes it hides is too: through the clean registration
and the clean reading's alignment with the truth (the symmetry under which the clean photo
is read best), the truth's hexes whose terrain ring (0.45-0.8 hex radii) is 75% or more
under the hand are hidden, and the chips half or more under it, as the synthetic bench
counts them (:func:`vision.bench.hidden_by_hands`). A hex or chip the hand touches at all
is "under the hand" for the confident-wrong counts: what the issue asks is that whatever a
hand covers be reported unseen, null or in doubt, never a confident wrong value.

Each composite draws from a stream of its own, keyed by the seed, the photo's name and the
composite's index (:func:`hand_stream`): the other figures of the bench are unchanged, and
composite k of a photo is the same whatever else is read. Nothing is written into the
repository; ``debug_dir`` (``--real-hands-debug``, meant for /tmp) gets each composite with
its mask drawn.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.board import Board, Hex, Tile, hex_center
from vision.read_board import CERTAIN
from vision.register import circle_points, project
from vision.scoring import best_alignment
from vision.synth.render import distort_points, draw_hand

# The spawn key of the real-hands stream (apart from every other stream of the bench).
_STREAM = 3_000_017
#: Offsets (hex radii from its centre) of a hex's terrain ring, where vision.terrain reads it.
RING = circle_points(np.linspace(0.45, 0.8, 6), 48)
#: A hex is hidden by a hand when this share of its ring is covered (vision.read_board's own
#: threshold for calling a hex covered).
RING_HIDDEN = 0.75
#: Offsets of a chip's disc (0.8 hex radii across, at its hex's centre).
DISC = circle_points((0.15, 0.3, 0.38), 16, centre=True)
#: A chip is hidden when half of it is covered: no reader can read it.
DISC_HIDDEN = 0.5
# How far from a hex centre (hex radii) the fingertips may reach, and the hand's unit.
_TIP_OFFSET = 0.5
_UNIT = (0.35, 0.65)


class HandComposite(NamedTuple):
    """A photo with a hand over it: the image (BGR uint8) and the hand's mask (bool)."""

    image: np.ndarray
    mask: np.ndarray


def hand_stream(seed: int, name: str, k: int) -> np.random.Generator:
    """The random stream of composite ``k`` of photo ``name`` under ``seed``: its own, so no
    other draw of the bench moves, and the same whatever else is composited or read."""
    key = zlib.crc32(name.encode("utf-8"))
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_STREAM, key, k)))


def composite_hand(
    photo: np.ndarray, homography: np.ndarray, hexes: Sequence[Hex], rng: np.random.Generator
) -> HandComposite:
    """Lay one of the renderer's hands over the board of ``photo``.

    Args:
        photo: BGR uint8 (H, W, 3), left unchanged.
        homography: board plane (hex radii) -> ``photo`` pixels (a registration's).
        hexes: the board's hexes, in the homography's coordinates; the fingertips reach over
            one of them.
        rng: the stream the hand is drawn from (:func:`hand_stream`).

    Returns:
        The composite and the hand's mask (the pixels its skin covers; its shadow only
        darkens the photo beside it).
    """
    hx = hexes[int(rng.integers(len(hexes)))]
    angle, reach = rng.uniform(0, 2 * np.pi), _TIP_OFFSET * np.sqrt(rng.random())
    at = np.asarray(hex_center(hx)) + reach * np.array([np.cos(angle), np.sin(angle)])
    tip, east, south = project(homography, np.array([at, at + [1.0, 0.0], at + [0.0, 1.0]]))
    # The board's scale where the hand reaches: the root of the plane's local area scale.
    jac = np.column_stack([east - tip, south - tip])
    px = float(np.sqrt(abs(np.linalg.det(jac))))
    unit = px * float(rng.uniform(*_UNIT))
    image = photo.astype(np.float32)
    mask = draw_hand(image, rng, tip=(float(tip[0]), float(tip[1])), unit=unit)
    gain = rng.uniform(0.7, 1.2) * rng.uniform(0.85, 1.15, 3)
    noise = rng.standard_normal((int(mask.sum()), 3)) * rng.uniform(0, 6)
    image[mask] = image[mask] * gain + noise
    return HandComposite(cv2.convertScaleAbs(np.clip(image, 0, 255)), mask)


def cover_shares(
    mask: np.ndarray,
    homography: np.ndarray,
    hexes: Iterable[Hex],
    offsets: np.ndarray,
    distortion: float = 0.0,
) -> dict[Hex, float]:
    """Share of each hex's points at ``offsets`` (hex radii from its centre) that lie under
    ``mask`` (bool, image pixels), through ``homography`` (board plane -> image) and the
    renderer's lens ``distortion`` (see :func:`vision.synth.render.distort_points`; 0: none);
    points off the image are left out, a hex with none in it has share 0."""
    h, w = mask.shape
    out: dict[Hex, float] = {}
    for hx in hexes:
        pts = project(homography, offsets + hex_center(hx))
        if distortion:
            pts = distort_points(pts, distortion, w, h)
        xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
        ok = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        out[hx] = float(mask[yi[ok], xi[ok]].mean()) if ok.any() else 0.0
    return out


def _under(share: float, hidden: float) -> str:
    """Where a hex or chip stands against a hand: hidden, partly under it, or clear."""
    return "hidden" if share >= hidden else "partly" if share > 0 else "clear"


_PLACES = ("hidden", "partly", "clear")


def score_composite(
    truth: dict[Hex, Tile],
    board: Board,
    ring: dict[Hex, float],
    disc: dict[Hex, float],
) -> dict[str, Any]:
    """One composite's reading against the truth (its hexes as ``truth``'s).

    ``ring`` and ``disc``: each truth hex's share of terrain ring and chip disc under the
    hand. Returns the counts :func:`real_hands` sums, and ``perfect`` (terrain and chips all
    right) for the certain-but-wrong count.
    """
    s, aligned = best_alignment(truth, board.tiles)
    out: dict[str, Any] = {
        "terrain_right": s.terrain_right,
        "hexes": s.terrain_total,
        "chips_right": s.chips_right,
        "chips": s.chips_total,
        "hexes_hidden": 0,
        "hexes_not_hidden_right": 0,
        "chips_hidden": 0,
        "chips_not_hidden_right": 0,
        "chips_null": 0,
        "chips_wrong": 0,
        "third_wrong": False,
        "confident_wrong_hexes": dict.fromkeys(_PLACES, 0),
        "confident_wrong_chips": dict.fromkeys(_PLACES, 0),
        "confident_hidden_hexes": 0,
        "wrong": [],
    }
    wrong_terrain = 0
    for h, tile in truth.items():
        read = board.tiles.get(aligned(h))
        place = _under(ring.get(h, 0.0), RING_HIDDEN)
        out["hexes_hidden"] += place == "hidden"
        sure = read is not None and (read.confidence or 0.0) >= CERTAIN
        out["confident_hidden_hexes"] += place == "hidden" and sure
        right = read is not None and read.terrain == tile.terrain
        wrong_terrain += not right
        out["hexes_not_hidden_right"] += right and place != "hidden"
        if read is not None and not right:
            out["wrong"].append(
                {
                    "hex": h,
                    "read": read.terrain.value,
                    "truth": tile.terrain.value,
                    "confidence": read.confidence,
                    "ring_under_hand": round(ring.get(h, 0.0), 2),
                }
            )
            out["confident_wrong_hexes"][place] += sure
        if tile.number is None:
            continue
        chip_place = _under(disc.get(h, 0.0), DISC_HIDDEN)
        out["chips_hidden"] += chip_place == "hidden"
        got = None if read is None else read.number
        out["chips_not_hidden_right"] += got == tile.number and chip_place != "hidden"
        out["chips_null"] += got is None
        if got is not None and got != tile.number:
            out["chips_wrong"] += 1
            out["confident_wrong_chips"][chip_place] += sure
            out["wrong"].append(
                {
                    "hex": h,
                    "read_chip": got,
                    "truth_chip": tile.number,
                    "confidence": read.confidence if read else None,
                    "disc_under_hand": round(disc.get(h, 0.0), 2),
                }
            )
    out["third_wrong"] = 3 * wrong_terrain > len(truth)
    out["perfect"] = s.terrain_right == s.terrain_total and s.chips_right == s.chips_total
    out["aligned"] = aligned
    return out
