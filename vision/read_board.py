"""Read a whole board from one photo: registration, terrain, chips, with confidences.

``read_board(image_or_path)`` returns a :class:`companion.board.Board` whose hexes carry a
terrain, a number (``None`` where a chip could not be read honestly) and a confidence, and
whose ``warnings`` say what is doubtful. A board whose warnings include one starting with
``"uncertain"`` must not be trusted without a look; :func:`is_certain` tells.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from companion.board import Board, Hex, Terrain, Tile, hex_center
from vision.register import Registration, project, rectify, register
from vision.terrain import TerrainReading, classify_terrain, hex_features

log = logging.getLogger(__name__)

#: Chip counts of the boards whose material is fixed.
CHIP_COUNTS: dict[str, Counter[int]] = {
    "base": Counter({2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1}),
    "5-6": Counter({2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2}),
}

#: A hex read with less confidence than this makes the board uncertain.
CERTAIN = 0.9
# A hex is sea when this fraction of its interior is open-sea blue.
_SEA_FRACTION = 0.7
# Top-view resolution bounds, pixels per hex radius (chips stay 30..70 px wide).
_MIN_PX, _MAX_PX = 40.0, 90.0
# Nominal chip diameter in hex radii.
_CHIP_CROP = 0.8


def load_image(image_or_path: np.ndarray | str | Path) -> np.ndarray:
    """A BGR uint8 (H, W, 3) image from an array or a file (EXIF orientation applied).

    Raises:
        ValueError: a file that does not exist or is not an image, or an array that is not a
            colour or grey image.
    """
    if isinstance(image_or_path, str | Path):
        path = Path(image_or_path)
        if not path.is_file():
            raise ValueError(f"{path}: no such image file")
        # imread applies the EXIF orientation tag unless told not to.
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"{path}: not an image OpenCV can read (JPEG, PNG, ...)")
        return img
    img = np.asarray(image_or_path)
    if img.dtype != np.uint8:
        raise ValueError(f"the image must be uint8, not {img.dtype}")
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim == 3 and img.shape[2] == 3:
        return img
    if img.ndim == 3 and img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    raise ValueError(f"the image must be (H, W) or (H, W, 3), not {img.shape}")


def is_certain(board: Board) -> bool:
    """True when nothing in the reading is in doubt."""
    return not any(w.startswith("uncertain") for w in board.warnings)


def read_board(
    image_or_path: np.ndarray | str | Path,
    kind: str | None = None,
    debug_dir: str | Path | None = None,
) -> Board:
    """Read the board in a photo.

    Args:
        image_or_path: BGR uint8 (H, W, 3) array or an image file of any size.
        kind: base, 5-6 or seafarers when known; None to detect it.
        debug_dir: if given, stage images are written there (see :mod:`vision.debug`).

    Returns:
        The board; hexes in canonical coordinates (orientation chosen by the reader and stable
        for a fixed camera), with confidences and warnings.

    Raises:
        ValueError: bad input, or "no board found ..." when the photo shows no board.
    """
    image = load_image(image_or_path)
    if min(image.shape[:2]) < 64:
        raise ValueError(f"the image is too small ({image.shape[1]}x{image.shape[0]}) to read")
    reg = register(image, kind)
    warnings: list[str] = []
    if reg.ambiguous:
        warnings.append("uncertain: the frame fits the chips in more than one place")

    native = _native_px_per_unit(reg)
    px = float(np.clip(native, _MIN_PX, _MAX_PX))
    top, plane_to_top = rectify(image, reg, px)

    sea = np.array([reg.sea_fraction.get(h, 0.0) > _SEA_FRACTION for h in reg.hexes])
    sea &= np.array([h not in reg.chip_hexes for h in reg.hexes])
    if reg.kind != "seafarers" and sea.any():
        warnings.append(f"uncertain: {int(sea.sum())} hex(es) of a {reg.kind} board look like sea")
        sea[:] = False
    feats = hex_features(top, plane_to_top, reg.hexes)
    terrain = classify_terrain(feats, kind=reg.kind, sea=sea)

    numbers, chip_conf = _read_chips(top, plane_to_top, reg, terrain, warnings)

    tiles: dict[Hex, Tile] = {}
    for i, h in enumerate(reg.hexes):
        t = terrain[i]
        number = numbers.get(h)
        conf = min(t.confidence, chip_conf.get(h, 1.0))
        if t.terrain in (Terrain.SEA, Terrain.DESERT):
            number = None
        tiles[h] = Tile(t.terrain, number, round(float(conf), 4))
    low = [h for h, t in tiles.items() if (t.confidence or 0.0) < CERTAIN]
    if low:
        warnings.append(f"uncertain: {len(low)} hex(es) read with confidence below {CERTAIN}")
    warnings.append("harbours, robber, pirate and pieces are not read yet")
    board = Board(reg.kind, tiles, warnings=warnings)
    if debug_dir is not None:
        from vision.debug import write_debug_images

        write_debug_images(Path(debug_dir), image, reg, top, plane_to_top, board)
    return board


def _native_px_per_unit(reg: Registration) -> float:
    """Median image pixels per board-plane unit over the board's hexes."""
    centres = np.array([hex_center(h) for h in reg.hexes])
    a = project(reg.homography, centres)
    b = project(reg.homography, centres + [1.0, 0.0])
    return float(np.median(np.linalg.norm(b - a, axis=1)))


def chip_crop(top: np.ndarray, centre: np.ndarray, px: float) -> np.ndarray | None:
    """A square crop that the chip disc near ``centre`` fills, from the top view.

    The disc is located as the light, low-chroma blob nearest the hex centre (Otsu threshold
    on lightness minus chroma inside a window of 1.2 hex radii); the crop is its bounding
    square with a small margin. Falls back to the nominal chip size at the hex centre.

    Args:
        top: BGR uint8 top view.
        centre: (2,) the hex centre in top-view pixels.
        px: top-view pixels per hex radius.

    Returns:
        BGR uint8 crop, or None when the window falls outside the top view.
    """
    half = int(math.ceil(0.6 * px))
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    x0, y0 = cx - half, cy - half
    h, w = top.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * half > w or y0 + 2 * half > h:
        return None
    win = top[y0 : y0 + 2 * half, x0 : x0 + 2 * half]
    lab = cv2.cvtColor(win.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    white = lab[..., 0] - 0.5 * np.hypot(lab[..., 1], lab[..., 2])
    white8 = cv2.normalize(white, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _, mask = cv2.threshold(white8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask)
    nominal = _CHIP_CROP * px / 2
    best = None
    for k in range(1, n):
        r_eq = math.sqrt(stats[k, cv2.CC_STAT_AREA] / math.pi)
        off = math.hypot(cents[k][0] - half, cents[k][1] - half)
        # The chip: about the nominal size, near the centre.
        plausible = 0.6 * nominal < r_eq < 1.3 * nominal and off < 0.5 * nominal
        if plausible and (best is None or off < best[0]):
            best = (off, cents[k], r_eq)
    if best is None:
        ccx, ccy, r = float(half), float(half), nominal
    else:
        (ccx, ccy), r = best[1], best[2]
    r *= 1.08
    a, b = int(round(x0 + ccx - r)), int(round(y0 + ccy - r))
    side = int(round(2 * r))
    if a < 0 or b < 0 or a + side > w or b + side > h or side < 8:
        return None
    return top[b : b + side, a : a + side]


def _read_chips(
    top: np.ndarray,
    plane_to_top: np.ndarray,
    reg: Registration,
    terrain: list[TerrainReading],
    warnings: list[str],
) -> tuple[dict[Hex, int | None], dict[Hex, float]]:
    """Crop every chip from the top view and read them, jointly when the counts are known."""
    try:
        from vision.chips import default_model, read_chip, read_chips_jointly

        default_model()
    except (ImportError, OSError) as exc:
        warnings.append(f"uncertain: no chip reader available ({exc}); numbers are not read")
        return {}, {}
    px = float(plane_to_top[0, 0])
    hexes: list[Hex] = []
    readings = []
    for i, h in enumerate(reg.hexes):
        if terrain[i].terrain in (Terrain.SEA, Terrain.DESERT):
            continue
        centre = project(plane_to_top, np.array([hex_center(h)]))[0]
        crop = chip_crop(top, centre, px)
        if crop is None:
            continue
        hexes.append(h)
        readings.append(read_chip(crop))
    expected = CHIP_COUNTS.get(reg.kind)
    if expected is not None and readings:
        values = read_chips_jointly(readings, expected)
    else:
        values = [r.value for r in readings]
    numbers: dict[Hex, int | None] = {}
    conf: dict[Hex, float] = {}
    for h, r, v in zip(hexes, readings, values, strict=True):
        numbers[h] = v
        conf[h] = float(r.scores.get(v, 0.0)) if v is not None else 0.0
    missing = [h for h, v in numbers.items() if v is None]
    if missing:
        warnings.append(f"uncertain: {len(missing)} chip(s) could not be read")
    return numbers, conf
