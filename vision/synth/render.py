"""Render a board as a camera would see it, with its ground truth.

The scene is drawn straight from above on a "top view" canvas (hex art, sea frame, harbours,
chips, robber, pirate, pieces), then projected into the camera image with a homography that
models a tilted camera, composited over a table, and degraded by what real photos suffer:
lighting gradients, colour casts, glare, shadows, occluding hands, blur, noise, lens distortion
and JPEG artefacts.

Units: the *board plane* is the plane of :func:`companion.board.hex_center` with ``size=1``
(one unit = one hex circumradius, x east, y south). The returned homography maps board-plane
points to image pixels *before* lens distortion; the returned hex polygons include it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.board import (
    HARBOR_KINDS,
    Board,
    Harbor,
    Hex,
    Terrain,
    edge_vertices,
    hex_center,
    hex_corner_points,
    vertex_position,
)
from vision.synth.chip_art import CHIP_STYLES, render_chip
from vision.synth.textures import palette, table_texture, terrain_texture

#: Colours (BGR) of the players' pieces.
PIECE_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 200),
    "blue": (160, 70, 30),
    "orange": (30, 130, 240),
    "white": (225, 225, 225),
    "green": (60, 140, 40),
    "brown": (40, 70, 110),
}

#: Harbour art: a token in the kind's colour ("disc"), a plaque in that colour with the trade
#: ratio printed on it ("plaque"), or a white token with the kind's colour as its icon and a
#: "?" on a generic one ("icon"), each with piers to the two corners it serves.
HARBOR_STYLES = ("disc", "plaque", "icon")

_HARBOR_COLOURS: dict[str, tuple[int, int, int]] = {
    "3:1": (235, 235, 235),
    "lumber": (45, 105, 50),
    "brick": (55, 100, 175),
    "wool": (75, 190, 130),
    "grain": (70, 185, 220),
    "ore": (150, 135, 135),
}

# Pixels per hex radius on the top-view canvas; the camera image rescales it.
_CANVAS_HEX_PX = 60
# Width of the sea frame around the outer hexes, in hex radii.
_FRAME_WIDTH = 0.75
# Chip diameter in hex radii (real chips: about 0.8).
_CHIP_DIAMETER = 0.8
# The spawn key of the robber's own stream (far beyond the children rng.spawn hands out).
_ROBBER_STREAM = 1_000_001


def own_stream(rng: np.random.Generator, key: int) -> np.random.Generator:
    """A random stream of its own for a draw added after a seed's other draws were fixed.

    It derives from ``rng``'s seed alone (``key`` names it), so ``rng``'s state and the
    children its ``spawn`` hands out are untouched: the seed's other draws stay the same.
    """
    seq = getattr(rng.bit_generator, "seed_seq", None)
    if not isinstance(seq, np.random.SeedSequence):
        return np.random.default_rng(key)
    return np.random.default_rng(
        np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, key))
    )


def robber_chip_hex(board: Board, where: float) -> Hex | None:
    """The land hex with a chip at index ``floor(where * n)`` of the board's ``n`` (sorted),
    or None when it has none (see ``Conditions.robber_on_chip`` and
    ``Conditions.robber_off_desert``)."""
    hexes = sorted(h for h, t in board.tiles.items() if t.terrain.is_land and t.number)
    return hexes[int(where * len(hexes))] if hexes else None


# Conditions.chip_scatter's default and bound, in hex radii (see the field).
CHIP_SCATTER = 0.03
MAX_CHIP_SCATTER = 0.3


@dataclass(frozen=True)
class Conditions:
    """How the photo is taken and spoiled. The defaults are a clean top view.

    Angles in degrees; ``fill`` is the fraction of the image's short side the board spans;
    ``distortion`` is the radial coefficient k1 (barrel < 0 < pincushion) at the half diagonal;
    amplitudes are fractions of full brightness; ``blur_sigma`` and ``noise_sigma`` in pixels
    and grey levels.
    """

    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    rotation_deg: float = 0.0
    fill: float = 0.85
    offset: tuple[float, float] = (0.0, 0.0)
    distortion: float = 0.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    brightness: float = 1.0
    light_gradient: float = 0.0
    glare: float = 0.0
    shadow: float = 0.0
    hands: int = 0
    blur_sigma: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    chip_style: str | None = None
    harbor_style: str | None = None
    # None: the robber stands where the board puts it, beside its hex's chip. A number u in
    # [0, 1): it stands on a chip, as players often put it, on the (sorted) land hex with a
    # chip at index floor(u * n) of the n (the render's board records that hex).
    robber_on_chip: float | None = None
    # None: as above. A number u in [0, 1): it stands beside the chip of the (sorted) land hex
    # with a chip at index floor(u * n), where it stands for most of a game once a 7 moved it
    # off the desert. At most one of the two is set.
    robber_off_desert: float | None = None
    # How far chips lie from their hexes' centres: the standard deviation of each coordinate
    # of a chip's offset, in hex radii. Chips are laid by hand: on the boards-dev photos their
    # offsets from the fitted grid have a median of 0.11 hex radii (about 0.09 a coordinate,
    # up to 0.37); CHIP_SCATTER is the renderer's tidier default, the one the figures were
    # measured on.
    chip_scatter: float = CHIP_SCATTER

    def __post_init__(self) -> None:
        if not 0.0 <= self.tilt_deg <= 60.0:
            raise ValueError(f"tilt_deg must be within 0..60, not {self.tilt_deg}")
        if not 0.1 <= self.fill <= 1.0:
            raise ValueError(f"fill must be within 0.1..1, not {self.fill}")
        if self.hands < 0:
            raise ValueError(f"hands must be >= 0, not {self.hands}")
        if self.jpeg_quality is not None and not 5 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be within 5..100, not {self.jpeg_quality}")
        if self.robber_on_chip is not None and not 0.0 <= self.robber_on_chip < 1.0:
            raise ValueError(f"robber_on_chip must be within [0, 1), not {self.robber_on_chip}")
        if self.robber_off_desert is not None:
            if not 0.0 <= self.robber_off_desert < 1.0:
                raise ValueError(
                    f"robber_off_desert must be within [0, 1), not {self.robber_off_desert}"
                )
            if self.robber_on_chip is not None:
                raise ValueError("set one of robber_on_chip and robber_off_desert, not both")
        if not 0.0 <= self.chip_scatter <= MAX_CHIP_SCATTER:
            raise ValueError(
                f"chip_scatter must be within 0..{MAX_CHIP_SCATTER} hex radii, "
                f"not {self.chip_scatter}"
            )
        if self.harbor_style is not None and self.harbor_style not in HARBOR_STYLES:
            raise ValueError(
                f"harbor_style must be one of {', '.join(HARBOR_STYLES)}, not {self.harbor_style!r}"
            )

    @classmethod
    def random(
        cls,
        rng: np.random.Generator,
        *,
        hard: bool = True,
        robber_on_chip: float = 0.0,
        robber_off_desert: float = 0.0,
        chip_scatter: float = CHIP_SCATTER,
    ) -> Conditions:
        """Random conditions; ``hard`` adds tilt up to 45 degrees, hands, glare and the rest.

        ``robber_on_chip`` is the probability that the robber stands on a chip, and
        ``robber_off_desert`` that it stands beside the chip of another land hex (when it is
        not on a chip), both drawn from a stream of its own (:func:`own_stream`): every other
        draw of a seed stays the same, and so do the on-chip draws of a seed.
        ``chip_scatter`` is how far the chips lie from their hexes' centres (see the field);
        it draws nothing, so a seed's renders differ only by where their chips lie.
        """
        own = own_stream(rng, _ROBBER_STREAM)
        on_chip, where = own.random() < robber_on_chip, float(own.random())
        # Drawn after the on-chip pair: a seed's robbers on chips stand where they stood.
        off_desert = not on_chip and own.random() < robber_off_desert
        base = cls(
            robber_on_chip=where if on_chip else None,
            robber_off_desert=where if off_desert else None,
            chip_scatter=chip_scatter,
            rotation_deg=float(rng.uniform(0, 360)),
            fill=float(rng.uniform(0.7, 0.92)),
            offset=(float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.04, 0.04))),
        )
        if not hard:
            return base
        return replace(
            base,
            tilt_deg=float(rng.uniform(0, 45)),
            tilt_dir_deg=float(rng.uniform(0, 360)),
            distortion=float(rng.uniform(-0.05, 0.03)),
            white_balance=tuple(float(x) for x in rng.uniform(0.85, 1.15, 3)),
            brightness=float(rng.uniform(0.7, 1.2)),
            light_gradient=float(rng.uniform(0, 0.35)),
            glare=float(rng.uniform(0, 0.3)) if rng.random() < 0.4 else 0.0,
            shadow=float(rng.uniform(0.2, 0.45)) if rng.random() < 0.4 else 0.0,
            hands=int(rng.random() < 0.3),
            blur_sigma=float(rng.uniform(0, 1.5)),
            noise_sigma=float(rng.uniform(0, 6)),
            jpeg_quality=int(rng.integers(40, 95)),
        )


@dataclass
class Render:
    """A rendered photo with its ground truth.

    Attributes:
        image: BGR uint8 of shape (height, width, 3).
        board: the board that was drawn (the ground truth).
        homography: float64 (3, 3), board plane (hex radii) -> image pixels, before lens
            distortion.
        hex_polygons: for every hex, its six corners clockwise from N in image pixels
            (float32 (6, 2)), lens distortion included.
        hand_mask: bool (height, width), True where a hand covers the board or table.
    """

    image: np.ndarray
    board: Board
    homography: np.ndarray
    hex_polygons: dict[Hex, np.ndarray] = field(default_factory=dict)
    hand_mask: np.ndarray | None = None


def render_board(
    board: Board,
    *,
    width: int = 1600,
    height: int = 1200,
    rng: np.random.Generator | int | None = None,
    conditions: Conditions | None = None,
) -> Render:
    """Draw ``board`` as a photo taken under ``conditions`` (random ones if None).

    Args:
        board: what to draw: hexes (any frame), chips, harbours, robber, pirate, pieces.
        width, height: size of the image in pixels (each at least 64).
        rng: a numpy Generator or a seed; the same seed gives the same image.
        conditions: the camera and spoilers; ``None`` draws random hard ones.

    Returns:
        A :class:`Render` with the image and its ground truth.
    """
    if width < 64 or height < 64:
        raise ValueError(f"image size must be at least 64x64, not {width}x{height}")
    if not board.tiles:
        raise ValueError("the board has no hexes to draw")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    cond = conditions if conditions is not None else Conditions.random(gen)
    # The robber moved onto a chip, or else beside another hex's chip (the first one given).
    for moved in ("robber_on_chip", "robber_off_desert"):
        where = getattr(cond, moved)
        if where is None:
            continue
        hx = robber_chip_hex(board, where)
        if hx is None:
            cond = replace(cond, **{moved: None})
        else:
            board = replace(board, robber=hx)
        break

    canvas, alpha, plane_to_canvas = _draw_top_view(board, cond, gen)
    homography = _camera_homography(board, cond, width, height)
    canvas_to_image = homography @ np.linalg.inv(plane_to_canvas)

    image = table_texture(height, width, gen)
    # The board is drawn over the table where its (anti-aliased) footprint says so.
    warped = cv2.warpPerspective(canvas, canvas_to_image, (width, height), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, canvas_to_image, (width, height), flags=cv2.INTER_LINEAR)
    a3 = cv2.merge([a, a, a])
    image = cv2.add(
        cv2.multiply(image, 255 - a3, scale=1 / 255), cv2.multiply(warped, a3, scale=1 / 255)
    )
    image = image.astype(np.float32)

    hand_mask = np.zeros((height, width), bool)
    for _ in range(cond.hands):
        hand_mask |= draw_hand(image, gen)
    # From here on 8-bit images: remapping and blurring them is several times faster.
    out = cv2.convertScaleAbs(np.maximum(_light(image, cond, gen), 0))
    if cond.distortion:
        out, hand_mask = _distort(out, hand_mask, cond.distortion)
    if cond.blur_sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), cond.blur_sigma)
    if cond.noise_sigma > 0:
        noise = gen.standard_normal(out.shape, dtype=np.float32)
        out = cv2.convertScaleAbs(
            np.maximum(cv2.scaleAdd(noise, cond.noise_sigma, out.astype(np.float32)), 0)
        )
    if cond.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, cond.jpeg_quality])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)

    polygons = {}
    for h in board.tiles:
        pts = _project(homography, np.array(hex_corner_points(h), np.float64))
        if cond.distortion:
            pts = distort_points(pts, cond.distortion, width, height)
        polygons[h] = pts.astype(np.float32)
    return Render(out, board, homography, polygons, hand_mask)


# --- the top view ----------------------------------------------------------------------------


def _draw_top_view(
    board: Board, cond: Conditions, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw the board from above. Returns (BGR uint8 canvas, alpha uint8, plane->canvas 3x3)."""
    s = _CANVAS_HEX_PX
    centres = np.array([hex_center(h) for h in board.tiles], np.float64)
    margin = 1.0 + _FRAME_WIDTH + 0.3
    lo = centres.min(axis=0) - margin
    hi = centres.max(axis=0) + margin
    w, h = (int(math.ceil(v)) for v in (hi - lo) * s)
    plane_to_canvas = np.array([[s, 0, -lo[0] * s], [0, s, -lo[1] * s], [0, 0, 1]], np.float64)

    def to_px(points: np.ndarray) -> np.ndarray:
        return _project(plane_to_canvas, points)

    colours = palette(rng)
    canvas = np.zeros((h, w, 3), np.float32)
    footprint = np.zeros((h, w), np.uint8)
    for hx in board.tiles:
        cv2.fillPoly(
            footprint, [np.round(to_px(np.array(hex_corner_points(hx)))).astype(np.int32)], 255
        )
    outside = cv2.distanceTransform(255 - footprint, cv2.DIST_L2, 5)
    frame = np.where(outside <= _FRAME_WIDTH * s, 255, 0).astype(np.uint8)
    sea = terrain_texture(Terrain.SEA, max(w, h), colours[Terrain.SEA], rng)[:h, :w]
    canvas[frame > 0] = sea[frame > 0]
    contours, _ = cv2.findContours(frame, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(canvas, contours, -1, (60, 50, 30), max(2, s // 20))

    border = np.array([150, 200, 220], np.float32) + rng.uniform(-15, 15, 3)
    patch = 2 * s + 2
    for hx, tile in board.tiles.items():
        corners = to_px(np.array(hex_corner_points(hx)))
        x0, y0 = np.floor(corners.min(axis=0)).astype(int)
        tex = terrain_texture(tile.terrain, patch, colours[tile.terrain], rng)
        mask = np.zeros((patch, patch), np.uint8)
        cv2.fillPoly(mask, [np.round(corners - [x0, y0]).astype(np.int32)], 255)
        ys, xs = np.nonzero(mask)
        yy, xx = ys + y0, xs + x0
        ok = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        canvas[yy[ok], xx[ok]] = tex[ys[ok], xs[ok]]
    for hx, tile in board.tiles.items():
        if tile.terrain.is_land:
            corners = np.round(to_px(np.array(hex_corner_points(hx)))).astype(np.int32)
            cv2.polylines(canvas, [corners], True, border.tolist(), max(2, s // 12), cv2.LINE_AA)

    if board.harbors:
        # The harbour art draws from its own stream, so the rest of a seed's render is unchanged.
        art = rng.spawn(1)[0]
        hstyle = cond.harbor_style or HARBOR_STYLES[int(art.integers(len(HARBOR_STYLES)))]
        # Printings differ: each board's harbour colours are shifted a little.
        shift = art.uniform(-15, 15, (len(HARBOR_KINDS), 3))
        inks = {
            k: tuple(float(c) for c in np.add(_HARBOR_COLOURS[k], d))
            for k, d in zip(HARBOR_KINDS, shift, strict=True)
        }
        for harbor in board.harbors:
            _draw_harbor(canvas, to_px, harbor, inks[harbor.kind], hstyle, s)
    style = cond.chip_style or CHIP_STYLES[int(rng.integers(len(CHIP_STYLES)))]
    # One print of each value per board (as in a real set), each copy turned its own way.
    diameter = int(_CHIP_DIAMETER * s)
    prints: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    chip_at: dict[Hex, np.ndarray] = {}
    for hx, tile in board.tiles.items():
        if tile.number is not None:
            if tile.number not in prints:
                prints[tile.number] = render_chip(
                    tile.number, style=style, size_px=diameter, rng=rng
                )
            c = to_px(np.array([hex_center(hx)]))[0] + rng.normal(0, cond.chip_scatter * s, 2)
            _paste_chip(canvas, prints[tile.number], c, float(rng.uniform(0, 360)))
            chip_at[hx] = c
    if board.robber is not None:
        if cond.robber_on_chip is not None and board.robber in chip_at:
            _draw_robber(canvas, chip_at[board.robber], s, rng, off_centre=0.1)
        else:
            _draw_robber(canvas, to_px(np.array([hex_center(board.robber)]))[0], s, rng)
    if board.pirate is not None:
        _draw_ship(
            canvas, to_px(np.array([hex_center(board.pirate)]))[0], s, (30, 30, 30), 1.5, rng
        )
    for piece in board.pieces:
        colour = PIECE_COLOURS.get(piece.color, (128, 128, 128))
        if piece.vertex is not None:
            p = to_px(np.array([vertex_position(piece.vertex)]))[0]
            _draw_building(canvas, p, s, colour, city=piece.kind == "city")
        elif piece.edge is not None:
            a, b = (to_px(np.array([vertex_position(v)]))[0] for v in edge_vertices(piece.edge))
            if piece.kind == "ship":
                _draw_ship(canvas, (a + b) / 2, s, colour, 1.0, rng)
            else:
                _draw_road(canvas, a, b, s, colour)
    return np.clip(canvas, 0, 255).astype(np.uint8), frame, plane_to_canvas


def _paste_chip(
    canvas: np.ndarray,
    chip: tuple[np.ndarray, np.ndarray],
    centre: np.ndarray,
    rotation_deg: float,
) -> None:
    """Composite a chip (BGR uint8 (d, d, 3), mask uint8 (d, d)) turned by ``rotation_deg``."""
    img, mask = chip
    size = img.shape[0]
    m = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), rotation_deg, 1.0)
    img = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(mask, m, (size, size), flags=cv2.INTER_LINEAR)
    x0, y0 = int(round(centre[0] - size / 2)), int(round(centre[1] - size / 2))
    h, w = canvas.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + size > w or y0 + size > h:
        return
    region = canvas[y0 : y0 + size, x0 : x0 + size]
    a = (mask.astype(np.float32) / 255.0)[..., None]
    # A thin drop shadow: chips are cardboard discs lying on the tile.
    region *= 1.0 - 0.25 * np.roll(a, (2, 2), axis=(0, 1))
    region[:] = region * (1.0 - a) + img.astype(np.float32) * a


def _draw_harbor(
    canvas: np.ndarray,
    to_px: Callable[[np.ndarray], np.ndarray],
    harbor: Harbor,
    ink: tuple[float, ...],
    style: str,
    s: int,
) -> None:
    """Draw one harbour in ``style`` (see :data:`HARBOR_STYLES`) on the sea off its side."""
    a, b = (to_px(np.array([vertex_position(v)]))[0] for v in harbor.vertices)
    centre = to_px(np.array([hex_center((harbor.q, harbor.r))]))[0]
    mid = (a + b) / 2
    normal = (mid - centre) / np.linalg.norm(mid - centre)
    out = mid + normal * 0.5 * s
    for p in (a, b):
        cv2.line(canvas, _ip(p), _ip(out), (60, 110, 150), max(2, s // 14), cv2.LINE_AA)
    dark = (40, 40, 40)
    generic = harbor.kind == "3:1"
    if style == "disc":
        cv2.circle(canvas, _ip(out), int(0.25 * s), ink, -1, cv2.LINE_AA)
        cv2.circle(canvas, _ip(out), int(0.25 * s), dark, 1, cv2.LINE_AA)
        if generic:
            cv2.circle(canvas, _ip(out), int(0.12 * s), (30, 30, 30), max(1, s // 30), cv2.LINE_AA)
    elif style == "plaque":
        # A square turned to face the coast, with the ratio written across it.
        t = np.array([-normal[1], normal[0]]) * 0.21 * s
        n = normal * 0.21 * s
        square = np.array([out + t + n, out + t - n, out - t - n, out - t + n])
        cv2.fillConvexPoly(canvas, np.round(square).astype(np.int32), ink, cv2.LINE_AA)
        cv2.polylines(canvas, [np.round(square).astype(np.int32)], True, dark, 1, cv2.LINE_AA)
        text = "3:1" if generic else "2:1"
        ink_of_text = (30, 30, 30) if generic else (245, 245, 245)
        _centred_text(canvas, text, out, 0.006 * s, ink_of_text)
    else:
        cv2.circle(canvas, _ip(out), int(0.26 * s), (235, 235, 230), -1, cv2.LINE_AA)
        cv2.circle(canvas, _ip(out), int(0.26 * s), dark, 1, cv2.LINE_AA)
        if generic:
            _centred_text(canvas, "?", out, 0.012 * s, (30, 30, 30))
        else:
            cv2.circle(canvas, _ip(out), int(0.19 * s), ink, -1, cv2.LINE_AA)


def _centred_text(
    canvas: np.ndarray, text: str, centre: np.ndarray, scale: float, colour: tuple[int, ...]
) -> None:
    """Write ``text`` centred on ``centre`` (OpenCV writes only on 8-bit images: via a mask)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, int(round(2 * scale)))
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    x0, y0 = int(round(centre[0] - w / 2)), int(round(centre[1] - h / 2))
    x0, y0 = max(0, x0 - thick), max(0, y0 - thick)
    region = canvas[y0 : y0 + h + base + 2 * thick, x0 : x0 + w + 2 * thick]
    mask = np.zeros(region.shape[:2], np.uint8)
    org = (int(round(centre[0] - w / 2)) - x0, int(round(centre[1] + h / 2)) - y0)
    cv2.putText(mask, text, org, font, scale, 255, thick, cv2.LINE_AA)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    region[:] = region * (1.0 - a) + np.array(colour, np.float32) * a


def _draw_robber(
    canvas: np.ndarray,
    centre: np.ndarray,
    s: int,
    rng: np.random.Generator,
    off_centre: float = 0.5,
) -> None:
    """The robber ``off_centre`` hex radii from ``centre`` (beside the chip by default)."""
    angle = rng.uniform(0, 2 * np.pi)
    c = centre + off_centre * s * np.array([np.cos(angle), np.sin(angle)])
    grey = float(rng.uniform(60, 160))
    cv2.ellipse(
        canvas, _ip(c), (int(0.2 * s), int(0.27 * s)), 0, 0, 360, (grey,) * 3, -1, cv2.LINE_AA
    )
    cv2.circle(canvas, _ip(c - [0, 0.3 * s]), int(0.13 * s), (grey * 0.9,) * 3, -1, cv2.LINE_AA)


def _draw_ship(
    canvas: np.ndarray,
    centre: np.ndarray,
    s: int,
    colour: tuple[int, int, int],
    scale: float,
    rng: np.random.Generator,
) -> None:
    hull = np.array([[-0.3, 0], [0.3, 0], [0.2, 0.12], [-0.2, 0.12]]) * s * scale
    sail = np.array([[0, -0.3], [0.18, -0.02], [0, -0.02]]) * s * scale
    rot = rng.uniform(0, 2 * np.pi)
    m = np.array([[np.cos(rot), -np.sin(rot)], [np.sin(rot), np.cos(rot)]])
    for poly in (hull, sail):
        cv2.fillPoly(canvas, [np.round(poly @ m.T + centre).astype(np.int32)], colour, cv2.LINE_AA)


def _draw_building(
    canvas: np.ndarray, p: np.ndarray, s: int, colour: tuple[int, int, int], *, city: bool
) -> None:
    k = 0.2 * s
    house = np.array([[-1, 1], [1, 1], [1, -0.3], [0, -1.1], [-1, -0.3]], np.float64)
    if city:
        house = np.array(
            [[-1.6, 1], [1.2, 1], [1.2, -0.3], [0.4, -1.1], [-0.4, -0.3], [-1.6, -0.3]], np.float64
        )
    pts = np.round(house * k + p).astype(np.int32)
    cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA)
    cv2.polylines(canvas, [pts], True, (20, 20, 20), 1, cv2.LINE_AA)


def _draw_road(
    canvas: np.ndarray, a: np.ndarray, b: np.ndarray, s: int, colour: tuple[int, int, int]
) -> None:
    mid, d = (a + b) / 2, (b - a)
    d = d / np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    half_len, half_w = 0.35 * s, 0.07 * s
    pts = np.array(
        [mid + d * half_len * i + n * half_w * j for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    )
    cv2.fillPoly(canvas, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def _ip(p: np.ndarray) -> tuple[int, int]:
    return int(round(float(p[0]))), int(round(float(p[1])))


# --- the camera --------------------------------------------------------------------------------


def _project(m: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (N, 2) points; returns float64 (N, 2)."""
    p = np.hstack([points, np.ones((len(points), 1))]) @ m.T
    return p[:, :2] / p[:, 2:3]


def _camera_homography(board: Board, cond: Conditions, width: int, height: int) -> np.ndarray:
    """Board plane -> image: a pinhole camera tilted by ``tilt_deg``, then fit into the image."""
    corners = np.array([c for h in board.tiles for c in hex_corner_points(h)], np.float64)
    centre = corners.mean(axis=0)
    radius = float(np.max(np.linalg.norm(corners - centre, axis=1))) + _FRAME_WIDTH
    rot = math.radians(cond.rotation_deg)
    spin = np.array(
        [[math.cos(rot), -math.sin(rot), 0], [math.sin(rot), math.cos(rot), 0], [0, 0, 1]]
    )
    # Tilt: rotate the plane about an in-plane axis; the camera sits 2.5 board radii away.
    t, d = math.radians(cond.tilt_deg), math.radians(cond.tilt_dir_deg)
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    tilt, _ = cv2.Rodrigues(axis * t)
    r = tilt @ spin
    distance = 2.5 * radius
    extr = np.column_stack([r[:, 0], r[:, 1], [0, 0, distance]])
    shift = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])
    h0 = extr @ shift
    # Fit the projected frame outline into the image.
    ring = np.array([[math.cos(a), math.sin(a)] for a in np.linspace(0, 2 * np.pi, 24)])
    proj = _project(h0, centre + radius * ring)
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    scale = cond.fill * min(width, height) / float(max(hi - lo))
    mid = (lo + hi) / 2
    ox = width / 2 + cond.offset[0] * width - scale * mid[0]
    oy = height / 2 + cond.offset[1] * height - scale * mid[1]
    fit = np.array([[scale, 0, ox], [0, scale, oy], [0, 0, 1]])
    hom = fit @ h0
    return hom / hom[2, 2]


def _radial_factor(dx: np.ndarray, dy: np.ndarray, k: float, norm: float) -> np.ndarray:
    return 1.0 + k * (dx * dx + dy * dy) / (norm * norm)


def _distort(image: np.ndarray, mask: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Radial lens distortion: output pixel p_d samples the ideal image at c + (p_d - c)(1+k r²)."""
    h, w = image.shape[:2]
    cx, cy, norm = w / 2.0, h / 2.0, math.hypot(w / 2.0, h / 2.0)
    # The sampling map is a smooth quadratic: compute it on a coarse grid and upsample.
    gh, gw = max(2, h // 8), max(2, w // 8)
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    # Coarse pixel centres, where cv2.resize's linear interpolation puts its samples.
    xs, ys = (xs + 0.5) * (w / gw) - 0.5, (ys + 0.5) * (h / gh) - 0.5
    f = _radial_factor(xs - cx, ys - cy, k, norm)
    mx = cv2.resize(cx + (xs - cx) * f, (w, h), interpolation=cv2.INTER_LINEAR)
    my = cv2.resize(cy + (ys - cy) * f, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    m = cv2.remap(mask.astype(np.uint8), mx, my, cv2.INTER_NEAREST) > 0
    return out, m


def distort_points(points: np.ndarray, k: float, width: int, height: int) -> np.ndarray:
    """Where ideal-image points land after the lens distortion of :func:`render_board`.

    Args:
        points: float (N, 2) pixel positions in the undistorted image.
        k: the distortion coefficient of the render's conditions.
        width, height: the image size.

    Returns:
        float64 (N, 2) pixel positions in the distorted image.
    """
    cx, cy, norm = width / 2.0, height / 2.0, math.hypot(width / 2.0, height / 2.0)
    u = np.asarray(points, np.float64) - [cx, cy]
    d = u.copy()
    for _ in range(8):  # fixed point of d = u / (1 + k |d|^2)
        d = u / _radial_factor(d[:, 0], d[:, 1], k, norm)[:, None]
    return d + [cx, cy]


# --- light, shadows, hands -------------------------------------------------------------------


def _light(image: np.ndarray, cond: Conditions, rng: np.random.Generator) -> np.ndarray:
    h, w = image.shape[:2]
    # Light fields are smooth, so they are computed on a coarse grid and upsampled.
    gh, gw = max(8, h // 8), max(8, w // 8)
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    ys, xs = (ys + 0.5) / gh, (xs + 0.5) / gw
    gain = np.full((gh, gw), cond.brightness, np.float32)
    if cond.light_gradient:
        ang = rng.uniform(0, 2 * np.pi)
        ramp = ((xs - 0.5) * np.cos(ang) + (ys - 0.5) * np.sin(ang)) * 2
        gain *= 1.0 + cond.light_gradient * 0.5 * ramp
    if cond.shadow:
        mask = np.zeros((gh, gw), np.float32)
        pts = rng.uniform([0, 0], [gw, gh], (4, 2)).astype(np.int32)
        cv2.fillConvexPoly(mask, cv2.convexHull(pts), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), 0.02 * max(gw, gh))
        gain *= 1.0 - cond.shadow * mask
    add = np.zeros((gh, gw), np.float32)
    if cond.glare:
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        sigma = rng.uniform(0.04, 0.1)
        add = cond.glare * 255.0 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    add = cv2.resize(add.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    wb = np.array(cond.white_balance, np.float32)
    out = image * cv2.merge([gain * wb[0], gain * wb[1], gain * wb[2]])
    return out + add[..., None]


def draw_hand(
    image: np.ndarray,
    rng: np.random.Generator,
    *,
    tip: tuple[float, float] | None = None,
    unit: float | None = None,
) -> np.ndarray:
    """Draw a hand reaching in from an image border over float32 BGR ``image`` (in place:
    its shadow darkens the image, its skin replaces it); returns its bool mask (h, w).

    ``tip``: where the fingertips reach, in pixels; drawn in the middle of the image when
    None. ``unit``: the hand's scale in pixels (the palm is about 3 units across, the arm
    2.4); 3% of the image's short side when None, about one and a half hexes wide for a
    board filling the image. Both are given to lay a hand over a real photo's board
    (:mod:`vision.bench_hands`); left None, the draws are the renderer's own.
    """
    h, w = image.shape[:2]
    side = int(rng.integers(4))
    # Where the fingertips reach, and the direction the arm comes from.
    if tip is None:
        tip = (rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h)
    at = np.array(tip, np.float64)
    entry = {
        0: [at[0], -0.1 * h],
        1: [w * 1.1, at[1]],
        2: [at[0], h * 1.1],
        3: [-0.1 * w, at[1]],
    }
    base = np.array(entry[side], np.float64)
    d = at - base
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    if unit is None:
        unit = 0.03 * min(w, h)
    palm = at - d * 1.6 * unit
    mask = np.zeros((h, w), np.uint8)
    arm = np.array(
        [base + n * 1.2 * unit, palm + n * 1.3 * unit, palm - n * 1.3 * unit, base - n * 1.2 * unit]
    )
    cv2.fillConvexPoly(mask, np.round(arm).astype(np.int32), 255)
    angle = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(mask, _ip(palm), (int(1.5 * unit), int(1.3 * unit)), angle, 0, 360, 255, -1)
    for i in range(4):
        off = (i - 1.5) * 0.55 * unit
        start = palm + n * off + d * 0.8 * unit
        end = start + d * rng.uniform(1.2, 1.8) * unit
        cv2.line(mask, _ip(start), _ip(end), 255, max(2, int(0.45 * unit)), cv2.LINE_AA)
    m = mask > 127
    skin = np.array([rng.uniform(90, 170), rng.uniform(120, 190), rng.uniform(170, 235)])
    shade = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 0.5 * unit)
    shadow = np.roll(shade, (int(0.4 * unit), int(0.4 * unit)), axis=(0, 1))
    image *= (1.0 - 0.35 * shadow)[..., None]
    image[m] = skin * (0.75 + 0.3 * shade[m])[:, None]
    return m
